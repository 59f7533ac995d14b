/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-space model of the kernel's .gcda writer, for the format pages
 * and tests/test_gcda_normalise.py.
 *
 * Link it, instead of libgcov, with objects compiled with -fprofile-arcs
 * (link without -fprofile-arcs/--coverage, so that libgcov is not pulled
 * in):
 *
 *   gcc -O2 -fprofile-arcs -ftest-coverage -c prog.c
 *   gcc prog.o kwriter.o -o prog-kernel-style
 *
 * It provides the three symbols such objects need: __gcov_init() keeps a
 * list of the objects' gcov_info, __gcov_merge_add() does nothing, and
 * __gcov_exit(), called by every object's destructor when the program
 * ends, writes each object's .gcda to the name GCC compiled in, in the
 * form the series writes it (v3): header with the object's checksum,
 * then for each function a FUNCTION record followed by one COUNTERS
 * record per active counter type, every value written out, and no
 * summary or end marker.
 *
 * The structures are GCC 12's (docs/gcov-info-layout.rst); the file
 * refuses to build with any other compiler release.
 */
#include <stdint.h>
#include <stdio.h>

#if !defined(__GNUC__) || defined(__clang__) || __GNUC__ != 12
#error "kwriter.c models GCC 12's gcov_info; build it with GCC 12"
#endif

#define COUNTER_TYPES	8		/* GCC 10 to 13 */
#define DATA_MAGIC	0x67636461u	/* "gcda" */
#define TAG_FUNCTION	0x01000000u
#define TAG_COUNTERS(t)	(0x01a10000u + ((uint32_t)(t) << 17))

typedef int64_t counter_t;

struct ctr_info {
	uint32_t num;
	counter_t *values;
};

struct info;

struct fn_info {
	const struct info *key;
	uint32_t ident;
	uint32_t lineno_checksum;
	uint32_t cfg_checksum;
	struct ctr_info ctrs[];
};

struct info {
	uint32_t version;
	struct info *next;
	uint32_t stamp;
	uint32_t checksum;
	const char *filename;
	void (*merge[COUNTER_TYPES])(counter_t *, uint32_t);
	uint32_t n_functions;
	const struct fn_info **functions;
};

static struct info *objects;

void __gcov_init(struct info *info);
void __gcov_exit(void);
void __gcov_merge_add(counter_t *values, uint32_t n);

void __gcov_init(struct info *info)
{
	info->next = objects;
	objects = info;
}

void __gcov_merge_add(counter_t *values, uint32_t n)
{
	(void)values;
	(void)n;
}

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);	/* the machine's byte order */
}

static void put64(FILE *f, uint64_t v)
{
	put32(f, (uint32_t)v);		/* low word first */
	put32(f, (uint32_t)(v >> 32));
}

static int write_object(const struct info *info)
{
	FILE *f = fopen(info->filename, "wb");
	uint32_t fn, type, i;

	if (!f) {
		perror(info->filename);
		return -1;
	}
	put32(f, DATA_MAGIC);
	put32(f, info->version);
	put32(f, info->stamp);
	put32(f, info->checksum);		/* mainline 6.1 writes 0 */
	for (fn = 0; fn < info->n_functions; fn++) {
		const struct fn_info *fi = info->functions[fn];
		const struct ctr_info *ci = fi->ctrs;

		put32(f, TAG_FUNCTION);
		put32(f, 3 * 4);		/* bytes, since GCC 12 */
		put32(f, fi->ident);
		put32(f, fi->lineno_checksum);
		put32(f, fi->cfg_checksum);
		/* ctrs[] has one entry per active type, in type order */
		for (type = 0; type < COUNTER_TYPES; type++) {
			if (!info->merge[type])
				continue;
			put32(f, TAG_COUNTERS(type));
			put32(f, ci->num * 8);
			for (i = 0; i < ci->num; i++)
				put64(f, (uint64_t)ci->values[i]);
			ci++;
		}
	}
	if (fclose(f)) {
		perror(info->filename);
		return -1;
	}
	return 0;
}

/* Every profiled object's destructor calls this; write all objects each
 * time, so that the last call leaves the final counts. */
void __gcov_exit(void)
{
	const struct info *info;

	for (info = objects; info; info = info->next)
		write_object(info);
}
