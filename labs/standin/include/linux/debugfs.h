/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/debugfs.h>: the harness that needs debugfs keeps
 * its tree (Lab 7's); the calls that make a file are declared in
 * standin.h, the others here on top of them. Written for
 * gcov-kernel-labs.
 */
#ifndef _DEBUGFS_H_
#define _DEBUGFS_H_

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/types.h>
#include "../../standin.h"

#define debugfs_remove_recursive debugfs_remove

static inline void debugfs_create_file_size(const char *name, umode_t mode,
					    struct dentry *parent, void *data,
					    const struct file_operations *fops,
					    loff_t file_size)
{
	debugfs_create_file(name, mode, parent, data, fops);
}

static inline bool debugfs_initialized(void)
{
	return true;
}

#endif /* _DEBUGFS_H_ */
