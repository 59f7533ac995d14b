/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/mutex.h>: a mutex knows whether it is held, and
 * the harness counts the locks held, so that a lock taken twice (the
 * kernel would deadlock), released when free, or still held when a
 * handler returns ends the program with the reason. One thread only.
 * Written for gcov-kernel-labs.
 */
#ifndef __LINUX_MUTEX_H
#define __LINUX_MUTEX_H

#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/types.h>
#include "../../standin.h"

#define __MUTEX_INITIALIZER(name) { 0, 0 }
#define DEFINE_MUTEX(name) struct mutex name = __MUTEX_INITIALIZER(name)
#define mutex_init(m) do { (m)->held = 0; (m)->takes = 0; } while (0)

static inline void mutex_destroy(struct mutex *m)
{
	if (m->held)
		harness_fail("mutex_destroy() of a mutex that is held");
}

static inline void mutex_lock(struct mutex *m)
{
	if (m->held)
		harness_fail("mutex_lock() of a mutex this thread holds: deadlock");
	m->held = 1;
	m->takes++;
	harness_mutex_takes++;
	harness_mutexes_held++;
}

static inline void mutex_unlock(struct mutex *m)
{
	if (!m->held)
		harness_fail("mutex_unlock() of a mutex that is not held");
	m->held = 0;
	harness_mutexes_held--;
}

static inline int mutex_trylock(struct mutex *m)
{
	if (m->held)
		return 0;
	mutex_lock(m);
	return 1;
}

static inline bool mutex_is_locked(struct mutex *m)
{
	return m->held;
}

/* No signal ever comes: these always get the lock. */
static inline int __must_check mutex_lock_interruptible(struct mutex *m)
{
	mutex_lock(m);
	return 0;
}

static inline int __must_check mutex_lock_killable(struct mutex *m)
{
	mutex_lock(m);
	return 0;
}

#define mutex_lock_nested(m, subclass) mutex_lock(m)
#define mutex_lock_interruptible_nested(m, subclass) mutex_lock_interruptible(m)
#define mutex_lock_io(m) mutex_lock(m)

#endif /* __LINUX_MUTEX_H */
