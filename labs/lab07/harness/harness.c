// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 7's check: the student's kernel/gcov/fs.c, with the series'
 * kernel/gcov/base.c, run as a host program on the stand-in kernel of
 * labs/standin. A host program: fs.c and base.c are compiled apart, on
 * the stand-in kernel, and standin.h is what they and this file share.
 *
 * The harness is the rest of the kernel: a debugfs that keeps a tree of
 * files and refuses a name made twice or a removal under gcov_lock, a VFS
 * that calls the file_operations as open(2), read(2), lseek(2), write(2)
 * and close(2) would (with user buffers that only copy_to_user() and its
 * kin can reach, as SMAP has it), modules whose memory is freed when they
 * unload (so AddressSanitizer sees a ghost that still points into it), and
 * a made-up gcov_info whose image is easy to check: a header, then NCOUNT
 * counters where counter i holds (i + 1) times the number of "runs".
 *
 * Usage: harness [gcov_persist value]. It prints "H: step NAME todo N"
 * before each step (N: the TODO the step exercises first), "H: obs KEY ok"
 * or "H: obs KEY bad WHY" for each thing it looked at, what the code
 * prints, and "H: done" at the end; vm/gcovlablib/checks.py reads it.
 * Written for gcov-kernel-labs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "standin.h"
#include "gcov.h"

#define NCOUNT 40
#define IMAGE (12 + 8 * NCOUNT)
#define GCC_12_2 0x4232322aU	/* "B22*" */
#define FMODE_READ 0x1		/* as <linux/fs.h> has them */
#define FMODE_WRITE 0x2

/* The address the handlers are given for the user's buffer P. */
static char *harness_user(const char *p)
{
	return (char *)((uintptr_t)p ^ STANDIN_USER_TAG);
}

struct gcov_info {
	unsigned int version;
	unsigned int checksum;
	const char *filename;
	gcov_type counts[NCOUNT];
	void *functions;	/* a copy's other parts (NULL in GCC's own data) */
	struct gcov_info *next;	/* base.c's queue of objects seen at boot */
};

/* As the kernel's gcov_info_dup() does: a copy is made of several blocks. */
#define DUP_FUNCTIONS 48
#define DUP_PARTS 3

static const char *step = "start";
static int step_todo;
static int fop_todo;	/* the TODO of the handler running now, or 0 */

void harness_fail(const char *why)
{
	printf("H: FAIL %s (step %s) todo %d\n", why, step,
	       fop_todo ? fop_todo : step_todo);
	exit(3);
}

static void obs(const char *key, bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("H: obs %s ok\n", key);
		return;
	}
	printf("H: obs %s bad ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* An error number as a reader knows it. */
static const char *errname(long err)
{
	switch (err) {
	case -ENOENT:
		return "-ENOENT";
	case -ENOMEM:
		return "-ENOMEM";
	case -EINVAL:
		return "-EINVAL";
	case -EEXIST:
		return "-EEXIST";
	case 0:
		return "0";
	}
	return "an error number the series never returns";
}

static void begin(const char *name, int todo)
{
	step = name;
	step_todo = todo;
	printf("H: step %s todo %d\n", name, todo);
}

/* --- the data format, made up: what fs.c calls through gcov.h ---------- */

/* The counters change under gcov_lock only: reading them needs it too. */
static void locked(const char *what)
{
	char why[160];

	if (!gcov_lock.held) {
		snprintf(why, sizeof(why), "%s() called without gcov_lock: a module may unload, or the counters change, meanwhile",
			 what);
		harness_fail(why);
	}
}

const char *gcov_info_filename(const struct gcov_info *info)
{
	return info->filename;
}

unsigned int gcov_info_version(const struct gcov_info *info)
{
	return info->version;
}

struct gcov_info *gcov_info_next(const struct gcov_info *info)
{
	return info->next;
}

void gcov_info_link(struct gcov_info *info, struct gcov_info *next)
{
	info->next = next;
}

bool gcov_info_same_object(const struct gcov_info *a, const struct gcov_info *b)
{
	return !strcmp(a->filename, b->filename) && a->checksum == b->checksum;
}

void gcov_info_reset(struct gcov_info *info)
{
	locked("gcov_info_reset");
	memset(info->counts, 0, sizeof(info->counts));
}

void gcov_info_add(struct gcov_info *dst, const struct gcov_info *src)
{
	int i;

	locked("gcov_info_add");
	for (i = 0; i < NCOUNT; i++)
		dst->counts[i] += src->counts[i];
}

/*
 * In parts, as the kernel's: the structure, its file name and its
 * functions are separate blocks (any of which can fail), so that a copy
 * freed with kfree() leaks the others, as it would in the kernel.
 */
struct gcov_info *gcov_info_dup(const struct gcov_info *info)
{
	size_t len = strlen(info->filename) + 1;
	struct gcov_info *dup;
	char *name;

	locked("gcov_info_dup");
	dup = standin_alloc(sizeof(*dup), 0, 0, STANDIN_KMALLOC);
	if (!dup)
		return NULL;
	*dup = *info;
	name = standin_alloc(len, 0, 0, STANDIN_KMALLOC);
	dup->functions = standin_alloc(DUP_FUNCTIONS, 0, 1, STANDIN_KMALLOC);
	if (!name || !dup->functions) {
		standin_free(name, STANDIN_KMALLOC, "gcov_info_dup");
		standin_free(dup->functions, STANDIN_KMALLOC, "gcov_info_dup");
		standin_free(dup, STANDIN_KMALLOC, "gcov_info_dup");
		return NULL;
	}
	dup->filename = memcpy(name, info->filename, len);
	return dup;
}

void gcov_info_free(struct gcov_info *info)
{
	if (!info)
		harness_fail("gcov_info_free(NULL): the kernel's reads the object it frees, so NULL oopses");
	if (!info->functions)
		harness_fail("gcov_info_free() of GCC's own data (a module's or the kernel's), not of a copy");
	standin_free(info->functions, STANDIN_KMALLOC, "gcov_info_free");
	standin_free(info->filename, STANDIN_KMALLOC, "gcov_info_free");
	standin_free(info, STANDIN_KMALLOC, "gcov_info_free");
}

size_t gcov_info_to_gcda(const struct gcov_info *info, void *buf, size_t size)
{
	u32 w[IMAGE / 4];
	int i;

	locked("gcov_info_to_gcda");
	w[0] = GCOV_DATA_MAGIC;
	w[1] = info->version;
	w[2] = info->checksum;
	for (i = 0; i < NCOUNT; i++) {
		w[3 + 2 * i] = (u64)info->counts[i];
		w[4 + 2 * i] = (u64)info->counts[i] >> 32;
	}
	if (buf && size >= IMAGE)
		memcpy(buf, w, IMAGE);
	return IMAGE;
}

/* A workload: RUNS more runs of the object's code. */
static void work(struct gcov_info *info, int runs)
{
	int i;

	for (i = 0; i < NCOUNT; i++)
		info->counts[i] += (gcov_type)runs * (i + 1);
}

/* --- debugfs: a tree of dentries ---------------------------------------- */

struct dentry {
	struct dentry *parent, *children, *sibling;
	const struct file_operations *fops;
	struct inode inode;
	bool removed;
	char name[64];
};

static struct dentry debugfs_root = { .name = "" };

static struct dentry *child(struct dentry *dir, const char *name, size_t len)
{
	struct dentry *d;

	for (d = dir->children; d; d = d->sibling)
		if (strlen(d->name) == len && !strncmp(d->name, name, len))
			return d;
	return NULL;
}

static struct dentry *create(const char *name, struct dentry *parent,
			     void *data, const struct file_operations *fops)
{
	struct dentry *d;

	if (!parent)
		parent = &debugfs_root;
	if (parent->removed || child(parent, name, strlen(name))) {
		printf("debugfs: '%s' already present in '%s'%s\n", name,
		       parent->name, parent->removed ? " (removed)" : "");
		return (struct dentry *)(long)-EEXIST;
	}
	if (strlen(name) >= sizeof(d->name))
		harness_fail("a debugfs name longer than the harness keeps");
	/* debugfs's memory, not counted with the code's allocations */
	d = calloc(1, sizeof(*d));
	strcpy(d->name, name);
	d->parent = parent;
	d->fops = fops;
	d->inode.i_private = data;
	d->sibling = parent->children;
	parent->children = d;
	return d;
}

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	return create(name, parent, NULL, NULL);
}

struct dentry *debugfs_create_file(const char *name, unsigned short mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops)
{
	return create(name, parent, data, fops);
}

struct dentry *debugfs_create_file_unsafe(const char *name, unsigned short mode,
					  struct dentry *parent, void *data,
					  const struct file_operations *fops)
{
	return create(name, parent, data, fops);
}

static void forget(struct dentry *d)
{
	struct dentry *c;

	d->removed = true;
	for (c = d->children; c; c = c->sibling)
		forget(c);
}

static void open_while_removed(struct dentry *d);

/*
 * Removal waits for every ->open() of the file in progress; an ->open()
 * waits for gcov_lock: removing under gcov_lock can deadlock. The memory
 * stays, as an open file's inode would.
 */
void debugfs_remove(struct dentry *d)
{
	struct dentry **p;

	if (!d || (unsigned long)d >= (unsigned long)-4095)
		return;
	if (gcov_lock.held)
		harness_fail("debugfs_remove() called with gcov_lock held: it waits for the file's open(), which waits for gcov_lock");
	if (d->removed)
		harness_fail("debugfs_remove() of a dentry removed already");
	if (d->fops && d->fops->open)
		open_while_removed(d);
	for (p = &d->parent->children; *p != d; p = &(*p)->sibling)
		;
	*p = d->sibling;
	forget(d);
}

/* The dentry of a path such as "gcov/build/lib/sort.gcda", or NULL. */
static struct dentry *lookup(const char *path)
{
	struct dentry *d = &debugfs_root;

	while (d && *path) {
		size_t len = strcspn(path, "/");

		d = child(d, path, len);
		path += len + (path[len] == '/');
	}
	return d;
}

/* --- the VFS: what a process's system calls do with the handlers ------- */

struct hfile {
	struct dentry *d;
	struct file f;
};

static unsigned int takes_before;

/* A handler starts: count its holds of gcov_lock from here. */
static void before(int todo)
{
	fop_todo = todo;
	takes_before = gcov_lock.takes;
}

/*
 * At most one hold of gcov_lock per handler: what one hold read (the
 * file's state, its data, the image's size) may have changed or gone by
 * the next, as a module can unload in between.
 */
static void one_hold(const char *what)
{
	char why[400];

	if (gcov_lock.takes - takes_before > 1) {
		snprintf(why, sizeof(why), "gcov_lock is not held throughout %s(): it was taken %u times in one call; what was read under one hold (gf->removed, the data, the image's size) may have changed or gone by the next, when a module unloads in between: take it once, for the whole critical section",
			 what, gcov_lock.takes - takes_before);
		harness_fail(why);
	}
}

static void after(const char *what)
{
	char why[120];

	one_hold(what);
	if (harness_mutexes_held) {
		snprintf(why, sizeof(why), "a mutex (gcov_lock) is still held when %s() returns",
			 what);
		harness_fail(why);
	}
	fop_todo = 0;
}

static int vfs_open(struct hfile *hf, const char *path, unsigned int mode)
{
	int err = 0;

	memset(hf, 0, sizeof(*hf));
	hf->d = lookup(path);
	if (!hf->d)
		return -ENOENT;
	hf->f.f_mode = mode;
	hf->f.f_inode = &hf->d->inode;
	if (hf->d->fops && hf->d->fops->open) {
		before(1);
		err = hf->d->fops->open(&hf->d->inode, &hf->f);
		if (!err && !hf->f.private_data && hf->d->inode.i_private)
			harness_fail("open() returned 0 but set no file->private_data, which read(), write() and close() use (a write-only open needs its struct gcov_open too, of size 0)");
		after("open");
	}
	return err;
}

static ssize_t vfs_read(struct hfile *hf, char *buf, size_t len)
{
	long long pos = hf->f.f_pos;
	ssize_t n;

	if (!(hf->f.f_mode & FMODE_READ))
		return -EBADF;
	if (!hf->d->fops->read)
		return -EINVAL;
	/* as read(2): the handler moves a copy of the position */
	before(2);
	n = hf->d->fops->read(&hf->f, harness_user(buf), len, &pos);
	after("read");
	if (n >= 0)
		hf->f.f_pos = pos;
	return n;
}

static ssize_t vfs_write(struct hfile *hf, const char *buf, size_t len)
{
	long long pos = hf->f.f_pos;
	ssize_t n;

	if (!(hf->f.f_mode & FMODE_WRITE))
		return -EBADF;
	before(3);
	n = hf->d->fops->write(&hf->f, harness_user(buf), len, &pos);
	after("write");
	return n;
}

static long long vfs_llseek(struct hfile *hf, long long offset)
{
	long long pos;

	before(2);
	pos = hf->d->fops->llseek(&hf->f, offset, 0);
	after("llseek");
	return pos;
}

static void vfs_close(struct hfile *hf)
{
	if (hf->d->fops && hf->d->fops->release) {
		before(1);
		hf->d->fops->release(&hf->d->inode, &hf->f);
		after("release");
	}
}

/*
 * An open() that debugfs_remove() waits for: it began before the file was
 * marked removed and got gcov_lock after. It must fail with -ENOENT.
 * (gcov_tree_lock is held here: only gcov_lock is looked at.)
 */
static void open_while_removed(struct dentry *d)
{
	struct file f = { .f_mode = FMODE_READ, .f_inode = &d->inode };
	unsigned int outer = takes_before, start = gcov_lock.takes;
	int todo = fop_todo, err;

	/* another process's open(): its holds are its own, not the remover's */
	before(1);
	err = d->fops->open(&d->inode, &f);
	if (gcov_lock.held)
		harness_fail("gcov_lock is still held when open() of a file that is going away returns");
	one_hold("open");
	if (!err && f.private_data)
		d->fops->release(&d->inode, &f);
	fop_todo = todo;
	takes_before = outer + (gcov_lock.takes - start);
	obs("open-removed", err == -ENOENT,
	    "open() of %s, which was being removed, returned %d (%s): want -ENOENT",
	    d->name, err, errname(err));
}

/* What reading a file gave: an error, or its bytes. */
struct got {
	long err;
	bool endless;
	size_t len;
	unsigned char data[2 * IMAGE];
};

static void read_rest(struct hfile *hf, size_t chunk, struct got *g)
{
	char buf[4096];
	int calls;

	for (calls = 0; ; calls++) {
		ssize_t n = vfs_read(hf, buf, chunk);

		if (n < 0) {
			g->err = n;
			return;
		}
		if (!n)
			return;
		if ((size_t)n > chunk || g->len + n > sizeof(g->data) ||
		    calls > 2 * IMAGE) {
			g->endless = true;
			return;
		}
		memcpy(g->data + g->len, buf, n);
		g->len += n;
	}
}

static void get(const char *path, size_t chunk, struct got *g)
{
	struct hfile hf;

	memset(g, 0, sizeof(*g));
	g->err = vfs_open(&hf, path, FMODE_READ);
	if (g->err)
		return;
	read_rest(&hf, chunk, g);
	vfs_close(&hf);
}

/* NULL and the runs the image holds, or why it is no image of @checksum. */
static const char *decode(const struct got *g, unsigned int checksum,
			  long long *runs)
{
	static char why[200];
	u32 w[IMAGE / 4];
	int i;

	if (g->len != IMAGE) {
		snprintf(why, sizeof(why), "%zu bytes came back, want %d (the whole image, once)",
			 g->len, IMAGE);
		return why;
	}
	memcpy(w, g->data, IMAGE);
	if (w[0] != GCOV_DATA_MAGIC || w[1] != GCC_12_2) {
		snprintf(why, sizeof(why), "the bytes are not an image (header %08x %08x)",
			 w[0], w[1]);
		return why;
	}
	if (w[2] != checksum) {
		snprintf(why, sizeof(why), "the image is of another object (checksum %08x, want %08x)",
			 w[2], checksum);
		return why;
	}
	*runs = w[3] | (u64)w[4] << 32;
	for (i = 1; i < NCOUNT; i++) {
		long long v = w[3 + 2 * i] | (u64)w[4 + 2 * i] << 32;

		if (v != *runs * (i + 1)) {
			snprintf(why, sizeof(why), "counter %d is %lld where counter 0 is %lld: the bytes are not one image",
				 i, v, *runs);
			return why;
		}
	}
	return NULL;
}

static void expect(const char *key, const char *path, unsigned int checksum,
		   long long runs, size_t chunk)
{
	long before = harness_allocated;
	const char *why;
	long long got = 0;
	struct got g;

	get(path, chunk, &g);
	obs("open-leak", harness_allocated == before,
	    "open(), read() and close() of %s: allocations went from %ld to %ld (what open() allocates, close() frees; a sum made for the image is freed in open())",
	    path, before, harness_allocated);
	if (g.err) {
		obs(key, false, "open(\"%s\") and read() failed with %ld (%s)", path,
		    g.err, errname(g.err));
		return;
	}
	if (g.endless) {
		obs(key, false, "%s, read in %zu-byte chunks, never ends: read() returned more than asked, or more than the image (%d bytes) in all",
		    path, chunk, IMAGE);
		return;
	}
	why = decode(&g, checksum, &got);
	if (why)
		obs(key, false, "%s, read in %zu-byte chunks: %s", path, chunk, why);
	else
		obs(key, got == runs, "%s holds the counters of %lld runs, want %lld",
		    path, got, runs);
}

/* Reads the rest of the open file @hf: what @what must hold, @runs runs. */
static void expect_open(const char *key, struct hfile *hf, unsigned int checksum,
			long long runs, const char *what)
{
	static struct got g;
	long long got = 0;
	const char *why;

	memset(&g, 0, sizeof(g));
	read_rest(hf, 4096, &g);
	why = g.err ? "read() failed" : g.endless ? "read() never ended" :
	      decode(&g, checksum, &got);
	if (why)
		obs(key, false, "%s must read as %lld runs: %s", what, runs, why);
	else
		obs(key, got == runs, "%s must read as %lld runs: it read %lld", what, runs,
		    got);
}

static void expect_gone(const char *key, const char *path)
{
	obs(key, !lookup(path), "%s is still in debugfs", path);
}

static void write_to(const char *key, const char *path, long want)
{
	struct hfile hf;
	ssize_t n;
	int err;

	err = vfs_open(&hf, path, FMODE_WRITE);
	if (err) {
		obs(key, false, "open(\"%s\", O_WRONLY) failed with %d (%s)", path, err,
		    errname(err));
		return;
	}
	n = vfs_write(&hf, "1", 1);
	vfs_close(&hf);
	obs(key, n == want, "write() to %s returned %zd, want %ld", path, n, want);
}

/* --- modules: their data lives in memory that unloading frees ---------- */

struct obj {
	const char *name;
	unsigned int checksum;
};

struct fake_module {
	struct module mod;
	int n;
	struct gcov_info objs[2];
	char names[2][64];
};

static void event(struct fake_module *m, unsigned long ev)
{
	m->mod.state = ev;
	takes_before = gcov_lock.takes;
	if (harness_module_notifier)
		harness_module_notifier->notifier_call(harness_module_notifier, ev,
						       &m->mod);
	one_hold("the module notifier");
}

static struct fake_module *load(const char *name, const struct obj *objs, int n)
{
	struct fake_module *m = calloc(1, sizeof(*m));
	int i;

	strcpy(m->mod.name, name);
	m->mod.core_layout.base = m;
	m->mod.core_layout.size = sizeof(*m);
	m->n = n;
	event(m, MODULE_STATE_COMING);
	for (i = 0; i < n; i++) {
		strcpy(m->names[i], objs[i].name);
		m->objs[i].version = GCC_12_2;
		m->objs[i].checksum = objs[i].checksum;
		m->objs[i].filename = m->names[i];
		takes_before = gcov_lock.takes;
		__gcov_init(&m->objs[i]);
		one_hold("__gcov_init");
	}
	event(m, MODULE_STATE_LIVE);
	return m;
}

/* Separate, so that AddressSanitizer's report names it as the freer. */
static void __attribute__((noinline)) module_memory_free(struct fake_module *m)
{
	free(m);
}

static void unload(struct fake_module *m)
{
	event(m, MODULE_STATE_GOING);
	module_memory_free(m);
}

/* --- the run ------------------------------------------------------------ */

#define SCHED "gcov/build/kernel/sched.gcda"
#define SORT "gcov/build/lib/sort.gcda"
#define DRV "gcov/build/drivers/drv/drv.gcda"
#define SHARED "gcov/build/lib/shared/shared.gcda"
#define OTHER "gcov/build/drivers/other/other.gcda"
#define THIRD "gcov/build/drivers/third.gcda"
#define PAIR "gcov/build/pair/pair.gcda"
#define LONE "gcov/build/drivers/lone.gcda"
#define QUAD "gcov/build/drivers/quad.gcda"
#define C_SCHED 0x5c4ed001U
#define C_SORT 0x50470002U
#define C_DRV 0xd0000003U
#define C_DRV2 0xd0000013U
#define C_SHARED 0x54a2e004U
#define C_OTHER 0x07e40005U
#define C_THIRD 0x7e1d0006U
#define C_PAIR 0x9a170007U
#define C_LONE 0x10e00008U
#define C_QUAD 0x40ad0009U

static struct gcov_info sched = { GCC_12_2, C_SCHED, "/build/kernel/sched.gcda" };
static struct gcov_info sort = { GCC_12_2, C_SORT, "/build/lib/./sort.gcda" };

static const struct obj drv_objs[] = {
	{ "/build/drivers/drv/drv.gcda", C_DRV },
	{ "/build/lib/shared/shared.gcda", C_SHARED },
};

static const struct obj drv2_objs[] = {
	{ "/build/drivers/drv/drv.gcda", C_DRV2 },	/* rebuilt, changed */
	{ "/build/lib/shared/shared.gcda", C_SHARED },
};

static const struct obj other_objs[] = {
	{ "/build/drivers/other/other.gcda", C_OTHER },
	{ "/build/lib/shared/shared.gcda", C_SHARED },
};

static const struct obj third_objs[] = {
	{ "/build/drivers/third.gcda", C_THIRD },
};

static const struct obj pair_objs[] = {
	{ "/build/pair/pair.gcda", C_PAIR },
};

static const struct obj lone_objs[] = {
	{ "/build/drivers/lone.gcda", C_LONE },
};

static const struct obj quad_objs[] = {
	{ "/build/drivers/quad.gcda", C_QUAD },
};

static const struct obj nomem_objs[] = {
	{ "/build/drivers/nomem.gcda", 0x4e0e000aU },
};

static long boot(const char *persist)
{
	begin("boot", 0);
	if (persist) {
		char param[64];

		snprintf(param, sizeof(param), "gcov_persist=%s", persist);
		standin_kernel_param(param);
	}
	__gcov_init(&sched);
	__gcov_init(&sort);
	standin_run_initcalls(STANDIN_CORE);
	standin_run_initcalls(STANDIN_FS);
	standin_run_initcalls(STANDIN_LATE);
	obs("tree", lookup("gcov/reset") && lookup(SCHED) && lookup(SORT),
	    "after boot, want gcov/reset, %s and %s in debugfs", SCHED, SORT);
	return harness_allocated;
}

static void reads(void)
{
	static const size_t chunks[] = { 1, 7, 100 };
	struct hfile hf;
	struct got g;
	char buf[8];
	size_t i;
	int err;

	begin("read a file", 2);
	work(&sched, 3);
	err = vfs_open(&hf, SCHED, FMODE_READ);
	obs("open", !err, "open(\"%s\") for reading failed with %d (%s)", SCHED, err,
	    errname(err));
	if (!err)
		vfs_close(&hf);
	expect("read-whole", SCHED, C_SCHED, 3, 4096);
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++)
		expect("read-chunks", SCHED, C_SCHED, 3, chunks[i]);
	if (vfs_open(&hf, SCHED, FMODE_READ))
		return;
	memset(&g, 0, sizeof(g));
	if (vfs_llseek(&hf, 12) == 12 && vfs_read(&hf, buf, 8) == 8) {
		long long v;

		memcpy(&v, buf, 8);
		obs("seek", v == 3, "after lseek(fd, 12, SEEK_SET), read() gave %lld, want 3 (counter 0)",
		    v);
	} else {
		obs("seek", false, "lseek(fd, 12, SEEK_SET) and an 8-byte read() did not give 8 bytes");
	}
	vfs_close(&hf);
}

static void image_at_open(void)
{
	struct hfile a;

	begin("the image is made at open", 1);
	if (vfs_open(&a, SCHED, FMODE_READ)) {
		obs("image-at-open", false, "open(\"%s\") failed", SCHED);
		return;
	}
	work(&sched, 2);	/* after the open: this reader must not see it */
	expect_open("image-at-open", &a, C_SCHED, 3,
		    "a file opened before 2 more runs (the image of the moment of open())");
	vfs_close(&a);
	expect("image-at-open", SCHED, C_SCHED, 5, 4096);
}

static void open_nomem(void)
{
	long before = harness_allocated;
	struct hfile hf;
	int err;

	begin("an open that cannot allocate", 1);
	harness_failing_allocs = 1;
	err = vfs_open(&hf, SCHED, FMODE_READ);
	harness_failing_allocs = 0;
	if (!err)
		vfs_close(&hf);
	obs("open-nomem", err == -ENOMEM && harness_allocated == before,
	    "with kvmalloc() failing, open() returned %d (%s; want -ENOMEM) and allocations went from %ld to %ld",
	    err, errname(err), before, harness_allocated);
}

/*
 * The sum of two copies is made of allocations too (a copy in parts, as
 * the kernel's gcov_info_dup() makes it): each may fail, one at a time,
 * until open() makes no more than were let through.
 */
static void two_copies_nomem(void)
{
	int skip;

	begin("an open of a two-copy file that cannot allocate", 1);
	for (skip = 0; skip < 16; skip++) {
		long before = harness_allocated;
		struct hfile hf;
		int err, unused;

		harness_allocs_before_failing = skip;
		harness_failing_allocs = 1;
		err = vfs_open(&hf, SHARED, FMODE_READ);
		unused = harness_failing_allocs;
		harness_failing_allocs = 0;
		harness_allocs_before_failing = 0;
		if (!err)
			vfs_close(&hf);
		if (unused)
			return;	/* open() made fewer allocations: each one was tried */
		obs("open-nomem", err == -ENOMEM && harness_allocated == before,
		    "%s, two copies: with allocation %d of open() failing, it returned %d (%s; want -ENOMEM) and allocations went from %ld to %ld",
		    SHARED, skip + 1, err, errname(err), before, harness_allocated);
	}
}

static void open_close(void)
{
	long before = harness_allocated;
	struct hfile hf;
	int i, err = 0;

	begin("open and close", 1);
	for (i = 0; i < 3 && !err; i++) {
		err = vfs_open(&hf, SCHED, FMODE_READ);
		if (!err)
			vfs_close(&hf);
	}
	obs("close-balance", !err && harness_allocated == before,
	    "three open() and close() of %s: %s; allocations went from %ld to %ld (each open keeps its memory and a reference to the file, close() gives both back)",
	    SCHED, err ? "an open failed" : "all opened", before, harness_allocated);
}

static void resets(void)
{
	begin("write to a file", 3);
	work(&sched, 4);
	work(&sort, 2);
	write_to("write-resets", SCHED, 1);
	expect("write-resets", SCHED, C_SCHED, 0, 4096);
	expect("write-resets", SORT, C_SORT, 2, 4096);

	begin("write to gcov/reset", 3);
	work(&sched, 1);
	write_to("reset-all", "gcov/reset", 1);
	expect("reset-all", SCHED, C_SCHED, 0, 4096);
	expect("reset-all", SORT, C_SORT, 0, 4096);
}

static long long counts_of(const struct gcov_info *info)
{
	return info->counts[0];
}

static void modules(void)
{
	struct fake_module *drv, *other, *third, *p1, *p2, *lone, *q1, *q2;
	long ghosted;
	struct hfile a;

	begin("load two modules that share an object", 1);
	drv = load("drv", drv_objs, 2);
	other = load("other", other_objs, 2);
	work(&drv->objs[0], 2);
	work(&drv->objs[1], 1);
	work(&other->objs[0], 5);
	work(&other->objs[1], 4);
	expect("sum", SHARED, C_SHARED, 5, 4096);
	expect("sum", DRV, C_DRV, 2, 4096);
	two_copies_nomem();

	begin("write to the shared object's file", 3);
	write_to("reset-copies", SHARED, 1);
	obs("reset-copies", !counts_of(&drv->objs[1]) && !counts_of(&other->objs[1]),
	    "after a write to %s, module drv's copy holds %lld runs and module other's %lld: want 0 in both",
	    SHARED, counts_of(&drv->objs[1]), counts_of(&other->objs[1]));
	work(&drv->objs[1], 2);
	work(&other->objs[1], 3);

	begin("unload other", 4);
	unload(other);
	expect("ghost", OTHER, C_OTHER, 5, 4096);
	expect("ghost-sum", SHARED, C_SHARED, 5, 4096);

	begin("unload drv", 4);
	unload(drv);
	expect("ghost", DRV, C_DRV, 2, 4096);
	expect("ghost-sum", SHARED, C_SHARED, 5, 4096);

	begin("load drv again", 5);
	drv = load("drv", drv_objs, 2);
	expect("revive", DRV, C_DRV, 2, 4096);
	expect("revive", SHARED, C_SHARED, 5, 4096);
	work(&drv->objs[0], 1);
	expect("revive", DRV, C_DRV, 3, 4096);

	begin("write to a ghost's file", 3);
	write_to("discard", OTHER, 1);
	expect_gone("discard", OTHER);
	expect_gone("discard", "gcov/build/drivers/other");

	begin("load a changed drv", 5);
	unload(drv);
	drv = load("drv", drv2_objs, 2);
	expect("changed", DRV, C_DRV2, 0, 4096);
	expect("revive", SHARED, C_SHARED, 5, 4096);

	begin("write to a file with a ghost and a loaded copy", 3);
	p1 = load("p1", pair_objs, 1);
	p2 = load("p2", pair_objs, 1);
	work(&p1->objs[0], 3);
	work(&p2->objs[0], 4);
	unload(p1);
	ghosted = harness_allocated;
	expect("reset-ghost", PAIR, C_PAIR, 7, 4096);
	write_to("reset-ghost", PAIR, 1);
	obs("reset-ghost", harness_allocated == ghosted - DUP_PARTS,
	    "allocations: %ld with the ghost of module p1, %ld once a write to %s dropped it (want %ld): a ghost is a copy in %d parts, which gcov_info_free() frees, kfree() does not",
	    ghosted, harness_allocated, PAIR, ghosted - DUP_PARTS, DUP_PARTS);
	obs("reset-ghost", lookup(PAIR), "a write to %s removed it, but module p2 still has a copy loaded",
	    PAIR);
	expect("reset-ghost", PAIR, C_PAIR, 0, 4096);
	work(&p2->objs[0], 2);
	unload(p2);
	expect("reset-ghost", PAIR, C_PAIR, 2, 4096);

	begin("unload with no memory for a ghost", 4);
	lone = load("lone", lone_objs, 1);
	work(&lone->objs[0], 2);
	harness_failing_allocs = 1;
	unload(lone);
	harness_failing_allocs = 0;
	expect_gone("ghost-nomem", LONE);

	begin("unload a copy with no memory for its ghost, another copy loaded", 4);
	q1 = load("q1", quad_objs, 1);
	q2 = load("q2", quad_objs, 1);
	work(&q1->objs[0], 3);
	work(&q2->objs[0], 4);
	harness_failing_allocs = 1;
	unload(q1);
	harness_failing_allocs = 0;
	expect("ghost-nomem", QUAD, C_QUAD, 4, 4096);
	unload(q2);
	expect("ghost-nomem", QUAD, C_QUAD, 4, 4096);

	begin("a reader while the file goes", 1);
	unload(drv);
	third = load("third", third_objs, 1);
	work(&third->objs[0], 6);
	unload(third);
	if (vfs_open(&a, THIRD, FMODE_READ | FMODE_WRITE)) {
		obs("reader-survives", false, "open(\"%s\") of a ghost's file failed", THIRD);
		return;
	}
	write_to("reader-survives", THIRD, 1);	/* discards: the file goes */
	expect_open("reader-survives", &a, C_THIRD, 6,
		    "a reader that opened " THIRD " before the file went");
	obs("write-removed", vfs_write(&a, "1", 1) == -ENOENT,
	    "a write() through a file opened before the file went must fail with ENOENT");
	vfs_close(&a);
}

/*
 * Each allocation of an open() failing in turn, then the file going (its
 * module unloads; gcov_persist=0 keeps no ghost): what a failed open()
 * kept, a reference to the file above all, keeps the file's memory.
 */
static void nomem_then_gone(void)
{
	long before = harness_allocated;
	struct fake_module *m = load("nomem", nomem_objs, 1);
	int skip, err = 0, unused = 0;
	struct hfile hf;

	for (skip = 0; skip < 16 && !unused; skip++) {
		harness_allocs_before_failing = skip;
		harness_failing_allocs = 1;
		err = vfs_open(&hf, "gcov/build/drivers/nomem.gcda", FMODE_READ);
		unused = harness_failing_allocs;
		harness_failing_allocs = 0;
		harness_allocs_before_failing = 0;
		if (!err)
			vfs_close(&hf);
		else if (err != -ENOMEM)
			break;
	}
	unload(m);
	obs("open-nomem", harness_allocated == before && (unused || err == -ENOMEM),
	    "open() of a module's file failed for want of memory (returning %s), then the module and its file went (gcov_persist=0): allocations went from %ld to %ld; a failed open() must give back all it took, the reference to the file (kref_get) too, or the file is never freed",
	    errname(err), before, harness_allocated);
}

static void no_persist(void)
{
	struct fake_module *drv;
	struct hfile a;

	begin("unload drv without persistence", 1);
	drv = load("drv", drv_objs, 2);
	work(&drv->objs[0], 4);
	if (vfs_open(&a, DRV, FMODE_READ)) {
		obs("p0-reader", false, "open(\"%s\") failed", DRV);
		unload(drv);
		return;
	}
	unload(drv);
	expect_gone("p0-gone", DRV);
	expect_open("p0-reader", &a, C_DRV, 4,
		    "a reader that opened " DRV " before its module went");
	vfs_close(&a);

	begin("an open that cannot allocate, then its file goes", 1);
	nomem_then_gone();

	begin("load drv again without persistence", 0);
	drv = load("drv", drv_objs, 2);
	expect("p0-fresh", DRV, C_DRV, 0, 4096);
	unload(drv);
}

int main(int argc, char **argv)
{
	const char *persist = argc > 1 ? argv[1] : NULL;
	long booted;

	setvbuf(stdout, NULL, _IOLBF, 0);
	booted = boot(persist);
	if (persist && !strcmp(persist, "0")) {
		no_persist();
		begin("end", 0);
		obs("p0-no-leak", harness_allocated == booted,
		    "allocations: %ld after boot, %ld once every module is gone (each unload must free what it kept)",
		    booted, harness_allocated);
	} else {
		reads();
		image_at_open();
		open_nomem();
		open_close();
		resets();
		modules();
		begin("end", 3);
		write_to("no-leak", "gcov/reset", 1);
		obs("no-leak", harness_allocated == booted,
		    "allocations: %ld after boot, %ld once every module is gone and gcov/reset was written (its ghosts freed)",
		    booted, harness_allocated);
	}
	printf("H: done\n");
	return 0;
}
