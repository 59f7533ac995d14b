// SPDX-License-Identifier: GPL-2.0
/*
 * The "edited" sample driver of the Lab 7 persistence test: same object
 * name as labs/driver/gcovdemo.c, different functions.  Its saved counters
 * must not be revived into this code.
 */
#include <linux/module.h>

static int depth = 3;
module_param(depth, int, 0444);

static int __init gcovdemo_init(void)
{
	int i, sum = 0;

	for (i = 0; i < depth; i++)
		sum += i;
	pr_info("gcovdemo v2: sum %d\n", sum);
	return 0;
}
module_init(gcovdemo_init);

static void __exit gcovdemo_exit(void)
{
	pr_info("gcovdemo v2: bye\n");
}
module_exit(gcovdemo_exit);

MODULE_DESCRIPTION("Changed sample driver for the gcov persistence test");
MODULE_LICENSE("GPL");
