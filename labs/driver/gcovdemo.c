// SPDX-License-Identifier: GPL-2.0
/*
 * gcovdemo - a tiny reverse-Polish calculator behind /dev/gcovdemo
 *
 * The labs of gcov-kernel-labs measure the coverage of this driver.  It is
 * small enough to read in one sitting and has branches that a workload can
 * choose to take or to miss: a token parser, four operators, stack
 * overflow and underflow, division by zero and unknown input.
 *
 * Write a line of whitespace-separated tokens:
 *
 *   integers         are pushed on the stack (decimal, 0x hex, 0 octal)
 *   + - * /          pop two values, push the result
 *   dup drop clear   duplicate the top value, drop it, empty the stack
 *
 * Processing stops at the first bad token; the write then fails with
 * EINVAL (unknown token), ENOSPC (stack full), ENODATA (stack too short),
 * EDOM (division by zero) or E2BIG (line too long).  Read returns the
 * stack, bottom first, for example "depth 2: 5 7\n".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define GCOVDEMO_DEPTH	8
#define GCOVDEMO_LINE	128

struct gcovdemo_calc {
	long stack[GCOVDEMO_DEPTH];
	int depth;
	unsigned long errors;
};

static struct gcovdemo_calc calc;
static DEFINE_MUTEX(calc_lock);

static int calc_push(long value)
{
	if (calc.depth == GCOVDEMO_DEPTH)
		return -ENOSPC;
	calc.stack[calc.depth++] = value;
	return 0;
}

static long calc_pop(void)
{
	return calc.stack[--calc.depth];
}

static int calc_apply(char op)
{
	long a, b, result;

	if (calc.depth < 2)
		return -ENODATA;
	b = calc_pop();
	a = calc_pop();

	switch (op) {
	case '+':
		result = a + b;
		break;
	case '-':
		result = a - b;
		break;
	case '*':
		result = a * b;
		break;
	default:
		if (b == 0) {
			/* Leave the stack as it was before the token. */
			calc_push(a);
			calc_push(b);
			return -EDOM;
		}
		result = a / b;
		break;
	}
	return calc_push(result);
}

static int calc_token(const char *tok)
{
	long value;

	if (tok[0] && !tok[1] && strchr("+-*/", tok[0]))
		return calc_apply(tok[0]);
	if (!strcmp(tok, "dup")) {
		if (calc.depth == 0)
			return -ENODATA;
		return calc_push(calc.stack[calc.depth - 1]);
	}
	if (!strcmp(tok, "drop")) {
		if (calc.depth == 0)
			return -ENODATA;
		calc.depth--;
		return 0;
	}
	if (!strcmp(tok, "clear")) {
		calc.depth = 0;
		return 0;
	}
	if (kstrtol(tok, 0, &value) == 0)
		return calc_push(value);
	return -EINVAL;
}

static ssize_t gcovdemo_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char line[GCOVDEMO_LINE];
	char *cursor = line;
	char *tok;
	int err = 0;

	if (len >= sizeof(line))
		return -E2BIG;
	if (copy_from_user(line, ubuf, len))
		return -EFAULT;
	line[len] = '\0';

	mutex_lock(&calc_lock);
	while ((tok = strsep(&cursor, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		err = calc_token(tok);
		if (err) {
			calc.errors++;
			pr_info("token '%s' rejected (%d)\n", tok, err);
			break;
		}
	}
	mutex_unlock(&calc_lock);

	return err ? err : len;
}

static ssize_t gcovdemo_read(struct file *file, char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char text[32 + GCOVDEMO_DEPTH * 22];
	int n, i;

	mutex_lock(&calc_lock);
	n = scnprintf(text, sizeof(text), "depth %d:", calc.depth);
	for (i = 0; i < calc.depth; i++)
		n += scnprintf(text + n, sizeof(text) - n, " %ld",
			       calc.stack[i]);
	mutex_unlock(&calc_lock);
	n += scnprintf(text + n, sizeof(text) - n, "\n");

	return simple_read_from_buffer(ubuf, len, ppos, text, n);
}

static const struct file_operations gcovdemo_fops = {
	.owner	= THIS_MODULE,
	.read	= gcovdemo_read,
	.write	= gcovdemo_write,
	.llseek	= no_llseek,
};

static struct miscdevice gcovdemo_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "gcovdemo",
	.fops	= &gcovdemo_fops,
	.mode	= 0666,
};

static int __init gcovdemo_init(void)
{
	int err = misc_register(&gcovdemo_dev);

	if (err)
		return err;
	pr_info("ready: /dev/%s\n", gcovdemo_dev.name);
	return 0;
}

static void __exit gcovdemo_exit(void)
{
	misc_deregister(&gcovdemo_dev);
	pr_info("unloaded after %lu rejected tokens\n", calc.errors);
}

module_init(gcovdemo_init);
module_exit(gcovdemo_exit);

MODULE_DESCRIPTION("Reverse-Polish calculator for gcov coverage labs");
MODULE_AUTHOR("gcov-kernel-labs <maintainers@gcov-kernel-labs.invalid>");
MODULE_LICENSE("GPL");
