/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration the tree's headers see in a host check: an x86_64
 * kernel with modules, printk and debugfs, and none of the debugging
 * options whose code needs a running kernel (lockdep, KASAN: the stand-in
 * and AddressSanitizer do their part). In place of the generated file of
 * a build. Written for gcov-kernel-labs.
 */
#define CONFIG_X86 1
#define CONFIG_X86_64 1
#define CONFIG_64BIT 1
#define CONFIG_MMU 1
#define CONFIG_PGTABLE_LEVELS 4
#define CONFIG_MODULES 1
#define CONFIG_MODULE_UNLOAD 1
#define CONFIG_PRINTK 1
#define CONFIG_DEBUG_FS 1
#define CONFIG_GCOV_PROFILE 1
#define CONFIG_HAVE_ARCH_WITHIN_STACK_FRAMES 1
#define CONFIG_NR_CPUS 1
#define CONFIG_HZ 250
#define CONFIG_PAGE_OFFSET 0xffff888000000000
