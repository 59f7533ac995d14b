// SPDX-License-Identifier: GPL-2.0
/* Calls into networking, which the tiny lab kernels leave out. */
#include <linux/module.h>
#include <linux/netdevice.h>

static int __init needsnet_init(void)
{
	return dev_get_by_name(&init_net, "lo") ? 0 : -ENODEV;
}
module_init(needsnet_init);
MODULE_LICENSE("GPL");
