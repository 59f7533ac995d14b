/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/lockdep.h>: the assertions a caller makes about
 * the locks it holds, checked on the stand-in's locks (standin.h), which
 * know whether they are held. Written for gcov-kernel-labs.
 */
#ifndef _LINUX_LOCKDEP_H
#define _LINUX_LOCKDEP_H

#include <linux/compiler.h>
#include <linux/lockdep_types.h>
#include "../../standin.h"

#define lockdep_assert_held(l) do {					\
	if (!(l)->held)							\
		harness_fail("lockdep_assert_held(" #l "): the lock is not held"); \
} while (0)
#define lockdep_assert_not_held(l) do {					\
	if ((l)->held)							\
		harness_fail("lockdep_assert_not_held(" #l "): the lock is held"); \
} while (0)
#define lockdep_assert_held_once(l) lockdep_assert_held(l)
#define lockdep_assert_held_write(l) lockdep_assert_held(l)
#define lockdep_assert_held_read(l) lockdep_assert_held(l)
#define lockdep_assert_none_held_once() do { } while (0)
#define lockdep_set_class(lock, key) do { (void)(key); } while (0)
#define might_lock(l) do { (void)(l); } while (0)

#endif /* _LINUX_LOCKDEP_H */
