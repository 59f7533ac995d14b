// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 5's check: the series' kernel/gcov/base.c run as a host program.
 *
 * The harness plays the kernel's part in the order a booting and running
 * kernel calls the registry: the built-in objects' constructors, the
 * core and late initcalls, then modules that load (MODULE_STATE_COMING,
 * their objects' __gcov_init(), MODULE_STATE_LIVE) and unload
 * (MODULE_STATE_GOING). It prints what base.c prints, and after each step
 * a state line; vm/gcovlablib/checks.py reads the output. A host program:
 * base.c is compiled apart, on the stand-in kernel (labs/standin), and
 * standin.h is what the two share. Written for gcov-kernel-labs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "standin.h"
#include "gcov.h"

/* What base.c sees through gcov_info_version() and gcov_info_filename(). */
struct gcov_info {
	unsigned int version;
	const char *filename;
};

#define GCC_12_2 0x4232322aU	/* "B22*" */
#define GCC_11_3 0x4231332aU	/* "B13*" */
#define GCC_13_1 0x4233312aU	/* "B31*" */
#define GCC_9_3 0x4139332aU	/* "A93*" */

static const char *step = "start";

void harness_fail(const char *why)
{
	printf("H: FAIL %s (step %s)\n", why, step);
	exit(3);
}

unsigned int gcov_info_version(const struct gcov_info *info)
{
	return info->version;
}

const char *gcov_info_filename(const struct gcov_info *info)
{
	return info->filename;
}

/* A module: its data lives inside the module's memory. */
struct fake_module {
	struct module mod;
	struct gcov_info objs[3];
	int n;
};

static void begin(const char *name)
{
	step = name;
	printf("H: step %s\n", name);
	fflush(stdout);
}

static void end(void)
{
	printf("H: state %s held=%d allocated=%ld\n", step, harness_mutexes_held,
	       harness_allocated);
	fflush(stdout);
}

static void event(struct fake_module *m, unsigned long ev)
{
	if (harness_module_notifier)
		harness_module_notifier->notifier_call(harness_module_notifier, ev,
						       &m->mod);
}

static void load(const char *name, struct fake_module *m, bool fails)
{
	int i;

	begin(name);
	m->mod.core_layout.base = m->objs;
	m->mod.core_layout.size = sizeof(m->objs);
	event(m, MODULE_STATE_COMING);
	for (i = 0; i < m->n; i++)
		__gcov_init(&m->objs[i]);
	event(m, fails ? MODULE_STATE_GOING : MODULE_STATE_LIVE);
	end();
}

static void unload(const char *name, struct fake_module *m)
{
	begin(name);
	event(m, MODULE_STATE_GOING);
	end();
}

static struct gcov_info builtin[] = {
	{ GCC_12_2, "/build/init/main.gcda" },
	{ GCC_12_2, "/build/kernel/fork.gcda" },
	{ GCC_12_2, "/build/lib/sort.gcda" },
};

static struct fake_module multi = {
	{ .name = "multi" },
	{ { GCC_12_2, "/build/multi/core.gcda" },
	  { GCC_12_2, "/build/multi/lib/helper.gcda" } }, 2
};

static struct fake_module foreign = {
	{ .name = "foreign" },
	{ { GCC_11_3, "/foreign/made-up.gcda" },
	  { GCC_13_1, "/foreign/newer.gcda" },
	  { GCC_9_3, "/foreign/older.gcda" } }, 3
};

static struct fake_module tight = {
	{ .name = "tight" }, { { GCC_12_2, "/build/tight/tight.gcda" } }, 1
};

static struct fake_module failing = {
	{ .name = "failing" }, { { GCC_12_2, "/build/failing/probe.gcda" } }, 1
};

int main(void)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	begin("boot constructors");
	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		__gcov_init(&builtin[i]);
	end();
	begin("core initcall");
	standin_run_initcalls(STANDIN_CORE);
	printf("H: module notifier %s\n",
	       harness_module_notifier ? "registered" : "not registered");
	end();
	begin("late initcall");
	standin_run_initcalls(STANDIN_LATE);
	end();
	load("load multi", &multi, false);
	load("load foreign", &foreign, false);
	unload("unload multi", &multi);
	unload("unload foreign", &foreign);
	load("load multi again", &multi, false);
	unload("unload multi again", &multi);
	load("load failing (its init fails)", &failing, true);
	harness_failing_allocs = 1;
	load("load tight (kzalloc fails)", &tight, false);
	harness_failing_allocs = 0;
	unload("unload tight", &tight);
	begin("end");
	printf("H: done\n");
	return 0;
}
