// SPDX-License-Identifier: GPL-2.0
/*
 * A module for the tests, compiled by gcc-11 (see Kbuild): its profiling
 * data has GCC 11's gcov_info layout. Written for gcov-kernel-labs.
 */
#include <linux/init.h>
#include <linux/module.h>

static int gcc11_calls;

static noinline int gcc11_work(int n)
{
	return n & 1 ? n * 3 : n / 2;
}

static int __init gcc11_init(void)
{
	gcc11_calls = gcc11_work(7);
	pr_info("gcc11: loaded (%d)\n", gcc11_calls);
	return 0;
}

static void __exit gcc11_exit(void)
{
	pr_info("gcc11: unloaded\n");
}

module_init(gcc11_init);
module_exit(gcc11_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gcov-kernel-labs test module built by gcc-11");
