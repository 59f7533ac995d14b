/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GCOVLAB_SHIM_SLAB_H
#define GCOVLAB_SHIM_SLAB_H
#include <stdlib.h>
#include <string.h>
#define GFP_KERNEL 0
static inline void *kmemdup(const void *p, size_t n, int gfp)
{
	void *q = malloc(n ? n : 1);

	(void)gfp;
	if (q)
		memcpy(q, p, n);
	return q;
}
#define kcalloc(n, size, gfp) calloc((n) ? (n) : 1, (size))
#define kfree(p) free((void *)(p))
#define kstrdup(s, gfp) strdup(s)
#endif
