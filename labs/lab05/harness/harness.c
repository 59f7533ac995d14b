// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 5's check: the series' kernel/gcov/base.c run as a host program.
 *
 * The harness plays the kernel's part in the order a booting and running
 * kernel calls the registry: the built-in objects' constructors (before
 * the allocator and the mutexes may be used: on UML the C library runs
 * them before start_kernel(), so nothing may be allocated or locked
 * then), the core and late initcalls, then modules that load (MODULE_STATE_COMING,
 * their objects' __gcov_init(), MODULE_STATE_LIVE) and unload
 * (MODULE_STATE_GOING), whose memory is then freed. It prints what base.c
 * prints, after each GCC 12 object it keeps whether the kept structure
 * points at the object ("H: kept"), and after each step a state line;
 * vm/gcovlablib/checks.py reads the output. A host program:
 * base.c is compiled apart, on the stand-in kernel (labs/standin), and
 * standin.h is what the two share. With the argument "modules" it plays
 * a kernel whose built-in code is not profiled: the first object it sees
 * is a module's, of another GCC release. Written for gcov-kernel-labs.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "standin.h"
#include "gcov.h"

/*
 * What base.c sees through gcov_info_version(), gcov_info_filename() and
 * the link it queues early objects by (gcov_info_next(), _link()).
 */
struct gcov_info {
	unsigned int version;
	const char *filename;
	struct gcov_info *next;
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

struct gcov_info *gcov_info_next(const struct gcov_info *info)
{
	return info->next;
}

void gcov_info_link(struct gcov_info *info, struct gcov_info *next)
{
	info->next = next;
}

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

/* A module as its source describes it: a name and its objects. */
struct module_desc {
	const char *name;
	unsigned int versions[3];
	const char *files[3];
	int n;
};

/*
 * A loaded module: as in the kernel, one block of memory holds its code
 * and data, the objects' gcov_info and their file names too (the .gcda
 * names are strings of the module), and it is freed once the module has
 * gone (MODULE_STATE_GOING, or an init that failed), so that
 * AddressSanitizer catches a registry that still points into it.
 */
struct loaded {
	struct module mod;
	char text[256];			/* core_layout.text_size */
	struct gcov_info objs[3];	/* .data */
	char names[3][64];
};

/* Separate, so that AddressSanitizer's report names it as the freer. */
static void __attribute__((noinline)) module_memory_free(struct loaded *m)
{
	free(m);
}

static void event(struct loaded *m, unsigned long ev)
{
	m->mod.state = ev;
	if (harness_module_notifier)
		harness_module_notifier->notifier_call(harness_module_notifier, ev,
						       &m->mod);
}

/*
 * __gcov_init() of a GCC 12 object that it keeps: the struct it
 * allocates must point at the object's gcov_info ("kept" lines).
 */
static void init_object(struct gcov_info *info)
{
	unsigned long seq = harness_alloc_seq;
	long before = harness_allocated;

	__gcov_init(info);
	if (harness_allocated > before && (info->version >> 16) == (GCC_12_2 >> 16))
		printf("H: kept %s %s\n", info->filename,
		       standin_holds_pointer(seq, info) ? "points-at-info" : "no-pointer");
}

static struct loaded *load(const char *name, const struct module_desc *d, bool fails)
{
	struct loaded *m = calloc(1, sizeof(*m));
	int i;

	begin(name);
	snprintf(m->mod.name, sizeof(m->mod.name), "%s", d->name);
	m->mod.core_layout.base = m;
	m->mod.core_layout.size = sizeof(*m);
	m->mod.core_layout.text_size = offsetof(struct loaded, objs);
	m->mod.core_layout.ro_size = offsetof(struct loaded, objs);
	m->mod.core_layout.ro_after_init_size = offsetof(struct loaded, objs);
	m->mod.state = MODULE_STATE_UNFORMED;
	for (i = 0; i < d->n; i++) {
		snprintf(m->names[i], sizeof(m->names[i]), "%s", d->files[i]);
		m->objs[i].version = d->versions[i];
		m->objs[i].filename = m->names[i];
	}
	event(m, MODULE_STATE_COMING);
	for (i = 0; i < d->n; i++)
		init_object(&m->objs[i]);
	if (fails) {
		event(m, MODULE_STATE_GOING);
		module_memory_free(m);
		m = NULL;
	} else {
		event(m, MODULE_STATE_LIVE);
	}
	end();
	return m;
}

static void unload(const char *name, struct loaded *m)
{
	begin(name);
	event(m, MODULE_STATE_GOING);
	module_memory_free(m);
	end();
}

static struct gcov_info builtin[] = {
	{ GCC_12_2, "/build/init/main.gcda" },
	{ GCC_12_2, "/build/kernel/fork.gcda" },
	{ GCC_12_2, "/build/lib/sort.gcda" },
};

static const struct module_desc multi = {
	"multi", { GCC_12_2, GCC_12_2 },
	{ "/build/multi/core.gcda", "/build/multi/lib/helper.gcda" }, 2
};

static const struct module_desc foreign = {
	"foreign", { GCC_11_3, GCC_13_1, GCC_9_3 },
	{ "/foreign/made-up.gcda", "/foreign/newer.gcda", "/foreign/older.gcda" }, 3
};

static const struct module_desc tight = {
	"tight", { GCC_12_2 }, { "/build/tight/tight.gcda" }, 1
};

static const struct module_desc pre = {
	"pre", { GCC_12_2 }, { "/build/pre/pre.gcda" }, 1
};

static const struct module_desc failing = {
	"failing", { GCC_12_2 }, { "/build/failing/probe.gcda" }, 1
};

/* Another GCC 12 release than this compiler's: the same layout, kept. */
#define GCC_12_OTHER (__GNUC_MINOR__ == 1 ? 0x4232332aU : 0x4232312aU)

static const struct module_desc minor = {
	"minor", { GCC_12_OTHER }, { "/build/minor/minor.gcda" }, 1
};

/*
 * Objects whose paths do not name their module, as kbuild's are (a
 * module is named by its Makefile, its objects by their sources), and a
 * module whose name is in another's paths.
 */
static const struct module_desc nic = {
	"nic", { GCC_12_2, GCC_12_2 },
	{ "/build/drivers/net/lib/phy.gcda", "/build/drivers/net/ethernet/e1000.gcda" }, 2
};

static const struct module_desc lib = {
	"lib", { GCC_12_2 }, { "/build/drivers/misc/extras.gcda" }, 1
};

/* A kernel whose built-in code is not profiled: modules only. */
static void modules_only(void)
{
	struct loaded *m;

	begin("core initcall");
	standin_run_initcalls(STANDIN_CORE);
	end();
	begin("late initcall");
	standin_run_initcalls(STANDIN_LATE);
	end();
	load("load foreign first", &foreign, false);
	m = load("load multi after it", &multi, false);
	unload("unload multi", m);
	begin("end");
	printf("H: done\n");
}

int main(int argc, char **argv)
{
	struct loaded *m, *f, *n, *l, *p;
	unsigned long seq;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "modules")) {
		modules_only();
		return 0;
	}
	begin("boot constructors");
	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		init_object(&builtin[i]);
	if (harness_alloc_seq || harness_mutex_takes)
		harness_fail("__gcov_init() allocated or locked before the initcalls");
	end();
	begin("core initcall");
	seq = harness_alloc_seq;
	standin_run_initcalls(STANDIN_CORE);
	printf("H: module notifier %s\n",
	       harness_module_notifier ? "registered" : "not registered");
	/* The objects queued at boot are registered now, if at all. */
	for (i = 0; harness_alloc_seq > seq &&
	     i < sizeof(builtin) / sizeof(builtin[0]); i++)
		printf("H: kept %s %s\n", builtin[i].filename,
		       standin_holds_pointer(seq, &builtin[i]) ?
		       "points-at-info" : "no-pointer");
	end();
	begin("late initcall");
	standin_run_initcalls(STANDIN_LATE);
	end();
	m = load("load multi", &multi, false);
	f = load("load foreign", &foreign, false);
	unload("unload multi", m);
	unload("unload foreign", f);
	m = load("load multi again", &multi, false);
	unload("unload multi again", m);
	load("load failing (its init fails)", &failing, true);
	p = load("load pre (before a failure)", &pre, false);
	harness_failing_allocs = 1;
	m = load("load tight (kzalloc fails)", &tight, false);
	harness_failing_allocs = 0;
	unload("unload tight", m);
	m = load("load multi after the failure", &multi, false);
	unload("unload multi after the failure", m);
	unload("unload pre", p);
	m = load("load minor (another GCC 12 release)", &minor, false);
	unload("unload minor", m);
	n = load("load nic", &nic, false);
	l = load("load lib", &lib, false);
	unload("unload lib", l);
	unload("unload nic", n);
	begin("end");
	printf("H: done\n");
	return 0;
}
