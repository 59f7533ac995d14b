/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/gfp.h>: the tree's GFP flags (gfp_types.h) with the
 * few helpers on them; no page allocator. Written for gcov-kernel-labs.
 */
#ifndef __LINUX_GFP_H
#define __LINUX_GFP_H

#include <linux/gfp_types.h>
#include <linux/types.h>

static inline bool gfpflags_allow_blocking(const gfp_t gfp_flags)
{
	return !!(gfp_flags & __GFP_DIRECT_RECLAIM);
}

#endif /* __LINUX_GFP_H */
