// SPDX-License-Identifier: GPL-2.0
/*
 * Host harness for the series' .gcda writer (kernel/gcov/gcc_12.c).
 *
 * Linked into a program compiled with the series' CFLAGS_GCOV, in place of
 * GCC's libgcov: the program's constructors hand their gcov_info to this
 * __gcov_init(), and at exit every object's data is written with
 * gcov_info_to_gcda(), the function the kernel uses, to the path GCC
 * chose (or, with GCOVLAB_SUFFIX set, that path plus the suffix).
 * GCOVLAB_RESET=1 zeroes the counters first (gcov_info_reset),
 * GCOVLAB_TWICE=1 adds a copy of the data to itself (gcov_info_dup,
 * gcov_info_add, gcov_info_free) before writing, and GCOVLAB_SCALE=K
 * multiplies every counter by K with the same functions (counts past
 * 2^32 from a short run).
 *
 * The writer is called twice, as the kernel's callers do: with buf NULL
 * and size 0 to measure, then with a buffer of that size that ends where
 * a page no one may touch begins. A write outside either ends the
 * program with "harness: FAULT <pass> <byte>" on stderr: the byte of the
 * image it was writing, which the check maps to the record and the TODO.
 *
 * Objects compiled with -fprofile-values (counter types besides arcs)
 * call the value profilers of libgcov; they are defined here as the
 * little the check needs.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gcov.h"

#define MAX_OBJECTS 64

static struct gcov_info *objects[MAX_OBJECTS];
static unsigned int n_objects;

/* Where the writer may write now: [room, room + room_size). */
static const char *pass = "none";
static char *room;
static size_t room_size;

static void fault(int sig, siginfo_t *si, void *ctx)
{
	char msg[160];
	long at = (char *)si->si_addr - room;
	int n;

	(void)sig;
	(void)ctx;
	n = snprintf(msg, sizeof(msg), "harness: FAULT %s %ld %zu\n", pass, at, room_size);
	if (write(2, msg, n) < 0)
		_exit(97);
	_exit(98);
}

/* A buffer of SIZE bytes followed by a page that faults when touched. */
static char *guarded(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = (size + page - 1) / page + 1;
	char *map = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (map == MAP_FAILED || mprotect(map + (pages - 1) * page, page, PROT_NONE)) {
		perror("harness: mmap");
		exit(99);
	}
	return map + (pages - 1) * page - size;
}

/* INFO's counters times K, made with the functions under test's kin. */
static void scale(struct gcov_info *info, unsigned long long k)
{
	struct gcov_info *sum = gcov_info_dup(info);
	struct gcov_info *power = gcov_info_dup(info);

	if (!sum || !power) {
		fprintf(stderr, "harness: dup failed\n");
		exit(99);
	}
	gcov_info_reset(sum);
	for (; k; k >>= 1) {
		if (k & 1)
			gcov_info_add(sum, power);
		gcov_info_add(power, power);
	}
	gcov_info_reset(info);
	gcov_info_add(info, sum);
	gcov_info_free(sum);
	gcov_info_free(power);
}

static void write_all(void)
{
	const char *suffix = getenv("GCOVLAB_SUFFIX");
	const char *k = getenv("GCOVLAB_SCALE");
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < n_objects; i++) {
		struct gcov_info *info = objects[i];
		size_t size, wrote;
		char path[4096];
		char *buf;
		FILE *f;

		if (getenv("GCOVLAB_RESET"))
			gcov_info_reset(info);
		if (getenv("GCOVLAB_TWICE")) {
			struct gcov_info *copy = gcov_info_dup(info);

			if (!copy || !gcov_info_same_object(info, copy)) {
				fprintf(stderr, "harness: dup failed\n");
				exit(99);
			}
			gcov_info_add(info, copy);
			gcov_info_free(copy);
		}
		if (k)
			scale(info, strtoull(k, NULL, 0));
		pass = "sizing";
		room = NULL;
		room_size = 0;
		size = gcov_info_to_gcda(info, NULL, 0);
		if (size > (1u << 26)) {
			fprintf(stderr, "harness: SIZE %zu\n", size);
			exit(99);
		}
		buf = guarded(size);
		pass = "writing";
		room = buf;
		room_size = size;
		wrote = gcov_info_to_gcda(info, buf, size);
		pass = "none";
		if (wrote != size)
			fprintf(stderr, "harness: SIZES %zu %zu\n", size, wrote);
		snprintf(path, sizeof(path), "%s%s", gcov_info_filename(info),
			 suffix ? suffix : "");
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, wrote < size ? wrote : size, f) !=
		    (wrote < size ? wrote : size) || fclose(f)) {
			perror(path);
			exit(99);
		}
	}
}

void __gcov_init(struct gcov_info *info)
{
	if (n_objects == MAX_OBJECTS) {
		fprintf(stderr, "harness: too many objects\n");
		exit(99);
	}
	if (!n_objects)
		atexit(write_all);
	objects[n_objects++] = info;
}

void __gcov_exit(void)
{
}

void __gcov_merge_add(gcov_type *counters, unsigned int n)
{
	(void)counters;
	(void)n;
}

/*
 * What code compiled with -fprofile-values calls besides: the value
 * profilers of libgcov (gcc/libgcov-profiler.c) as far as wc.c needs
 * them. It makes no indirect calls: the profiler has nothing to record.
 */
gcov_type __gcov_time_profiler_counter;

struct gcovlab_indirect_call {
	void *callee;
	gcov_type *counters;
} __thread __gcov_indirect_call;

void __gcov_indirect_call_profiler_v4(gcov_type value, void *cur_func)
{
	(void)value;
	(void)cur_func;
	__gcov_indirect_call.callee = NULL;
}

void __gcov_merge_time_profile(gcov_type *counters, unsigned int n)
{
	(void)counters;
	(void)n;
}
