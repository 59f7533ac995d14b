/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in kernel for Lab 5's check: just enough of <linux/...> for the
 * series' kernel/gcov/base.c to compile and run as a host program, with
 * every lock and allocation counted so that the harness can see a missing
 * unlock or kfree. Each <linux/NAME.h> of this directory includes this
 * file only. Written for gcov-kernel-labs; not the kernel's code.
 */
#ifndef HARNESS_KERNEL_H
#define HARNESS_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int64_t s64;
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;

#define CONFIG_MODULES 1
#define __init
#define EXPORT_SYMBOL(sym)
#define READ_ONCE(x) (x)
#define WRITE_ONCE(x, v) ((x) = (v))
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)

/* Initcalls: the harness calls them itself, in the kernel's order. */
extern int (*harness_core_initcall)(void);
extern int (*harness_late_initcall)(void);
#define core_initcall(fn) int (*harness_core_initcall)(void) = fn
#define late_initcall(fn) int (*harness_late_initcall)(void) = fn

/* printk: one line per message, with its level, on stdout. */
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_info(fmt, ...) printf("info: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) printf("warn: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) printf("err: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) printf("notice: " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...) do { } while (0)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define WARN_ON(cond) ({						\
	int __c = !!(cond);						\
	if (__c)							\
		printf("warn: WARN_ON(%s) at %s:%d\n", #cond, __FILE__, __LINE__); \
	__c;								\
})

/* Mutexes: held ones are counted; misuse ends the program with a reason. */
struct mutex {
	int held;
};
extern int harness_mutexes_held;
void harness_fail(const char *why);
#define DEFINE_MUTEX(name) struct mutex name = { 0 }
static inline void mutex_lock(struct mutex *m)
{
	if (m->held)
		harness_fail("mutex_lock() of a mutex this thread holds: deadlock");
	m->held = 1;
	harness_mutexes_held++;
}
static inline void mutex_unlock(struct mutex *m)
{
	if (!m->held)
		harness_fail("mutex_unlock() of a mutex that is not held");
	m->held = 0;
	harness_mutexes_held--;
}
static inline int mutex_is_locked(struct mutex *m)
{
	return m->held;
}
#define lockdep_assert_held(m) do {					\
	if (!(m)->held)							\
		harness_fail("lockdep_assert_held(): the mutex is not held"); \
} while (0)

/*
 * Allocations: counted, so that a leak or a double free shows; the harness
 * can make the next ones fail, as the kernel's can.
 */
#define GFP_KERNEL 0
extern long harness_allocated;
extern int harness_failing_allocs;
static inline void *kzalloc(size_t size, int gfp)
{
	void *p;

	(void)gfp;
	if (harness_failing_allocs > 0) {
		harness_failing_allocs--;
		return NULL;
	}
	p = calloc(1, size);
	if (p)
		harness_allocated++;
	return p;
}
#define kmalloc(size, gfp) kzalloc(size, gfp)
#define kcalloc(n, size, gfp) kzalloc((n) * (size), gfp)
static inline void kfree(const void *p)
{
	if (p)
		harness_allocated--;
	free((void *)p);
}

/* Doubly linked lists with a head, the kernel's interface. */
struct list_head {
	struct list_head *next, *prev;
};
#define LIST_HEAD(name) struct list_head name = { &(name), &(name) }
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
static inline void list_add_tail(struct list_head *item, struct list_head *head)
{
	item->prev = head->prev;
	item->next = head;
	head->prev->next = item;
	head->prev = item;
}
static inline void list_add(struct list_head *item, struct list_head *head)
{
	list_add_tail(item, head->next);
}
static inline void list_del(struct list_head *item)
{
	item->prev->next = item->next;
	item->next->prev = item->prev;
	item->next = item->prev = NULL;	/* a later use crashes here */
}
static inline void list_del_init(struct list_head *item)
{
	item->prev->next = item->next;
	item->next->prev = item->prev;
	item->next = item->prev = item;
}
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_for_each_safe(pos, n, head) \
	for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)
static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

/* Modules: a name and the memory that holds their data. */
enum module_state {
	MODULE_STATE_LIVE,
	MODULE_STATE_COMING,
	MODULE_STATE_GOING,
	MODULE_STATE_UNFORMED,
};
struct module {
	char name[56];
	unsigned long base, size;
};
static inline bool within_module(unsigned long addr, const struct module *mod)
{
	return addr >= mod->base && addr < mod->base + mod->size;
}
/* The harness's modules keep their data in one piece of memory. */
#define within_module_core(addr, mod) within_module(addr, mod)
#define within_module_init(addr, mod) false
#define NOTIFY_DONE 0
#define NOTIFY_OK 1
struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long event,
			     void *data);
};
extern struct notifier_block *harness_module_notifier;
static inline int register_module_notifier(struct notifier_block *nb)
{
	harness_module_notifier = nb;
	return 0;
}

#endif /* HARNESS_KERNEL_H */
