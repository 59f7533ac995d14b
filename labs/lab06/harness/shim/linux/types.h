/* SPDX-License-Identifier: GPL-2.0 */
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
