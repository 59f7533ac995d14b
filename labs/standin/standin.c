// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in kernel's own state (kernel.h declares it): held mutexes,
 * live allocations, allocations made to fail, the module notifier. Linked
 * into every host check that uses the stand-in. Written for
 * gcov-kernel-labs.
 */
#include "kernel.h"

int harness_mutexes_held;
long harness_allocated;
int harness_failing_allocs;
int harness_allocs_before_failing;
struct notifier_block *harness_module_notifier;
