// SPDX-License-Identifier: GPL-2.0
/* Test module in two objects: core.c calls into lib/helper.c. */
#include <linux/module.h>
#include "lib/helper.h"

static int n = 4;
module_param(n, int, 0444);

static int __init multi_init(void)
{
	pr_info("multi: sum of squares below %d is %d\n", n, multi_sum_squares(n));
	return 0;
}

static void __exit multi_exit(void)
{
}

module_init(multi_init);
module_exit(multi_exit);
MODULE_LICENSE("GPL");
