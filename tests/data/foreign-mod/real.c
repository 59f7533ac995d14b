// SPDX-License-Identifier: GPL-2.0
/* real - an ordinary profiled module, loaded after foreign.ko */
#include <linux/module.h>

static int __init real_init(void)
{
	return 0;
}
module_init(real_init);

static void __exit real_exit(void)
{
}
module_exit(real_exit);

MODULE_LICENSE("GPL");
