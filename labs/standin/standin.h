/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stand-in kernel's simulated parts, as both sides see them.
 *
 * The host checks of Labs 5, 6 and 7 compile the student's kernel code
 * against the tree's own headers (list.h, err.h, kref.h, string.h, ...:
 * see vm/gcovlablib/standin.py) and against include/ of this directory
 * for what a host program must simulate: the allocator (counted, made to
 * fail), locks (who holds them), printk's output, initcalls and kernel
 * parameters, the module loader, the VFS and debugfs. That code is the
 * "kernel side" (__KERNEL__, no C library). The harnesses and standin.c
 * are ordinary host programs (the C library, no kernel header). This
 * header is the one both include: only plain C types in its structures,
 * so that both sides agree on their layout. Written for gcov-kernel-labs;
 * not the kernel's code.
 */
#ifndef STANDIN_H
#define STANDIN_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
typedef int64_t s64;
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
struct list_head {
	struct list_head *next, *prev;
};
#endif

/* Ends the program with "H: FAIL <why>": defined by each harness. */
void harness_fail(const char *why) __attribute__((noreturn));

/* Locks (mutexes and spinlocks) held now, by the one thread there is. */
extern int harness_mutexes_held;
/* How many times any mutex was taken, since the program started. */
extern unsigned long harness_mutex_takes;
/* Blocks the code has allocated and not freed. */
extern long harness_allocated;
/* How many allocations to fail, after letting this many through. */
extern int harness_failing_allocs;
extern int harness_allocs_before_failing;
/* How many blocks were allocated so far (the next one's number). */
extern unsigned long harness_alloc_seq;
/* Whether a block in use, allocated as number SINCE or later, holds the
 * pointer PTR (at a pointer's alignment): where the code keeps it. */
int standin_holds_pointer(unsigned long since, const void *ptr);

/* A mutex or spinlock: whether it is held; a mutex, how many times it
 * was taken in all (a harness tells one hold from two by it). */
struct mutex {
	int held;
	unsigned int takes;
};
typedef struct spinlock {
	int held;
} spinlock_t;

/*
 * The allocator: every block is counted; KIND tells kmalloc'd memory
 * from vmalloc'd (kvmalloc gives either), so that kfree() of vmalloc'd
 * memory is caught as the kernel would oops on it.
 */
enum standin_kind { STANDIN_KMALLOC, STANDIN_VMALLOC };
void *standin_alloc(unsigned long size, unsigned int gfp, int zero, enum standin_kind kind);
void *standin_realloc(const void *p, unsigned long size, unsigned int gfp);
void standin_free(const void *p, enum standin_kind kind, const char *caller);
unsigned long standin_size(const void *p);
/* printk's output: one line per message, "<level>: <text>" on stdout. */
int standin_vprintk(const char *fmt, __builtin_va_list ap);

/* Initcalls and __setup(): kept in tables, run by the harness. */
enum standin_initcall_level {
	STANDIN_EARLY, STANDIN_PURE, STANDIN_CORE, STANDIN_POSTCORE, STANDIN_ARCH,
	STANDIN_SUBSYS, STANDIN_FS, STANDIN_DEVICE, STANDIN_LATE, STANDIN_LEVELS
};
void standin_add_initcall(int level, int (*fn)(void), const char *name);
void standin_add_setup(const char *str, int (*fn)(char *value));
/* Runs the initcalls of LEVEL in the order they were added; 0 or the first error. */
int standin_run_initcalls(int level);
/* Hands "name=value" to the __setup() handler of "name=", as the kernel's
 * command line does: 1 if one took it. */
int standin_kernel_param(const char *param);

/* Modules: their name and the memory that holds them, as in Linux 6.1. */
enum module_state {
	MODULE_STATE_LIVE,
	MODULE_STATE_COMING,
	MODULE_STATE_GOING,
	MODULE_STATE_UNFORMED,
};
#define MODULE_NAME_LEN (64 - sizeof(unsigned long))
struct module_layout {
	void *base;
	unsigned int size;
	unsigned int text_size;
	unsigned int ro_size;
	unsigned int ro_after_init_size;
};
struct module {
	enum module_state state;
	struct list_head list;
	char name[MODULE_NAME_LEN];
	struct module_layout core_layout;
	struct module_layout init_layout;
};
struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long action,
			     void *data);
	struct notifier_block *next;
	int priority;
};
/* The module notifier registered, or NULL: the harness calls it. */
extern struct notifier_block *harness_module_notifier;

/* Files: what a file_operations handler is given. */
struct kiocb;
struct iov_iter;
struct poll_table_struct;
struct vm_area_struct;
struct dentry;
struct inode {
	unsigned short i_mode;
	long long i_size;
	void *i_private;
};
struct file {
	struct inode *f_inode;
	unsigned int f_mode;
	unsigned int f_flags;
	long long f_pos;
	void *private_data;
};
struct file_operations {
	void *owner;
	long long (*llseek)(struct file *file, long long offset, int whence);
	ssize_t (*read)(struct file *file, char *buf, size_t len, long long *pos);
	ssize_t (*write)(struct file *file, const char *buf, size_t len,
			 long long *pos);
	ssize_t (*read_iter)(struct kiocb *iocb, struct iov_iter *to);
	ssize_t (*write_iter)(struct kiocb *iocb, struct iov_iter *from);
	unsigned int (*poll)(struct file *file, struct poll_table_struct *pt);
	long (*unlocked_ioctl)(struct file *file, unsigned int cmd, unsigned long arg);
	long (*compat_ioctl)(struct file *file, unsigned int cmd, unsigned long arg);
	int (*mmap)(struct file *file, struct vm_area_struct *vma);
	int (*open)(struct inode *inode, struct file *file);
	int (*flush)(struct file *file, void *id);
	int (*release)(struct inode *inode, struct file *file);
	int (*fsync)(struct file *file, long long start, long long end, int datasync);
};

/*
 * A user buffer is not kernel memory: the kernel may touch it only through
 * copy_to_user() and its kin (SMAP makes a direct access fault on x86).
 * The harness hands the handlers a user address with STANDIN_USER_TAG set
 * in bits no x86-64 address has (harness_user()), so that a memcpy() to
 * it crashes where it happens; the uaccess functions take the tag off.
 */
#define STANDIN_USER_TAG 0x5a00000000000000ULL
void *standin_user_untag(const void *p);

/* debugfs: made by the harness that needs it (Lab 7's keeps a tree). */
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, unsigned short mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops);
struct dentry *debugfs_create_file_unsafe(const char *name, unsigned short mode,
					  struct dentry *parent, void *data,
					  const struct file_operations *fops);
void debugfs_remove(struct dentry *dentry);

#endif /* STANDIN_H */
