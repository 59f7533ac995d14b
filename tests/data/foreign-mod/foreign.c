// SPDX-License-Identifier: GPL-2.0
/*
 * foreign - register profiling data that claims to come from GCC 11.3
 *
 * Stands for an external module built by another compiler. Only the
 * start of GCC 12's struct gcov_info (gcc/libgcov.h) is laid out: the
 * kernel must read no further than the version before refusing it.
 */
#include <linux/module.h>
#include <linux/types.h>

struct foreign_gcov_info {
	u32 version;
	void *next;
	u32 stamp;
	u32 checksum;
	const char *filename;
	void *merge[8];
	u32 n_functions;
	void **functions;
};

void __gcov_init(void *info);

static struct foreign_gcov_info foreign = {
	.version = 0x4231332a,	/* "B13*": GCC 11.3 */
	.filename = "/foreign/made-up.gcda",
};

static int __init foreign_init(void)
{
	__gcov_init(&foreign);
	return 0;
}
module_init(foreign_init);

static void __exit foreign_exit(void)
{
}
module_exit(foreign_exit);

MODULE_LICENSE("GPL");
