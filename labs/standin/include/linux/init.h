/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/init.h>: the harness runs the initcalls and hands
 * the kernel parameters, so each initcall and __setup() adds itself to a
 * table at program start (standin.c). Everything else a caller of this
 * header uses is here: the section markers are empty, as on a host there
 * is no init memory to free. Written for gcov-kernel-labs.
 */
#ifndef _LINUX_INIT_H
#define _LINUX_INIT_H

#include <linux/compiler.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include "../../standin.h"

#define __init
#define __exit
#define __initdata
#define __initconst
#define __exitdata
#define __init_memblock
#define __meminit
#define __meminitdata
#define __refdata
#define __ref
#define __exit_p(x) x

typedef int (*initcall_t)(void);
typedef void (*exitcall_t)(void);

#define __standin_initcall(fn, level)					\
	static void __attribute__((constructor))			\
	__PASTE(__standin_initcall_, fn)(void)				\
	{								\
		standin_add_initcall(level, fn, #fn);			\
	}

#define early_initcall(fn) __standin_initcall(fn, STANDIN_EARLY)
#define pure_initcall(fn) __standin_initcall(fn, STANDIN_PURE)
#define core_initcall(fn) __standin_initcall(fn, STANDIN_CORE)
#define core_initcall_sync(fn) core_initcall(fn)
#define postcore_initcall(fn) __standin_initcall(fn, STANDIN_POSTCORE)
#define postcore_initcall_sync(fn) postcore_initcall(fn)
#define arch_initcall(fn) __standin_initcall(fn, STANDIN_ARCH)
#define arch_initcall_sync(fn) arch_initcall(fn)
#define subsys_initcall(fn) __standin_initcall(fn, STANDIN_SUBSYS)
#define subsys_initcall_sync(fn) subsys_initcall(fn)
#define fs_initcall(fn) __standin_initcall(fn, STANDIN_FS)
#define fs_initcall_sync(fn) fs_initcall(fn)
#define rootfs_initcall(fn) fs_initcall(fn)
#define device_initcall(fn) __standin_initcall(fn, STANDIN_DEVICE)
#define device_initcall_sync(fn) device_initcall(fn)
#define late_initcall(fn) __standin_initcall(fn, STANDIN_LATE)
#define late_initcall_sync(fn) late_initcall(fn)
#define __initcall(fn) device_initcall(fn)
#define __exitcall(fn) static exitcall_t __PASTE(__standin_exitcall_, fn) __maybe_unused = fn

#define __setup(str, fn)						\
	static void __attribute__((constructor))			\
	__PASTE(__standin_setup_, fn)(void)				\
	{								\
		standin_add_setup(str, fn);				\
	}
#define early_param(str, fn) __setup(str "=", fn)

#endif /* _LINUX_INIT_H */
