/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GCOVLAB_SHIM_MUTEX_H
#define GCOVLAB_SHIM_MUTEX_H
/* Only declared by gcov.h; the harness is single-threaded. */
struct mutex {
	int unused;
};
#endif
