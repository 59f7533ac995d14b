/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/uaccess.h>: the kernel reaches a user buffer only
 * through these. The harness's user addresses carry a tag (standin.h)
 * that they take off; a kernel address given where a user one belongs
 * ends the program. No fault ever happens: they copy all. Written for
 * gcov-kernel-labs.
 */
#ifndef __LINUX_UACCESS_H
#define __LINUX_UACCESS_H

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include "../../standin.h"

#define access_ok(addr, size) ({ (void)(addr); (void)(size); 1; })

static inline unsigned long __must_check copy_to_user(void __user *to, const void *from,
						      unsigned long n)
{
	memcpy(standin_user_untag((__force const void *)to), from, n);
	return 0;
}

static inline unsigned long __must_check copy_from_user(void *to, const void __user *from,
							unsigned long n)
{
	memcpy(to, standin_user_untag((__force const void *)from), n);
	return 0;
}

#define __copy_to_user(to, from, n) copy_to_user(to, from, n)
#define __copy_from_user(to, from, n) copy_from_user(to, from, n)

#define put_user(x, ptr) ({						\
	__typeof__(*(ptr)) __pu_val = (x);				\
	copy_to_user(ptr, &__pu_val, sizeof(*(ptr))) ? -EFAULT : 0;	\
})
#define get_user(x, ptr) ({						\
	__typeof__(*(ptr)) __gu_val;					\
	int __gu_err = copy_from_user(&__gu_val, ptr, sizeof(*(ptr))) ? -EFAULT : 0; \
	(x) = __gu_val;							\
	__gu_err;							\
})
#define __put_user(x, ptr) put_user(x, ptr)
#define __get_user(x, ptr) get_user(x, ptr)

static inline unsigned long __must_check clear_user(void __user *to, unsigned long n)
{
	memset(standin_user_untag((__force const void *)to), 0, n);
	return 0;
}

static inline long strncpy_from_user(char *dst, const char __user *src, long count)
{
	const char *s = standin_user_untag((__force const void *)src);
	long n = strnlen(s, count);

	memcpy(dst, s, n < count ? n + 1 : n);
	return n;
}

/* memdup_user() and its kin: declared by <linux/string.h>, in ../lib.c. */

#endif /* __LINUX_UACCESS_H */
