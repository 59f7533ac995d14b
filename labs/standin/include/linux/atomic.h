/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/atomic.h>: the kernel's atomic_t API on the host
 * compiler's atomic builtins. The tree's x86 atomics are inline assembly,
 * which AddressSanitizer cannot see into: a kref_put() on freed memory
 * must be caught where it happens. Everything is sequentially consistent
 * (stronger than each _relaxed, _acquire or _release asks for). Written
 * for gcov-kernel-labs.
 */
#ifndef _LINUX_ATOMIC_H
#define _LINUX_ATOMIC_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/atomic.h>
#include <asm/barrier.h>

typedef atomic64_t atomic_long_t;
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC64_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) ATOMIC64_INIT(i)

#define __STANDIN_SC __ATOMIC_SEQ_CST
#define __STANDIN_ATOMIC_OPS(pfx, atype, ctype)				\
static inline ctype pfx##_read(const atype *v)				\
{ return __atomic_load_n(&v->counter, __STANDIN_SC); }			\
static inline void pfx##_set(atype *v, ctype i)				\
{ __atomic_store_n(&v->counter, i, __STANDIN_SC); }			\
static inline ctype pfx##_fetch_add(ctype i, atype *v)			\
{ return __atomic_fetch_add(&v->counter, i, __STANDIN_SC); }		\
static inline ctype pfx##_fetch_sub(ctype i, atype *v)			\
{ return __atomic_fetch_sub(&v->counter, i, __STANDIN_SC); }		\
static inline ctype pfx##_fetch_and(ctype i, atype *v)			\
{ return __atomic_fetch_and(&v->counter, i, __STANDIN_SC); }		\
static inline ctype pfx##_fetch_or(ctype i, atype *v)			\
{ return __atomic_fetch_or(&v->counter, i, __STANDIN_SC); }		\
static inline ctype pfx##_fetch_xor(ctype i, atype *v)			\
{ return __atomic_fetch_xor(&v->counter, i, __STANDIN_SC); }		\
static inline ctype pfx##_xchg(atype *v, ctype i)			\
{ return __atomic_exchange_n(&v->counter, i, __STANDIN_SC); }		\
static inline bool pfx##_try_cmpxchg(atype *v, ctype *old, ctype new)	\
{ return __atomic_compare_exchange_n(&v->counter, old, new, false,	\
				     __STANDIN_SC, __STANDIN_SC); }	\
static inline ctype pfx##_cmpxchg(atype *v, ctype old, ctype new)	\
{ pfx##_try_cmpxchg(v, &old, new); return old; }			\
static inline void pfx##_add(ctype i, atype *v) { pfx##_fetch_add(i, v); } \
static inline void pfx##_sub(ctype i, atype *v) { pfx##_fetch_sub(i, v); } \
static inline void pfx##_inc(atype *v) { pfx##_fetch_add(1, v); }	\
static inline void pfx##_dec(atype *v) { pfx##_fetch_sub(1, v); }	\
static inline void pfx##_and(ctype i, atype *v) { pfx##_fetch_and(i, v); } \
static inline void pfx##_or(ctype i, atype *v) { pfx##_fetch_or(i, v); } \
static inline void pfx##_xor(ctype i, atype *v) { pfx##_fetch_xor(i, v); } \
static inline void pfx##_andnot(ctype i, atype *v) { pfx##_fetch_and(~i, v); } \
static inline ctype pfx##_fetch_inc(atype *v) { return pfx##_fetch_add(1, v); } \
static inline ctype pfx##_fetch_dec(atype *v) { return pfx##_fetch_sub(1, v); } \
static inline ctype pfx##_add_return(ctype i, atype *v)			\
{ return pfx##_fetch_add(i, v) + i; }					\
static inline ctype pfx##_sub_return(ctype i, atype *v)			\
{ return pfx##_fetch_sub(i, v) - i; }					\
static inline ctype pfx##_inc_return(atype *v) { return pfx##_add_return(1, v); } \
static inline ctype pfx##_dec_return(atype *v) { return pfx##_sub_return(1, v); } \
static inline bool pfx##_sub_and_test(ctype i, atype *v)		\
{ return pfx##_sub_return(i, v) == 0; }					\
static inline bool pfx##_dec_and_test(atype *v) { return pfx##_dec_return(v) == 0; } \
static inline bool pfx##_inc_and_test(atype *v) { return pfx##_inc_return(v) == 0; } \
static inline bool pfx##_add_negative(ctype i, atype *v)		\
{ return pfx##_add_return(i, v) < 0; }					\
static inline ctype pfx##_fetch_add_unless(atype *v, ctype a, ctype u)	\
{									\
	ctype c = pfx##_read(v);					\
									\
	do {								\
		if (c == u)						\
			break;						\
	} while (!pfx##_try_cmpxchg(v, &c, c + a));			\
	return c;							\
}									\
static inline bool pfx##_add_unless(atype *v, ctype a, ctype u)		\
{ return pfx##_fetch_add_unless(v, a, u) != u; }			\
static inline bool pfx##_inc_not_zero(atype *v) { return pfx##_add_unless(v, 1, 0); } \
static inline ctype pfx##_dec_if_positive(atype *v)			\
{									\
	ctype c = pfx##_read(v);					\
									\
	do {								\
		if (c <= 0)						\
			return c - 1;					\
	} while (!pfx##_try_cmpxchg(v, &c, c - 1));			\
	return c - 1;							\
}

__STANDIN_ATOMIC_OPS(atomic, atomic_t, int)
__STANDIN_ATOMIC_OPS(atomic64, atomic64_t, s64)
__STANDIN_ATOMIC_OPS(atomic_long, atomic_long_t, s64)

/* The ordering variants: each is the sequentially consistent one. */
#define atomic_read_acquire atomic_read
#define atomic_set_release atomic_set
#define atomic_fetch_add_relaxed atomic_fetch_add
#define atomic_fetch_add_acquire atomic_fetch_add
#define atomic_fetch_add_release atomic_fetch_add
#define atomic_fetch_sub_relaxed atomic_fetch_sub
#define atomic_fetch_sub_acquire atomic_fetch_sub
#define atomic_fetch_sub_release atomic_fetch_sub
#define atomic_add_return_relaxed atomic_add_return
#define atomic_add_return_acquire atomic_add_return
#define atomic_add_return_release atomic_add_return
#define atomic_sub_return_relaxed atomic_sub_return
#define atomic_sub_return_acquire atomic_sub_return
#define atomic_sub_return_release atomic_sub_return
#define atomic_inc_return_relaxed atomic_inc_return
#define atomic_dec_return_relaxed atomic_dec_return
#define atomic_xchg_relaxed atomic_xchg
#define atomic_cmpxchg_relaxed atomic_cmpxchg
#define atomic_cmpxchg_acquire atomic_cmpxchg
#define atomic_cmpxchg_release atomic_cmpxchg
#define atomic_try_cmpxchg_relaxed atomic_try_cmpxchg
#define atomic_try_cmpxchg_acquire atomic_try_cmpxchg
#define atomic_try_cmpxchg_release atomic_try_cmpxchg
#define atomic64_read_acquire atomic64_read
#define atomic64_set_release atomic64_set
#define atomic64_fetch_add_relaxed atomic64_fetch_add
#define atomic64_fetch_sub_release atomic64_fetch_sub
#define atomic64_add_return_relaxed atomic64_add_return
#define atomic64_inc_return_relaxed atomic64_inc_return
#define atomic64_try_cmpxchg_relaxed atomic64_try_cmpxchg
#define atomic_long_read_acquire atomic_long_read
#define atomic_long_set_release atomic_long_set
#define atomic_long_fetch_add_relaxed atomic_long_fetch_add
#define atomic_long_add_return_relaxed atomic_long_add_return
#define atomic_long_inc_return_relaxed atomic_long_inc_return
#define atomic_long_try_cmpxchg_relaxed atomic_long_try_cmpxchg

#endif /* _LINUX_ATOMIC_H */
