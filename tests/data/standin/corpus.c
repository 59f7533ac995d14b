// SPDX-License-Identifier: GPL-2.0
/*
 * Ordinary kernel code a student might write in Labs 5, 6 and 7: every
 * list, kref, allocation, error pointer, lock, string and annotation
 * helper in common use. tests/unit/test_standin.py compiles it against
 * the stand-in kernel and the tree's headers, links it and runs
 * corpus(), which returns 0 when every helper did what the kernel's does.
 * A name missing here is a name the stand-in may lack: add it to both.
 */
#define pr_fmt(fmt) "corpus: " fmt

#include <linux/array_size.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/kstrtox.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/list_sort.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define CHECK(cond) do { if (!(cond)) { pr_err("line %d: %s\n", __LINE__, #cond); return __LINE__; } } while (0)

struct item {
	struct list_head node;
	struct kref ref;
	refcount_t users;
	int value;
	char name[16];
};

static int released;

static void item_release(struct kref *ref)
{
	kfree(container_of(ref, struct item, ref));
	released++;
}

static DEFINE_MUTEX(corpus_mutex);
static DEFINE_SPINLOCK(corpus_lock);
static LIST_HEAD(corpus_list);

/* kref_put_mutex() calls it with the mutex taken: it drops it. */
static void item_release_unlock(struct kref *ref)
{
	item_release(ref);
	mutex_unlock(&corpus_mutex);
}

static int cmp_items(void *priv, const struct list_head *a, const struct list_head *b)
{
	return list_entry(a, struct item, node)->value - list_entry(b, struct item, node)->value;
}

static int cmp_ints(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int lists(void)
{
	struct item *it, *tmp, *first;
	struct list_head other, *pos, *n;
	int i, count = 0;

	INIT_LIST_HEAD(&other);
	for (i = 0; i < 4; i++) {
		it = kzalloc(sizeof(*it), GFP_KERNEL);
		CHECK(it);
		INIT_LIST_HEAD(&it->node);
		it->value = 3 - i;
		if (i % 2)
			list_add(&it->node, &corpus_list);
		else
			list_add_tail(&it->node, &corpus_list);
	}
	CHECK(list_count_nodes(&corpus_list) == 4);
	first = list_first_entry(&corpus_list, struct item, node);
	list_move_tail(&first->node, &other);
	list_move(&list_last_entry(&corpus_list, struct item, node)->node, &other);
	CHECK(!list_empty(&other) && !list_is_singular(&other));
	list_splice_init(&other, &corpus_list);
	CHECK(list_empty(&other));
	list_rotate_left(&corpus_list);
	list_sort(NULL, &corpus_list, cmp_items);
	list_for_each_entry(it, &corpus_list, node)
		CHECK(it->value == count++);
	list_for_each_entry_reverse(it, &corpus_list, node)
		count--;
	CHECK(count == 0);
	list_for_each(pos, &corpus_list)
		count++;
	CHECK(count == 4);
	it = list_first_entry_or_null(&other, struct item, node);
	CHECK(!it);
	list_for_each_entry_safe(it, tmp, &corpus_list, node) {
		if (list_is_last(&it->node, &corpus_list) || list_is_first(&it->node, &corpus_list)) {
			list_del_init(&it->node);
			kfree(it);
		}
	}
	list_for_each_safe(pos, n, &corpus_list) {
		list_del(pos);
		kfree(list_entry(pos, struct item, node));
	}
	list_for_each_entry_safe_reverse(it, tmp, &corpus_list, node)
		return __LINE__;
	list_replace_init(&corpus_list, &other);
	CHECK(list_empty(&corpus_list) && list_empty(&other));
	return 0;
}

static int refs(void)
{
	struct item *it = kmalloc(sizeof(*it), GFP_KERNEL);

	CHECK(it);
	kref_init(&it->ref);
	refcount_set(&it->users, 1);
	kref_get(&it->ref);
	CHECK(kref_read(&it->ref) == 2 && kref_get_unless_zero(&it->ref));
	refcount_inc(&it->users);
	CHECK(!refcount_dec_and_test(&it->users) && refcount_read(&it->users) == 1);
	CHECK(!kref_put(&it->ref, item_release) && !kref_put(&it->ref, item_release));
	CHECK(kref_put_mutex(&it->ref, item_release_unlock, &corpus_mutex) && released == 1);
	return 0;
}

static int allocations(void)
{
	struct item *items;
	struct { int n; int v[]; } *flex;
	void *p, *q;
	char *s;
	u32 *words;

	items = kcalloc(3, sizeof(*items), GFP_KERNEL | __GFP_NOWARN);
	CHECK(items && !items[2].value);
	items = krealloc_array(items, 5, sizeof(*items), GFP_KERNEL);
	CHECK(items);
	kfree(items);
	words = kmalloc_array(4, sizeof(*words), GFP_KERNEL_ACCOUNT);
	CHECK(words);
	kfree(words);
	CHECK(!kmalloc_array(SIZE_MAX, 2, GFP_KERNEL));
	flex = kvzalloc(struct_size(flex, v, 8), GFP_KERNEL);
	CHECK(flex && !flex->v[7]);
	kvfree(flex);
	p = kvmalloc_array(2, array_size(4, 8), GFP_KERNEL);
	q = vzalloc(size_add(16, 16));
	CHECK(p && q);
	vfree(q);
	kvfree(p);
	p = kvcalloc(2, 8, GFP_KERNEL);
	CHECK(p);
	kvfree(p);
	s = kstrdup("name", GFP_KERNEL);
	CHECK(s && !strcmp(s, "name"));
	kfree(s);
	s = kasprintf(GFP_KERNEL, "%s/%d", "dir", 7);
	CHECK(s && !strcmp(s, "dir/7"));
	kfree_sensitive(s);
	p = kmemdup("abc", 4, GFP_ATOMIC);
	CHECK(p);
	kfree(p);
	s = kstrndup("abcdef", 3, GFP_NOWAIT);
	CHECK(s && strlen(s) == 3);
	kfree(s);
	p = kzalloc(0, GFP_KERNEL);
	CHECK(ZERO_OR_NULL_PTR(p));
	kfree(p);
	return 0;
}

static void *lookup(int err)
{
	return err ? ERR_PTR(err) : NULL;
}

static int error_pointers(void)
{
	void *p = lookup(-ENOENT);

	CHECK(IS_ERR(p) && PTR_ERR(p) == -ENOENT && IS_ERR_OR_NULL(p));
	CHECK(IS_ERR_OR_NULL(lookup(0)) && !IS_ERR(lookup(0)));
	CHECK(PTR_ERR_OR_ZERO(lookup(-EINVAL)) == -EINVAL);
	CHECK(IS_ERR(ERR_CAST(p)));
	CHECK(-EFAULT < 0 && -EBUSY < 0 && -EEXIST < 0 && -ENOSPC < 0 && -E2BIG < 0);
	return 0;
}

static int locks(void)
{
	unsigned long flags;

	mutex_lock(&corpus_mutex);
	lockdep_assert_held(&corpus_mutex);
	CHECK(mutex_is_locked(&corpus_mutex) && !mutex_trylock(&corpus_mutex));
	mutex_unlock(&corpus_mutex);
	if (mutex_lock_interruptible(&corpus_mutex))
		return __LINE__;
	mutex_unlock(&corpus_mutex);
	spin_lock(&corpus_lock);
	assert_spin_locked(&corpus_lock);
	spin_unlock(&corpus_lock);
	spin_lock_irqsave(&corpus_lock, flags);
	spin_unlock_irqrestore(&corpus_lock, flags);
	spin_lock_bh(&corpus_lock);
	spin_unlock_bh(&corpus_lock);
	CHECK(harness_mutexes_held == 0);
	return 0;
}

static int atomics(void)
{
	atomic_t a = ATOMIC_INIT(1);
	atomic64_t b = ATOMIC64_INIT(0);
	atomic_long_t c = ATOMIC_LONG_INIT(5);

	atomic_inc(&a);
	CHECK(atomic_read(&a) == 2 && atomic_dec_and_test(&a) == false);
	CHECK(atomic_inc_return(&a) == 2 && atomic_cmpxchg(&a, 2, 7) == 2);
	atomic64_add(1ULL << 40, &b);
	CHECK(atomic64_read(&b) == 1LL << 40);
	CHECK(atomic_long_dec_return(&c) == 4 && atomic_inc_not_zero(&a));
	return 0;
}

/* The annotations of compiler_types.h and friends: sparse's, empty for gcc. */
static int __must_check annotated(const char __user *ubuf, void __iomem *io)
{
	unsigned long raw = (__force unsigned long)ubuf;
	__le32 le = cpu_to_le32(1);
	__be16 be = cpu_to_be16(0x102);

	if (likely(raw) && unlikely(!io))
		return le32_to_cpu(le) + be16_to_cpu(be) - 0x102 - 1;
	return READ_ONCE(raw) ? 0 : -1;
}

static int helpers(void)
{
	int v[] = { 3, 1, 2 };
	unsigned long long ull;
	char buf[8];
	bool yes;
	int x;
	u64 wide = 0x1234567887654321ULL;

	BUILD_BUG_ON(ARRAY_SIZE(v) != 3);
	static_assert(sizeof(u32) == 4);
	sort(v, ARRAY_SIZE(v), sizeof(v[0]), cmp_ints, NULL);
	CHECK(v[0] == 1 && v[2] == 3);
	CHECK(min(2, 3) == 2 && max_t(u8, 300, 4) == 44 && clamp(9, 0, 5) == 5);
	swap(v[0], v[1]);
	CHECK(v[0] == 2 && min3(4, 2, 3) == 2);
	swap(v[0], v[1]);
	CHECK(lower_32_bits(wide) == 0x87654321 && upper_32_bits(wide) == 0x12345678);
	CHECK(DIV_ROUND_UP(7, 2) == 4 && round_up(5, 4) == 8 && ALIGN(9, 8) == 16);
	CHECK(BIT(3) == 8 && GENMASK(3, 0) == 15 && is_power_of_2(16) && ilog2(16) == 4);
	CHECK(hweight32(0xf0) == 4 && fls(8) == 4 && __ffs(8) == 3);
	CHECK(!kstrtoint("-12", 10, &x) && x == -12 && !kstrtobool("on", &yes) && yes);
	CHECK(!kstrtoull("0x10", 0, &ull) && ull == 16 && kstrtouint("x", 10, (unsigned int *)&x));
	CHECK(strscpy(buf, "too long a string", sizeof(buf)) == -E2BIG && !strcmp(buf, "too lon"));
	CHECK(snprintf(buf, sizeof(buf), "%d", 42) == 2 && !strcmp(buf, "42"));
	CHECK(sysfs_streq("on\n", "on") && isdigit('7') && tolower('A') == 'a');
	CHECK(!strcmp(strim(strcpy(buf, " a ")), "a") && strnlen("abc", 2) == 2);
	CHECK(!strcmp(__stringify(12), "12") && !memchr_inv(buf + 7, buf[7], 1));
	CHECK(annotated((const char __user *)buf, NULL) == 0);
	CHECK(check_add_overflow(INT_MAX, 1, &x) && size_mul(SIZE_MAX, 2) == SIZE_MAX);
	x = 1;
	WARN_ON(x == 2);
	WARN_ON_ONCE(!x);
	BUG_ON(x != 1);
	return 0;
}

static ssize_t corpus_read(struct file *file, char __user *ubuf, size_t len, loff_t *pos)
{
	return simple_read_from_buffer(ubuf, len, pos, "data", 4);
}

static ssize_t corpus_write(struct file *file, const char __user *ubuf, size_t len,
			    loff_t *pos)
{
	char buf[8];
	int v;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (kstrtoint(buf, 0, &v))
		return -EINVAL;
	return len;
}

static const struct file_operations corpus_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = corpus_read,
	.write = corpus_write,
	.llseek = default_llseek,
	.release = NULL,
};

static int files(void)
{
	char out[4];
	char *user = (char *)((unsigned long)out ^ STANDIN_USER_TAG);
	struct inode inode = { .i_private = &corpus_list };
	struct file file = { .f_inode = &inode, .f_mode = FMODE_READ };
	loff_t pos = 2;
	struct dentry *d;

	CHECK(corpus_fops.open(&inode, &file) == 0 && file.private_data == &corpus_list);
	CHECK(corpus_fops.read(&file, (char __user *)user, 4, &pos) == 2 && pos == 4);
	CHECK(out[0] == 't' && corpus_fops.write(&file, (const char __user *)user, 2, &pos) == -EINVAL);
	CHECK(file_inode(&file) == &inode && noop_llseek(&file, 3, SEEK_SET) == 0);
	CHECK(fixed_size_llseek(&file, -1, SEEK_END, 4) == 3);
	CHECK(put_user(7, (int __user *)user) == 0 && *(int *)out == 7);
	d = debugfs_create_dir("corpus", NULL);
	debugfs_create_file("data", 0444, d, NULL, &corpus_fops);
	debugfs_remove_recursive(d);
	return 0;
}

static int corpus_notify(struct notifier_block *nb, unsigned long event, void *data)
{
	struct module *mod = data;

	if (event != MODULE_STATE_GOING || !within_module((unsigned long)mod, mod))
		return NOTIFY_DONE;
	pr_info("%s going\n", module_name(mod));
	return notifier_from_errno(0);
}

static struct notifier_block corpus_nb = { .notifier_call = corpus_notify };

static int modules(void)
{
	static struct module mod = { .name = "corpus" };

	mod.core_layout.base = &mod;
	mod.core_layout.size = sizeof(mod);
	CHECK(register_module_notifier(&corpus_nb) == 0);
	CHECK(harness_module_notifier->notifier_call(&corpus_nb, MODULE_STATE_GOING, &mod) ==
	      NOTIFY_OK);
	CHECK(unregister_module_notifier(&corpus_nb) == 0);
	return 0;
}

static int __init corpus_init(void)
{
	pr_info("init ran\n");
	return 0;
}
late_initcall(corpus_init);

static int __init corpus_setup(char *str)
{
	pr_notice("corpus=%s\n", str);
	return 1;
}
__setup("corpus=", corpus_setup);

int corpus(void)
{
	int (*const parts[])(void) = { lists, refs, allocations, error_pointers, locks,
				       atomics, helpers, files, modules };
	size_t i;
	int line;

	standin_run_initcalls(STANDIN_LATE);
	standin_kernel_param("corpus=1");
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		line = parts[i]();
		if (line)
			return line;
	}
	return harness_allocated ? -1 : 0;
}
EXPORT_SYMBOL(corpus);
