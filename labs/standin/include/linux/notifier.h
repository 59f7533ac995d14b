/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/notifier.h>: the notifier block (standin.h) and
 * the return values of a notifier call, as the kernel has them. Written
 * for gcov-kernel-labs.
 */
#ifndef _LINUX_NOTIFIER_H
#define _LINUX_NOTIFIER_H

#include <linux/errno.h>
#include <linux/types.h>
#include "../../standin.h"

typedef int (*notifier_fn_t)(struct notifier_block *nb, unsigned long action,
			     void *data);

#define NOTIFY_DONE		0x0000
#define NOTIFY_OK		0x0001
#define NOTIFY_STOP_MASK	0x8000
#define NOTIFY_BAD		(NOTIFY_STOP_MASK | 0x0002)
#define NOTIFY_STOP		(NOTIFY_OK | NOTIFY_STOP_MASK)

static inline int notifier_from_errno(int err)
{
	return err ? NOTIFY_STOP_MASK | (NOTIFY_OK - err) : NOTIFY_OK;
}

static inline int notifier_to_errno(int ret)
{
	ret &= ~NOTIFY_STOP_MASK;
	return ret > NOTIFY_OK ? NOTIFY_OK - ret : 0;
}

#endif /* _LINUX_NOTIFIER_H */
