// SPDX-License-Identifier: GPL-2.0
/* One object of the kbuild precedence test; see ../Kbuild. */
#include <linux/module.h>

static int __init dy_oy_init(void)
{
	return 0;
}
module_init(dy_oy_init);
MODULE_LICENSE("GPL");
