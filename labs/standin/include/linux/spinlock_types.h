/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/spinlock_types.h>: spinlock_t is standin.h's. */
#ifndef __LINUX_SPINLOCK_TYPES_H
#define __LINUX_SPINLOCK_TYPES_H

#include <linux/spinlock_types_raw.h>
#include "../../standin.h"

#define __SPIN_LOCK_UNLOCKED(name) { 0 }
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED(name)

#endif /* __LINUX_SPINLOCK_TYPES_H */
