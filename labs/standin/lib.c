// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in kernel's library, kernel side: the functions the tree's
 * headers declare that are defined in the kernel's .c files, where the
 * host check cannot take the tree's own (vm/gcovlablib/standin.py compiles
 * the tree's lib/refcount.c, kstrtox.c, ctype.c, list_sort.c and sort.c
 * beside this file). The C library gives memcpy(), strcmp() and their kin. Written
 * for gcov-kernel-labs; not the kernel's code.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* printk(): to the stand-in's output (standin.c). */
int _printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = standin_vprintk(fmt, ap);
	va_end(ap);
	return n;
}

/* WARN()'s message: the same output. */
int __warn_printk(const char *fmt, ...) __alias(_printk);

char *kvasprintf(gfp_t gfp, const char *fmt, va_list ap)
{
	va_list again;
	char *p;
	int len;

	va_copy(again, ap);
	len = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	p = kmalloc(len + 1, gfp);
	if (p)
		vsnprintf(p, len + 1, fmt, ap);
	return p;
}

char *kasprintf(gfp_t gfp, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = kvasprintf(gfp, fmt, ap);
	va_end(ap);
	return p;
}

/* Copies of strings and memory (mm/util.c's). */
void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *p = kmalloc(len, gfp);

	if (p)
		memcpy(p, src, len);
	return p;
}

char *kmemdup_nul(const char *s, size_t len, gfp_t gfp)
{
	char *p;

	if (!s)
		return NULL;
	p = kmalloc(len + 1, gfp);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

char *kstrdup(const char *s, gfp_t gfp)
{
	return s ? kmemdup(s, strlen(s) + 1, gfp) : NULL;
}

char *kstrndup(const char *s, size_t max, gfp_t gfp)
{
	return s ? kmemdup_nul(s, strnlen(s, max), gfp) : NULL;
}

/* No .rodata to tell apart: always a copy. */
const char *kstrdup_const(const char *s, gfp_t gfp)
{
	return kstrdup(s, gfp);
}

void kfree_const(const void *x)
{
	kfree(x);
}

/* memdup_user() and vmemdup_user(): P is what their allocator gave. */
static void *filled_from_user(void *p, const void __user *src, size_t len,
			      void (*release)(const void *))
{
	if (!p)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(p, src, len)) {
		release(p);
		return ERR_PTR(-EFAULT);
	}
	return p;
}

void *memdup_user(const void __user *src, size_t len)
{
	return filled_from_user(kmalloc(len, GFP_USER), src, len, kfree);
}

void *vmemdup_user(const void __user *src, size_t len)
{
	return filled_from_user(kvmalloc(len, GFP_USER), src, len, kvfree);
}

void *memdup_user_nul(const void __user *src, size_t len)
{
	char *p = memdup_user(src, len + 1);

	if (!IS_ERR(p))
		p[len] = '\0';
	return p;
}

char *strndup_user(const char __user *s, long n)
{
	const char *k = standin_user_untag((__force const void *)s);
	long len = strnlen(k, n);

	if (len == n)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(s, len);
}

/* String helpers of lib/string.c and lib/string_helpers.c. */
ssize_t strscpy(char *dest, const char *src, size_t count)
{
	size_t len;

	if (!count)
		return -E2BIG;
	len = strnlen(src, count);
	if (len == count) {
		memcpy(dest, src, count - 1);
		dest[count - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dest, src, len + 1);
	return len;
}

ssize_t strscpy_pad(char *dest, const char *src, size_t count)
{
	ssize_t n = strscpy(dest, src, count);
	size_t used = n < 0 ? count : (size_t)n + 1;

	if (used < count)
		memset(dest + used, 0, count - used);
	return n;
}

size_t strlcpy(char *dest, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size ? len : size - 1;

		memcpy(dest, src, n);
		dest[n] = '\0';
	}
	return len;
}

size_t strlcat(char *dest, const char *src, size_t size)
{
	size_t used = strnlen(dest, size);

	if (used == size)
		return size + strlen(src);
	return used + strlcpy(dest + used, src, size - used);
}

char *skip_spaces(const char *str)
{
	while (isspace(*str))
		str++;
	return (char *)str;
}

char *strim(char *s)
{
	size_t len = strlen(s);

	while (len && isspace(s[len - 1]))
		s[--len] = '\0';
	return skip_spaces(s);
}

char *strreplace(char *s, char old, char new)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == old)
			*p = new;
	return p;
}

void *memchr_inv(const void *start, int c, size_t bytes)
{
	const unsigned char *p = start;

	for (; bytes; p++, bytes--)
		if (*p != (unsigned char)c)
			return (void *)p;
	return NULL;
}

bool sysfs_streq(const char *s1, const char *s2)
{
	while (*s1 && *s1 == *s2) {
		s1++;
		s2++;
	}
	if (*s1 == *s2)
		return true;
	if (!*s1 && *s2 == '\n' && !s2[1])
		return true;
	return *s1 == '\n' && !s1[1] && !*s2;
}

int match_string(const char * const *array, size_t n, const char *string)
{
	size_t i;

	for (i = 0; i < n && array[i]; i++)
		if (!strcmp(array[i], string))
			return i;
	return -EINVAL;
}

int __sysfs_match_string(const char * const *array, size_t n, const char *str)
{
	size_t i;

	for (i = 0; i < n && array[i]; i++)
		if (sysfs_streq(array[i], str))
			return i;
	return -EINVAL;
}

/*
 * The VFS's helpers for handlers (fs/libfs.c, fs/read_write.c).  Each
 * moves the bytes of a COUNT-byte access at *PPOS that fall in a buffer of
 * AVAILABLE bytes: span_in_buffer() says how many (negative for a bad
 * position; 0 past the end, or for an empty access).
 */
static ssize_t span_in_buffer(loff_t pos, size_t count, size_t available)
{
	if (pos < 0)
		return -EINVAL;
	if (pos >= available || !count)
		return 0;
	return min_t(size_t, count, available - pos);
}

ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available)
{
	ssize_t n = span_in_buffer(*ppos, count, available);

	if (n <= 0)
		return n;
	if (copy_to_user(to, from + *ppos, n))
		return -EFAULT;
	*ppos += n;
	return n;
}

ssize_t simple_write_to_buffer(void *to, size_t available, loff_t *ppos,
			       const void __user *from, size_t count)
{
	ssize_t n = span_in_buffer(*ppos, count, available);

	if (n <= 0)
		return n;
	if (copy_from_user(to + *ppos, from, n))
		return -EFAULT;
	*ppos += n;
	return n;
}

ssize_t memory_read_from_buffer(void *to, size_t count, loff_t *ppos,
				const void *from, size_t available)
{
	ssize_t n = span_in_buffer(*ppos, count, available);

	if (n <= 0)
		return n;
	memcpy(to, from + *ppos, n);
	*ppos += n;
	return n;
}

loff_t generic_file_llseek_size(struct file *file, loff_t offset, int whence,
				loff_t maxsize, loff_t eof)
{
	switch (whence) {
	case SEEK_SET:
		break;
	case SEEK_CUR:
		if (!offset)
			return file->f_pos;
		offset += file->f_pos;
		break;
	case SEEK_END:
		offset += eof;
		break;
	default:
		return -EINVAL;
	}
	if (offset < 0 || offset > maxsize)
		return -EINVAL;
	file->f_pos = offset;
	return offset;
}

loff_t fixed_size_llseek(struct file *file, loff_t offset, int whence, loff_t size)
{
	return generic_file_llseek_size(file, offset, whence, size, size);
}

loff_t no_seek_end_llseek(struct file *file, loff_t offset, int whence)
{
	if (whence == SEEK_END)
		return -EINVAL;
	return generic_file_llseek_size(file, offset, whence, MAX_LFS_FILESIZE, 0);
}

loff_t generic_file_llseek(struct file *file, loff_t offset, int whence)
{
	return generic_file_llseek_size(file, offset, whence, MAX_LFS_FILESIZE,
					file->f_inode ? i_size_read(file->f_inode) : 0);
}

loff_t default_llseek(struct file *file, loff_t offset, int whence)
{
	return generic_file_llseek(file, offset, whence);
}

loff_t noop_llseek(struct file *file, loff_t offset, int whence)
{
	return file->f_pos;
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (s) {
		s->size = size;
		s->name = name;
	}
	return s;
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	kfree(s);
}
