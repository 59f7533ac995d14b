// SPDX-License-Identifier: GPL-2.0
/*
 * stressb - a module that Lab 11's stress workload loads and unloads in
 * a loop: its init runs the shared code "rounds" times.
 */
#include <linux/module.h>
#include "shared.h"

static unsigned int rounds = 7;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "calls of the shared code at load");

static int __init stressb_init(void)
{
	return stress_work(rounds) == ~0U ? -EINVAL : 0;
}
module_init(stressb_init);

static void __exit stressb_exit(void)
{
}
module_exit(stressb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gcov-kernel-labs: stress module b");
