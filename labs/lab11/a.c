// SPDX-License-Identifier: GPL-2.0
/*
 * stressa - a module that Lab 11's stress workload loads and unloads in
 * a loop: its init runs the shared code "rounds" times.
 */
#include <linux/module.h>
#include "shared.h"

static unsigned int rounds = 10;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "calls of the shared code at load");

static int __init stressa_init(void)
{
	return stress_work(rounds) == ~0U ? -EINVAL : 0;
}
module_init(stressa_init);

static void __exit stressa_exit(void)
{
}
module_exit(stressa_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gcov-kernel-labs: stress module a");
