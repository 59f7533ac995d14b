// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in kernel's simulated parts, host side (standin.h declares
 * them): the counted allocator that can be made to fail, printk's output,
 * the tables of initcalls and __setup() handlers, the module notifier.
 * Linked into every host check. Written for gcov-kernel-labs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "standin.h"

int harness_mutexes_held;
unsigned long harness_mutex_takes;
long harness_allocated;
int harness_failing_allocs;
int harness_allocs_before_failing;
unsigned long harness_alloc_seq;
struct notifier_block *harness_module_notifier;

/* A harness that does not say otherwise fails this way. */
__attribute__((weak, noreturn)) void harness_fail(const char *why)
{
	printf("H: FAIL %s\n", why);
	exit(3);
}

/* __GFP_NOFAIL of include/linux/gfp_types.h: such an allocation never fails. */
#define STANDIN_GFP_NOFAIL 0x8000u

static bool alloc_fails(unsigned int gfp)
{
	if (harness_failing_allocs <= 0 || (gfp & STANDIN_GFP_NOFAIL))
		return false;
	if (harness_allocs_before_failing > 0) {
		harness_allocs_before_failing--;
		return false;
	}
	harness_failing_allocs--;
	return true;
}

/*
 * Each block starts with a header that says how big it is and which
 * allocator made it; the code gets the memory after it. The kernel's
 * kmalloc(0) gives ZERO_SIZE_PTR (16), which faults when used.
 */
struct block {
	unsigned long size;
	unsigned long kind;
	unsigned long magic;
	unsigned long seq;	/* the how-manieth allocation it was */
};
#define MAGIC 0x57a9d1e5c0de0001UL
#define ZERO_SIZE_PTR ((void *)16)

/* The blocks in use, so that a harness can look at what the code keeps. */
static struct block **live;
static size_t n_live, room_live;

static void live_add(struct block *b)
{
	if (n_live == room_live) {
		room_live = room_live ? 2 * room_live : 64;
		live = realloc(live, room_live * sizeof(*live));
		if (!live)
			harness_fail("the stand-in kernel ran out of host memory");
	}
	live[n_live++] = b;
}

static void live_del(struct block *b)
{
	size_t i;

	for (i = 0; i < n_live; i++)
		if (live[i] == b) {
			live[i] = live[--n_live];
			return;
		}
}

int standin_holds_pointer(unsigned long since, const void *ptr)
{
	size_t i, k;

	for (i = 0; i < n_live; i++) {
		const unsigned char *data = (const unsigned char *)(live[i] + 1);

		if (live[i]->seq < since)
			continue;
		for (k = 0; k + sizeof(ptr) <= live[i]->size; k += sizeof(void *)) {
			const void *word;

			memcpy(&word, data + k, sizeof(word));
			if (word == ptr)
				return 1;
		}
	}
	return 0;
}

static struct block *block_of(const void *p, const char *caller)
{
	struct block *b = (struct block *)p - 1;
	char why[200];

	if (b->magic != MAGIC) {
		snprintf(why, sizeof(why), "%s() of %p, which no kmalloc(), kvmalloc() or vmalloc() gave (or freed already)",
			 caller, p);
		harness_fail(why);
	}
	return b;
}

/*
 * kmalloc() does not clear what it returns: here it is filled with 0x5a,
 * the byte slub_debug's poisoning uses for an object in use (POISON_INUSE,
 * include/linux/poison.h), so that code that reads memory it never wrote
 * sees garbage as it would in the kernel, not the zeros of a fresh heap.
 */
void *standin_alloc(unsigned long size, unsigned int gfp, int zero,
		    enum standin_kind kind)
{
	struct block *b;

	if (alloc_fails(gfp))
		return NULL;
	if (!size)
		return ZERO_SIZE_PTR;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->size = size;
	b->kind = kind;
	b->magic = MAGIC;
	b->seq = harness_alloc_seq++;
	live_add(b);
	harness_allocated++;
	memset(b + 1, zero ? 0 : 0x5a, size);
	return b + 1;
}

unsigned long standin_size(const void *p)
{
	return p && p != ZERO_SIZE_PTR ? block_of(p, "ksize")->size : 0;
}

void standin_free(const void *p, enum standin_kind kind, const char *caller)
{
	struct block *b;
	char why[200];

	if (!p || p == ZERO_SIZE_PTR)
		return;
	b = block_of(p, caller);
	if (kind == STANDIN_KMALLOC && b->kind != STANDIN_KMALLOC) {
		snprintf(why, sizeof(why), "%s() of memory that kvmalloc() or vmalloc() gave: free it with kvfree() or vfree()",
			 caller);
		harness_fail(why);
	}
	b->magic = 0;
	live_del(b);
	harness_allocated--;
	free(b);
}

/* On failure the old block stays as it was, as the kernel's does. */
void *standin_realloc(const void *p, unsigned long size, unsigned int gfp)
{
	unsigned long old = standin_size(p);
	void *q;

	if (!size) {
		standin_free(p, STANDIN_KMALLOC, "krealloc");
		return ZERO_SIZE_PTR;
	}
	q = standin_alloc(size, gfp, 0, STANDIN_KMALLOC);
	if (!q)
		return NULL;
	if (p && p != ZERO_SIZE_PTR)
		memcpy(q, p, old < size ? old : size);
	standin_free(p, STANDIN_KMALLOC, "krealloc");
	return q;
}

/* printk: "<level>: <text>" per line; KERN_<LEVEL> is "\001" and a digit. */
int standin_vprintk(const char *fmt, va_list ap)
{
	static const char *const names[] = { "emerg", "alert", "crit", "err", "warn",
					     "notice", "info", "debug" };
	const char *level = "warn";	/* the default message log level */

	if (fmt[0] == '\001' && fmt[1] >= '0' && fmt[1] <= '7') {
		level = names[fmt[1] - '0'];
		fmt += 2;
	} else if (fmt[0] == '\001' && fmt[1] == 'c') {
		level = NULL;		/* KERN_CONT: the line goes on */
		fmt += 2;
	}
	if (level)
		printf("%s: ", level);
	return vprintf(fmt, ap);
}

void *standin_user_untag(const void *p)
{
	if (((uintptr_t)p & STANDIN_USER_TAG) != STANDIN_USER_TAG)
		harness_fail("copy_to_user(), copy_from_user() or simple_read_from_buffer() given a kernel buffer where the user's belongs");
	return (void *)((uintptr_t)p ^ STANDIN_USER_TAG);
}

#define MAX_CALLS 32

static struct {
	int level;
	int (*fn)(void);
	const char *name;
} initcalls[MAX_CALLS];
static int n_initcalls;

static struct {
	const char *str;
	int (*fn)(char *value);
} setups[MAX_CALLS];
static int n_setups;

void standin_add_initcall(int level, int (*fn)(void), const char *name)
{
	if (n_initcalls == MAX_CALLS)
		harness_fail("more initcalls than the stand-in kernel keeps");
	initcalls[n_initcalls].level = level;
	initcalls[n_initcalls].fn = fn;
	initcalls[n_initcalls++].name = name;
}

void standin_add_setup(const char *str, int (*fn)(char *value))
{
	if (n_setups == MAX_CALLS)
		harness_fail("more __setup() handlers than the stand-in kernel keeps");
	setups[n_setups].str = str;
	setups[n_setups++].fn = fn;
}

int standin_run_initcalls(int level)
{
	int i, err, first = 0;

	for (i = 0; i < n_initcalls; i++) {
		if (initcalls[i].level != level)
			continue;
		err = initcalls[i].fn();
		if (err) {
			printf("warn: initcall %s returned %d\n", initcalls[i].name, err);
			if (!first)
				first = err;
		}
	}
	return first;
}

int standin_kernel_param(const char *param)
{
	static char value[256];
	int i;

	for (i = 0; i < n_setups; i++) {
		size_t len = strlen(setups[i].str);

		if (!strncmp(param, setups[i].str, len)) {
			snprintf(value, sizeof(value), "%s", param + len);
			return setups[i].fn(value);
		}
	}
	return 0;
}
