// SPDX-License-Identifier: GPL-2.0
/*
 * Host harness for the series' .gcda writer (kernel/gcov/gcc_12.c).
 *
 * Linked into a program compiled with the series' CFLAGS_GCOV, in place of
 * GCC's libgcov: the program's constructors hand their gcov_info to this
 * __gcov_init(), and at exit every object's data is written with
 * gcov_info_to_gcda(), the function the kernel uses, to the path GCC
 * chose (or, with GCOVLAB_SUFFIX set, that path plus the suffix).
 * GCOVLAB_RESET=1 zeroes the counters first (gcov_info_reset), and
 * GCOVLAB_TWICE=1 adds a copy of the data to itself (gcov_info_dup,
 * gcov_info_add, gcov_info_free) before writing.
 */
#include <stdio.h>
#include <stdlib.h>
#include "gcov.h"

#define MAX_OBJECTS 64

static struct gcov_info *objects[MAX_OBJECTS];
static unsigned int n_objects;

static void write_all(void)
{
	const char *suffix = getenv("GCOVLAB_SUFFIX");
	unsigned int i;

	for (i = 0; i < n_objects; i++) {
		struct gcov_info *info = objects[i];
		size_t size = gcov_info_to_gcda(info, NULL, 0);
		void *buf = malloc(size);
		char path[4096];
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
		if (!buf || gcov_info_to_gcda(info, buf, size) != size) {
			fprintf(stderr, "harness: serialising failed\n");
			exit(99);
		}
		snprintf(path, sizeof(path), "%s%s", gcov_info_filename(info),
			 suffix ? suffix : "");
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, size, f) != size || fclose(f)) {
			perror(path);
			exit(99);
		}
		free(buf);
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
