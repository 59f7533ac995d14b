/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GCOVLAB_SHIM_KERNEL_H
#define GCOVLAB_SHIM_KERNEL_H
#include <linux/types.h>
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#endif
