// SPDX-License-Identifier: GPL-2.0
/* Does not compile on purpose: the tests check that gcovlab shows why. */
#include <linux/module.h>

static int __init broken_init(void)
{
	return undeclared_on_purpose;
}
module_init(broken_init);
MODULE_LICENSE("GPL");
