// SPDX-License-Identifier: GPL-2.0
/* A second, unrelated module for the tests: counts to a module parameter. */
#include <linux/module.h>

static int rounds = 3;
module_param(rounds, int, 0444);

static int __init hello_init(void)
{
	int i, even = 0;

	for (i = 0; i < rounds; i++)
		if (i % 2 == 0)
			even++;
	pr_info("hello: %d rounds, %d even\n", rounds, even);
	return 0;
}

static void __exit hello_exit(void)
{
	pr_info("hello: bye\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
