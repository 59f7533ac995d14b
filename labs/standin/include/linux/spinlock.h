/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/spinlock.h>: a spinlock knows whether it is held,
 * as the stand-in's mutex does (mutex.h), and counts among the locks
 * held. The interrupt flags are a number the caller keeps. Written for
 * gcov-kernel-labs.
 */
#ifndef __LINUX_SPINLOCK_H
#define __LINUX_SPINLOCK_H

#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

#define spin_lock_init(l) do { (l)->held = 0; } while (0)

static inline void spin_lock(spinlock_t *l)
{
	if (l->held)
		harness_fail("spin_lock() of a spinlock this CPU holds: deadlock");
	l->held = 1;
	harness_mutexes_held++;
}

static inline void spin_unlock(spinlock_t *l)
{
	if (!l->held)
		harness_fail("spin_unlock() of a spinlock that is not held");
	l->held = 0;
	harness_mutexes_held--;
}

static inline int spin_trylock(spinlock_t *l)
{
	if (l->held)
		return 0;
	spin_lock(l);
	return 1;
}

static inline int spin_is_locked(spinlock_t *l)
{
	return l->held;
}

#define spin_lock_bh(l) spin_lock(l)
#define spin_unlock_bh(l) spin_unlock(l)
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)
#define spin_lock_irqsave(l, flags) do { (flags) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) do { (void)(flags); spin_unlock(l); } while (0)
#define spin_lock_nested(l, subclass) spin_lock(l)
#define assert_spin_locked(l) lockdep_assert_held(l)

#endif /* __LINUX_SPINLOCK_H */
