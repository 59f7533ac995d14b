/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/slab.h>: the kernel's allocation API on the
 * stand-in's allocator (standin.c), which counts the blocks, makes
 * allocations fail when the harness asks (as the kernel's can), fills
 * kmalloc()'s memory with a poison byte, gives ZERO_SIZE_PTR for 0
 * bytes, and refuses a kfree() of what it did not give. The GFP flags and
 * the size helpers are the tree's own (gfp_types.h, overflow.h). Written
 * for gcov-kernel-labs.
 */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <linux/gfp.h>
#include <linux/overflow.h>
#include <linux/types.h>
#include "../../standin.h"

#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)
#define KMALLOC_MAX_SIZE (1UL << 22)
#define ARCH_KMALLOC_MINALIGN 8
#define SLAB_HWCACHE_ALIGN 0x00002000U
#define SLAB_PANIC 0x00040000U
#define SLAB_ACCOUNT 0x04000000U
#define SLAB_RECLAIM_ACCOUNT 0x00020000U

/*
 * The four calls of each allocator family, made by one macro: kmalloc()
 * and the others starting with "k" give STANDIN_KMALLOC memory; kvmalloc()
 * and the others starting with "kv" give STANDIN_VMALLOC memory (here
 * kvmalloc() always gives what vmalloc() would, so a kfree() of it is
 * caught).  An n * size that overflows gives NULL, as in the kernel.
 */
#define STANDIN_ALLOC_FAMILY(p, kind)					\
static inline void *p##malloc(size_t size, gfp_t flags)		\
{									\
	return standin_alloc(size, (__force unsigned int)flags,		\
			     !!(flags & __GFP_ZERO), kind);		\
}									\
static inline void *p##zalloc(size_t size, gfp_t flags)		\
{									\
	return p##malloc(size, flags | __GFP_ZERO);			\
}									\
static inline void *p##malloc_array(size_t n, size_t size, gfp_t flags) \
{									\
	size_t bytes;							\
									\
	if (unlikely(check_mul_overflow(n, size, &bytes)))		\
		return NULL;						\
	return p##malloc(bytes, flags);					\
}									\
static inline void *p##calloc(size_t n, size_t size, gfp_t flags)	\
{									\
	return p##malloc_array(n, size, flags | __GFP_ZERO);		\
}

STANDIN_ALLOC_FAMILY(k, STANDIN_KMALLOC)
STANDIN_ALLOC_FAMILY(kv, STANDIN_VMALLOC)

#define kmalloc_node(size, flags, node) kmalloc(size, flags)
#define kzalloc_node(size, flags, node) kzalloc(size, flags)
#define kmalloc_array_node(n, size, flags, node) kmalloc_array(n, size, flags)
#define kcalloc_node(n, size, flags, node) kcalloc(n, size, flags)

static inline void kfree(const void *p)
{
	standin_free(p, STANDIN_KMALLOC, "kfree");
}

static inline void kfree_sensitive(const void *p)
{
	kfree(p);
}

static inline size_t ksize(const void *p)
{
	return standin_size(p);
}

static inline void * __must_check krealloc(const void *p, size_t size, gfp_t flags)
{
	return standin_realloc(p, size, (__force unsigned int)flags);
}

static inline void * __must_check krealloc_array(void *p, size_t n, size_t size,
						 gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return krealloc(p, bytes, flags);
}

#define kvmalloc_node(size, flags, node) kvmalloc(size, flags)
#define kvzalloc_node(size, flags, node) kvzalloc(size, flags)

static inline void kvfree(const void *p)
{
	standin_free(p, STANDIN_VMALLOC, "kvfree");
}

static inline void kvfree_sensitive(const void *p, size_t len)
{
	kvfree(p);
}

static inline void *kvrealloc(const void *p, size_t oldsize, size_t newsize,
			      gfp_t flags)
{
	void *q;

	if (oldsize >= newsize)
		return (void *)p;
	q = kvmalloc(newsize, flags);
	if (!q)
		return NULL;
	if (p)
		__builtin_memcpy(q, p, oldsize);
	kvfree(p);
	return q;
}

/* A cache of objects of one size: kmalloc() of that size. */
struct kmem_cache {
	unsigned int size;
	const char *name;
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
#define KMEM_CACHE(type, flags)						\
	kmem_cache_create(#type, sizeof(struct type), __alignof__(struct type), \
			  (flags), NULL)

static inline void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags)
{
	return kmalloc(s->size, flags);
}

static inline void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t flags)
{
	return kzalloc(s->size, flags);
}

static inline void kmem_cache_free(struct kmem_cache *s, void *p)
{
	kfree(p);
}

#endif /* _LINUX_SLAB_H */
