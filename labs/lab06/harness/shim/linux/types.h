/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the page of Lab 6 (docs/labs/lab6.rst, step 2), which compiles the
 * writer by hand; vm/gcovlab check 6 uses the stand-in kernel of
 * labs/standin and the tree's own headers instead (standin.py).
 */
/* User-space stand-ins for the kernel headers kernel/gcov/gcc_12.c uses. */
#ifndef GCOVLAB_SHIM_TYPES_H
#define GCOVLAB_SHIM_TYPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef int64_t s64;
typedef uint64_t u64;
typedef uint32_t u32;
#endif
