/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in kernel for the host checks of Labs 5 and 7: just enough of
 * <linux/...> for the series' kernel/gcov/base.c (Lab 5) and
 * kernel/gcov/fs.c (Lab 7) to compile and run as a host program, with
 * every lock and allocation counted so that a harness can see a missing
 * unlock or kfree. Each <linux/NAME.h> of this directory includes this
 * file only. The debugfs calls are declared here and made by Lab 7's
 * harness, which keeps the tree of files. Written for gcov-kernel-labs;
 * not the kernel's code.
 */
#ifndef HARNESS_KERNEL_H
#define HARNESS_KERNEL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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
extern int (*harness_fs_initcall)(void);
extern int (*harness_late_initcall)(void);
#define core_initcall(fn) int (*harness_core_initcall)(void) = fn
#define fs_initcall(fn) int (*harness_fs_initcall)(void) = fn
#define late_initcall(fn) int (*harness_late_initcall)(void) = fn

/* One kernel parameter per program: the harness passes its value. */
extern const char *harness_setup_name;
extern int (*harness_setup)(char *value);
#define __setup(str, fn)						\
	const char *harness_setup_name = str;				\
	int (*harness_setup)(char *value) = fn

static inline int kstrtobool(const char *s, bool *res)
{
	if (!strcmp(s, "1") || !strcmp(s, "y") || !strcmp(s, "Y") ||
	    !strcmp(s, "on")) {
		*res = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcmp(s, "n") || !strcmp(s, "N") ||
	    !strcmp(s, "off")) {
		*res = false;
		return 0;
	}
	return -EINVAL;
}

/* Error pointers, as the kernel encodes them. */
#define MAX_ERRNO 4095
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}
static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}
static inline bool IS_ERR(const void *ptr)
{
	return (unsigned long)ptr >= (unsigned long)-MAX_ERRNO;
}
static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}
#define ERR_CAST(ptr) ((void *)(ptr))

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
/* Allocations to let through before the failing ones start. */
extern int harness_allocs_before_failing;
static inline bool harness_alloc_fails(void)
{
	if (harness_failing_allocs <= 0)
		return false;
	if (harness_allocs_before_failing > 0) {
		harness_allocs_before_failing--;
		return false;
	}
	harness_failing_allocs--;
	return true;
}
/*
 * kmalloc() does not clear what it returns: here it is filled with 0x5a,
 * the byte slub_debug's poisoning uses for an object in use (POISON_INUSE,
 * include/linux/poison.h), so that code that reads memory it never wrote
 * sees garbage as it would in the kernel, not the zeros of a fresh heap.
 */
static inline void *kmalloc(size_t size, int gfp)
{
	void *p;

	(void)gfp;
	if (harness_alloc_fails())
		return NULL;
	p = malloc(size ? size : 1);
	if (p) {
		harness_allocated++;
		memset(p, 0x5a, size);
	}
	return p;
}
static inline void *kzalloc(size_t size, int gfp)
{
	void *p = kmalloc(size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}
#define kcalloc(n, size, gfp) kzalloc((n) * (size), gfp)
#define kvmalloc(size, gfp) kmalloc(size, gfp)
#define kvzalloc(size, gfp) kzalloc(size, gfp)
static inline void kfree(const void *p)
{
	if (p)
		harness_allocated--;
	free((void *)p);
}
#define kvfree(p) kfree(p)
/* On failure the old block stays as it was, as the kernel's does. */
static inline void *krealloc_array(void *p, size_t n, size_t size, int gfp)
{
	void *q;

	(void)gfp;
	if (harness_alloc_fails())
		return NULL;
	q = realloc(p, n * size);
	if (q && !p)
		harness_allocated++;
	return q;
}
#define struct_size(p, member, count)					\
	(sizeof(*(p)) + (count) * sizeof((p)->member[0]))

/* Reference counts (single-threaded here). */
struct kref {
	int refcount;
};
static inline void kref_init(struct kref *kref)
{
	kref->refcount = 1;
}
static inline void kref_get(struct kref *kref)
{
	if (kref->refcount <= 0)
		harness_fail("kref_get() of an object already released");
	kref->refcount++;
}
static inline int kref_put(struct kref *kref, void (*release)(struct kref *kref))
{
	if (kref->refcount <= 0)
		harness_fail("kref_put() of an object already released");
	if (--kref->refcount)
		return 0;
	release(kref);
	return 1;
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
static inline void list_move_tail(struct list_head *item, struct list_head *head)
{
	list_del(item);
	list_add_tail(item, head);
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

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(type, a, b) min((type)(a), (type)(b))
#define max_t(type, a, b) max((type)(a), (type)(b))

/* Files: what a file_operations handler is given. */
#define __user
#define THIS_MODULE NULL
#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define MAX_LFS_FILESIZE ((loff_t)0x7fffffffffffffffLL)
struct inode {
	void *i_private;
};
struct file {
	unsigned int f_mode;
	loff_t f_pos;
	void *private_data;
};
struct file_operations {
	void *owner;
	int (*open)(struct inode *inode, struct file *file);
	ssize_t (*read)(struct file *file, char __user *buf, size_t len,
			loff_t *pos);
	ssize_t (*write)(struct file *file, const char __user *buf, size_t len,
			 loff_t *pos);
	loff_t (*llseek)(struct file *file, loff_t offset, int whence);
	int (*release)(struct inode *inode, struct file *file);
};
/*
 * A user buffer is not kernel memory: the kernel may touch it only through
 * copy_to_user() and its kin (SMAP makes a direct access fault on x86).
 * The harness hands the handlers a user address with HARNESS_USER_TAG set
 * in bits no x86-64 address has (harness_user()), so that a memcpy() to
 * it crashes where it happens; the functions below take the tag off.
 */
#define HARNESS_USER_TAG ((uintptr_t)0x5a00000000000000ULL)
static inline char __user *harness_user(const char *p)
{
	return (char __user *)((uintptr_t)p ^ HARNESS_USER_TAG);
}
static inline void *harness_user_untag(const void __user *p)
{
	if (((uintptr_t)p & HARNESS_USER_TAG) != HARNESS_USER_TAG)
		harness_fail("copy_to_user() or simple_read_from_buffer() given a kernel buffer where the user's belongs");
	return (void *)((uintptr_t)p ^ HARNESS_USER_TAG);
}
static inline unsigned long copy_to_user(void __user *to, const void *from,
					 unsigned long n)
{
	memcpy(harness_user_untag(to), from, n);
	return 0;
}
static inline ssize_t simple_read_from_buffer(void __user *to, size_t count,
					      loff_t *ppos, const void *from,
					      size_t available)
{
	loff_t pos = *ppos;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available || !count)
		return 0;
	if (count > available - pos)
		count = available - pos;
	memcpy(harness_user_untag(to), (const char *)from + pos, count);
	*ppos = pos + count;
	return count;
}
static inline loff_t generic_file_llseek_size(struct file *file, loff_t offset,
					      int whence, loff_t maxsize,
					      loff_t eof)
{
	loff_t pos = whence == 0 ? offset : whence == 1 ? file->f_pos + offset :
		     whence == 2 ? eof + offset : -1;

	if (pos < 0 || pos > maxsize)
		return -EINVAL;
	file->f_pos = pos;
	return pos;
}
static inline loff_t noop_llseek(struct file *file, loff_t offset, int whence)
{
	return file->f_pos;
}

/* debugfs: made by the harness that needs it (Lab 7's keeps a tree). */
struct dentry;
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, unsigned short mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops);
struct dentry *debugfs_create_file_unsafe(const char *name, unsigned short mode,
					  struct dentry *parent, void *data,
					  const struct file_operations *fops);
void debugfs_remove(struct dentry *dentry);

#endif /* HARNESS_KERNEL_H */
