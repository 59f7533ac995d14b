// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 1: does the kernel run a module's constructors?
 *
 * GCC places a pointer to every function marked "constructor" in the
 * object's .init_array section.  With CONFIG_CONSTRUCTORS the module
 * loader calls them before the module's init function; without it the
 * section is ignored.  The init function reports which happened.
 */

#define pr_fmt(fmt)	KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

static int ctor_calls;

static void __attribute__((constructor)) ctor_mod_constructor(void)
{
	ctor_calls++;
}

static int __init ctor_mod_init(void)
{
	if (ctor_calls)
		pr_info("module constructor ran (%d call)\n", ctor_calls);
	else
		pr_info("module constructor did not run\n");
	return 0;
}
module_init(ctor_mod_init);

static void __exit ctor_mod_exit(void)
{
}
module_exit(ctor_mod_exit);

MODULE_DESCRIPTION("gcov-kernel-labs Lab 1: a constructor in a module");
MODULE_LICENSE("GPL");
