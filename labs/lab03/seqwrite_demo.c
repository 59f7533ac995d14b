// SPDX-License-Identifier: GPL-2.0
/*
 * seqwrite_demo: Lab 3 of gcov-kernel-labs.
 *
 * A .gcda file is a stream of 32-bit words, many of them zero, and the
 * seq_printf() family cannot emit a NUL byte.  seq_write() copies raw
 * bytes into a seq_file buffer, which is what a debugfs file that hands
 * out .gcda data needs.  This module shows it on a smaller stream of the
 * same shape, in /sys/kernel/debug/seqwrite_demo/records:
 *
 *   header  u32 magic 0x67636461, u32 version, u32 number of records,
 *           u32 size of the whole stream in bytes
 *   record  u32 tag (SEQW_TAG_RECORD | i), u32 length of the payload in
 *           bytes (8 * i), then i u64 values, value j being (i << 32) | j
 *
 * for i = 1 .. records.  Every word is in the machine's byte order, as
 * in a .gcda file.  The content depends only on the module parameter.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#define SEQW_MAGIC		0x67636461	/* "gcda" read as a u32 */
#define SEQW_VERSION		1
#define SEQW_TAG_RECORD		0x01000000
#define SEQW_RECORDS_MIN	1
#define SEQW_RECORDS_MAX	64

struct seqw_header {
	u32 magic;
	u32 version;
	u32 records;
	u32 size;
};

struct seqw_record {
	u32 tag;
	u32 length;
};

static unsigned int records = 3;
module_param(records, uint, 0444);
MODULE_PARM_DESC(records, "number of records in the stream (1-64, default 3)");

static struct dentry *seqw_dir;

static u32 seqw_stream_size(unsigned int n)
{
	u32 size = sizeof(struct seqw_header);
	unsigned int i;

	for (i = 1; i <= n; i++)
		size += sizeof(struct seqw_record) + i * sizeof(u64);
	return size;
}

/*
 * The return value of seq_write() is not checked: when the buffer is too
 * small, seq_file marks it as overflowed, and seq_read() throws the output
 * away, doubles the buffer and calls this function again.
 */
static int records_show(struct seq_file *m, void *v)
{
	struct seqw_header hdr = {
		.magic = SEQW_MAGIC,
		.version = SEQW_VERSION,
		.records = records,
		.size = seqw_stream_size(records),
	};
	unsigned int i, j;

	seq_write(m, &hdr, sizeof(hdr));
	for (i = 1; i <= records; i++) {
		struct seqw_record rec = {
			.tag = SEQW_TAG_RECORD | i,
			.length = i * sizeof(u64),
		};

		seq_write(m, &rec, sizeof(rec));
		for (j = 0; j < i; j++) {
			u64 value = (u64)i << 32 | j;

			seq_write(m, &value, sizeof(value));
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(records);

static int __init seqw_init(void)
{
	BUILD_BUG_ON(sizeof(struct seqw_header) != 16);
	BUILD_BUG_ON(sizeof(struct seqw_record) != 8);

	if (records < SEQW_RECORDS_MIN || records > SEQW_RECORDS_MAX) {
		pr_err("records=%u is out of range (%d-%d)\n",
		       records, SEQW_RECORDS_MIN, SEQW_RECORDS_MAX);
		return -EINVAL;
	}

	seqw_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("records", 0444, seqw_dir, NULL, &records_fops);
	pr_info("%u records, %u bytes\n", records, seqw_stream_size(records));
	return 0;
}

static void __exit seqw_exit(void)
{
	debugfs_remove_recursive(seqw_dir);
	pr_info("removed\n");
}

module_init(seqw_init);
module_exit(seqw_exit);
MODULE_DESCRIPTION("Lab 3: a binary debugfs file written with seq_write()");
MODULE_LICENSE("GPL");
