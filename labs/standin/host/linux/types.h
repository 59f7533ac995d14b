/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/types.h> as a harness sees it: a harness is a host program that
 * includes the tree's kernel/gcov/gcov.h, whose kernel headers it gets
 * from here: the stand-in's shared declarations (../../standin.h).
 */
#include "../../standin.h"
