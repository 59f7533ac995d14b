/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/mm.h>, which code outside mm/ includes for the
 * allocation API and the page size: both are here, the rest of memory
 * management is not. Written for gcov-kernel-labs.
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/page_types.h>

#endif /* _LINUX_MM_H */
