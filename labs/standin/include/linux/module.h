/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/module.h>: the module loader is the harness's, which
 * loads and unloads made-up modules and calls the module notifier. struct
 * module has the fields of Linux 6.1 that code outside the loader reads
 * (standin.h). Written for gcov-kernel-labs.
 */
#ifndef _LINUX_MODULE_H
#define _LINUX_MODULE_H

#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/notifier.h>
/* the kernel's reaches it through percpu.h, cpumask.h and bitmap.h */
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include "../../standin.h"

#define THIS_MODULE ((struct module *)0)
#define MODULE_LICENSE(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_VERSION(x)
#define MODULE_ALIAS(x)
#define MODULE_SOFTDEP(x)
#define MODULE_INFO(tag, info)
#define module_init(fn) __initcall(fn)
#define module_exit(fn) __exitcall(fn)

static inline bool within_module_core(unsigned long addr, const struct module *mod)
{
	return (unsigned long)mod->core_layout.base <= addr &&
	       addr < (unsigned long)mod->core_layout.base + mod->core_layout.size;
}

static inline bool within_module_init(unsigned long addr, const struct module *mod)
{
	return (unsigned long)mod->init_layout.base <= addr &&
	       addr < (unsigned long)mod->init_layout.base + mod->init_layout.size;
}

static inline bool within_module(unsigned long addr, const struct module *mod)
{
	return within_module_init(addr, mod) || within_module_core(addr, mod);
}

static inline const char *module_name(struct module *mod)
{
	return mod ? mod->name : "kernel";
}

static inline bool try_module_get(struct module *mod)
{
	return true;
}

static inline void module_put(struct module *mod)
{
}

static inline void __module_get(struct module *mod)
{
}

static inline int register_module_notifier(struct notifier_block *nb)
{
	harness_module_notifier = nb;
	return 0;
}

static inline int unregister_module_notifier(struct notifier_block *nb)
{
	if (harness_module_notifier == nb)
		harness_module_notifier = NULL;
	return 0;
}

#endif /* _LINUX_MODULE_H */
