/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/bug.h>: BUG() ends the program with where it
 * happened; WARN() and its kin print a warning line and go on, as the
 * kernel does (the tree's x86 versions trap, which a host program cannot
 * take). Written for gcov-kernel-labs.
 */
#ifndef _LINUX_BUG_H
#define _LINUX_BUG_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/printk.h>
#include "../../standin.h"

#define BUG() harness_fail("BUG() at " __FILE__ ":" __stringify(__LINE__))
#define BUG_ON(cond) do { if (unlikely(cond)) BUG(); } while (0)

#define WARN(cond, format...) ({					\
	int __ret_warn = !!(cond);					\
	if (unlikely(__ret_warn)) {					\
		printk(KERN_WARNING "WARNING at %s:%d\n", __FILE__, __LINE__); \
		printk(KERN_WARNING format);				\
	}								\
	unlikely(__ret_warn);						\
})
#define WARN_ON(cond) ({						\
	int __ret_warn = !!(cond);					\
	if (unlikely(__ret_warn))					\
		printk(KERN_WARNING "WARNING: WARN_ON(%s) at %s:%d\n",	\
		       #cond, __FILE__, __LINE__);			\
	unlikely(__ret_warn);						\
})
#define WARN_ONCE(cond, format...) WARN(cond, format)
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#define WARN_TAINT(cond, taint, format...) WARN(cond, format)
#define WARN_TAINT_ONCE(cond, taint, format...) WARN(cond, format)

#endif /* _LINUX_BUG_H */
