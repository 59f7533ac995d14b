// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>

int dotdot_helper(int n);

static int __init dotdot_init(void)
{
	return dotdot_helper(3) == 6 ? 0 : -EINVAL;
}
module_init(dotdot_init);

static void __exit dotdot_exit(void)
{
}
module_exit(dotdot_exit);

MODULE_LICENSE("GPL");
