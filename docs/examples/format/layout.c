/* SPDX-License-Identifier: GPL-2.0 */
/*
 * docs/gcov-info-layout.rst: where each field of GCC's coverage structures
 * sits on this machine.
 *
 * Two generations of the structures that GCC places in every object built
 * with -fprofile-arcs, written down from their published descriptions:
 *
 *   old_*  the layout of GCC 3.4 to 4.6, the one the 2008 series read;
 *   new_*  the layout of GCC 12 (the one mainline's gcc_4_7.c calls
 *          "4.7 and later", with the checksum GCC 12 added).
 *
 * The program prints the offset and size of every field, as the C
 * compiler lays them out for this target (x86_64: 4-byte unsigned int,
 * 8-byte pointers and counters).  Nothing here is taken from a header of
 * GCC; the struct and field names only follow the usual ones.
 */
#include <stddef.h>
#include <stdio.h>

typedef long long counter_t;	/* gcov_type: one 64-bit counter */
typedef void (*merge_fn)(counter_t *, unsigned int);

/* ---- GCC 3.4 ---------------------------------------------------------- */

#define OLD_COUNTER_TYPES 5	/* arcs, interval, pow2, single, delta */

struct old_fn_info {
	unsigned int ident;
	unsigned int checksum;
	unsigned int n_ctrs[];	/* one count per active counter type */
};

struct old_ctr_info {
	unsigned int num;	/* counters of this type, all functions */
	counter_t *values;
	merge_fn merge;
};

struct old_info {
	unsigned int version;
	struct old_info *next;
	unsigned int stamp;
	const char *filename;
	unsigned int n_functions;
	const struct old_fn_info *functions;	/* packed records, see below */
	unsigned int ctr_mask;			/* bit t: type t is active */
	struct old_ctr_info counts[];		/* one per active type */
};

/* ---- GCC 12 ----------------------------------------------------------- */

#define NEW_COUNTER_TYPES 8	/* GCC 10 to 13 */

struct new_ctr_info {
	unsigned int num;	/* counters of this type, this function */
	counter_t *values;
};

struct new_info;

struct new_fn_info {
	const struct new_info *key;
	unsigned int ident;
	unsigned int lineno_checksum;
	unsigned int cfg_checksum;
	struct new_ctr_info ctrs[];	/* one per active type */
};

struct new_info {
	unsigned int version;
	struct new_info *next;
	unsigned int stamp;
	unsigned int checksum;		/* new in GCC 12 */
	const char *filename;
	merge_fn merge[NEW_COUNTER_TYPES];	/* NULL: type not active */
	unsigned int n_functions;
	const struct new_fn_info **functions;
};

#define FIELD(type, field) \
	printf("  0x%02zx  %2zu  %s\n", offsetof(type, field), \
	       sizeof(((type *)0)->field), #field)
#define TOTAL(type) \
	printf("  size %zu bytes (0x%zx), alignment %zu\n\n", sizeof(type), \
	       sizeof(type), _Alignof(type))

int main(void)
{
	printf("GCC 3.4 (the 2008 series)\n");
	printf("struct gcov_info\n");
	FIELD(struct old_info, version);
	FIELD(struct old_info, next);
	FIELD(struct old_info, stamp);
	FIELD(struct old_info, filename);
	FIELD(struct old_info, n_functions);
	FIELD(struct old_info, functions);
	FIELD(struct old_info, ctr_mask);
	printf("  0x%02zx  %2zu  counts[i], i = 0 .. active types - 1\n",
	       offsetof(struct old_info, counts), sizeof(struct old_ctr_info));
	TOTAL(struct old_info);

	printf("struct gcov_ctr_info (3.4)\n");
	FIELD(struct old_ctr_info, num);
	FIELD(struct old_ctr_info, values);
	FIELD(struct old_ctr_info, merge);
	TOTAL(struct old_ctr_info);

	printf("struct gcov_fn_info (3.4)\n");
	FIELD(struct old_fn_info, ident);
	FIELD(struct old_fn_info, checksum);
	printf("  0x%02zx  %2zu  n_ctrs[i], i = 0 .. active types - 1\n",
	       offsetof(struct old_fn_info, n_ctrs), sizeof(unsigned int));
	TOTAL(struct old_fn_info);
	printf("  records are packed: one active type -> %zu bytes apart, "
	       "two -> %zu, five -> %zu\n\n",
	       sizeof(struct old_fn_info) + 1 * sizeof(unsigned int),
	       sizeof(struct old_fn_info) + 2 * sizeof(unsigned int),
	       sizeof(struct old_fn_info) + 5 * sizeof(unsigned int));

	printf("GCC 12 (this machine's compiler)\n");
	printf("struct gcov_info\n");
	FIELD(struct new_info, version);
	FIELD(struct new_info, next);
	FIELD(struct new_info, stamp);
	FIELD(struct new_info, checksum);
	FIELD(struct new_info, filename);
	printf("  0x%02zx  %2zu  merge[0] .. merge[%d]\n",
	       offsetof(struct new_info, merge),
	       sizeof(((struct new_info *)0)->merge), NEW_COUNTER_TYPES - 1);
	FIELD(struct new_info, n_functions);
	FIELD(struct new_info, functions);
	TOTAL(struct new_info);

	printf("struct gcov_fn_info (12)\n");
	FIELD(struct new_fn_info, key);
	FIELD(struct new_fn_info, ident);
	FIELD(struct new_fn_info, lineno_checksum);
	FIELD(struct new_fn_info, cfg_checksum);
	printf("  0x%02zx  %2zu  ctrs[i], i = 0 .. active types - 1\n",
	       offsetof(struct new_fn_info, ctrs), sizeof(struct new_ctr_info));
	TOTAL(struct new_fn_info);
	printf("  with one active type: %zu bytes, with three: %zu\n\n",
	       sizeof(struct new_fn_info) + 1 * sizeof(struct new_ctr_info),
	       sizeof(struct new_fn_info) + 3 * sizeof(struct new_ctr_info));

	printf("struct gcov_ctr_info (12)\n");
	FIELD(struct new_ctr_info, num);
	FIELD(struct new_ctr_info, values);
	TOTAL(struct new_ctr_info);
	return 0;
}
