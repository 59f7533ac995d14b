// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose .gcda differs between the mainline and the lab kernel
 * even with the same build path and -frandom-seed: taking the address of
 * list_empty(), a static inline function of <linux/list.h>, makes GCC emit
 * it out of line here, profiled, and its function checksum hashes the
 * header's path, which is the kernel tree the module is built against.
 * "vm/gcovlab compare" must find the records equal once those are masked.
 */
#include <linux/list.h>
#include <linux/module.h>

static LIST_HEAD(items);
static int (*is_empty)(const struct list_head *head) = list_empty;

static int rounds = 3;
module_param(rounds, int, 0444);

static int __init outofline_init(void)
{
	int i, empty = 0;

	for (i = 0; i < rounds; i++)
		if (is_empty(&items))
			empty++;
	pr_info("outofline: %d of %d rounds saw an empty list\n", empty, rounds);
	return 0;
}
module_init(outofline_init);

static void __exit outofline_exit(void)
{
}
module_exit(outofline_exit);

MODULE_DESCRIPTION("Out-of-line header function for the gcov compare test");
MODULE_LICENSE("GPL");
