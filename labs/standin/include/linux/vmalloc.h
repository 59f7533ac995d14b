/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/vmalloc.h>: vmalloc() on the stand-in's allocator. */
#ifndef _LINUX_VMALLOC_H
#define _LINUX_VMALLOC_H

#include <linux/slab.h>

#define vmalloc(size) kvmalloc(size, GFP_KERNEL)
#define vzalloc(size) kvzalloc(size, GFP_KERNEL)
#define vmalloc_array(n, size) kvmalloc_array(n, size, GFP_KERNEL)
#define vcalloc(n, size) kvcalloc(n, size, GFP_KERNEL)
#define __vmalloc(size, flags) kvmalloc(size, flags)
#define vfree(p) standin_free(p, STANDIN_VMALLOC, "vfree")
#define vfree_atomic(p) vfree(p)

#endif /* _LINUX_VMALLOC_H */
