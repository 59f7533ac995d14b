/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/fs.h>: the VFS is the harness's, which calls the
 * handlers of a struct file_operations as open(2), read(2), lseek(2),
 * write(2) and close(2) would. Here: the structures a handler is given
 * (standin.h, with the fields code outside fs/ uses), the file mode
 * flags, and the VFS's helpers for handlers, written after the kernel's.
 * Written for gcov-kernel-labs.
 */
#ifndef _LINUX_FS_H
#define _LINUX_FS_H

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <uapi/linux/fs.h>
#include <uapi/linux/stat.h>
#include "../../standin.h"

#define FMODE_READ		((__force fmode_t)0x1)
#define FMODE_WRITE		((__force fmode_t)0x2)
#define FMODE_LSEEK		((__force fmode_t)0x4)
#define FMODE_PREAD		((__force fmode_t)0x8)
#define FMODE_PWRITE		((__force fmode_t)0x10)
#define FMODE_EXEC		((__force fmode_t)0x20)
#define FMODE_ATOMIC_POS	((__force fmode_t)0x8000)
#define FMODE_STREAM		((__force fmode_t)0x200000)

#define MAX_LFS_FILESIZE	((loff_t)LLONG_MAX)
#define MAX_NON_LFS		((1UL << 31) - 1)

#define no_llseek NULL

/* The permission shorthands of <linux/stat.h>, which a host cannot build. */
#define S_IRWXUGO	(S_IRWXU | S_IRWXG | S_IRWXO)
#define S_IALLUGO	(S_ISUID | S_ISGID | S_ISVTX | S_IRWXUGO)
#define S_IRUGO		(S_IRUSR | S_IRGRP | S_IROTH)
#define S_IWUGO		(S_IWUSR | S_IWGRP | S_IWOTH)
#define S_IXUGO		(S_IXUSR | S_IXGRP | S_IXOTH)

static inline struct inode *file_inode(const struct file *f)
{
	return f->f_inode;
}

static inline loff_t i_size_read(const struct inode *inode)
{
	return inode->i_size;
}

static inline void i_size_write(struct inode *inode, loff_t i_size)
{
	inode->i_size = i_size;
}

static inline int nonseekable_open(struct inode *inode, struct file *filp)
{
	filp->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE);
	return 0;
}

static inline int stream_open(struct inode *inode, struct file *filp)
{
	filp->f_mode &= ~(FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE | FMODE_ATOMIC_POS);
	filp->f_mode |= FMODE_STREAM;
	return 0;
}

static inline int simple_open(struct inode *inode, struct file *file)
{
	if (inode->i_private)
		file->private_data = inode->i_private;
	return 0;
}

ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available);
ssize_t simple_write_to_buffer(void *to, size_t available, loff_t *ppos,
			       const void __user *from, size_t count);
loff_t generic_file_llseek_size(struct file *file, loff_t offset, int whence,
				loff_t maxsize, loff_t eof);
loff_t fixed_size_llseek(struct file *file, loff_t offset, int whence, loff_t size);
loff_t no_seek_end_llseek(struct file *file, loff_t offset, int whence);
loff_t generic_file_llseek(struct file *file, loff_t offset, int whence);
loff_t default_llseek(struct file *file, loff_t offset, int whence);
loff_t noop_llseek(struct file *file, loff_t offset, int whence);

#endif /* _LINUX_FS_H */
