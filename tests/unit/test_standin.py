# SPDX-License-Identifier: GPL-2.0
"""The stand-in kernel of the host checks of Labs 5, 6 and 7
(vm/gcovlablib/standin.py, labs/standin): ordinary kernel code compiles,
links and runs against it and the tree's own headers (a corpus of the
helpers a student reaches for); its allocator behaves as the kernel's
where a student's bug depends on it; and a name it lacks is a failed check
that says so and names the file, never a tool error.  No kernel build:
the mainline tree's headers; gcc with AddressSanitizer, seconds."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import checks, standin  # noqa: E402

CORPUS = os.path.join(REPO, "tests", "data", "standin", "corpus.c")
ASAN = ["-g", "-O0", "-fsanitize=address"]

# The host side of a test program: what a harness would give.
MAIN = r"""
#include <stdio.h>
#include "standin.h"

int run(void);

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	return (struct dentry *)1;
}

struct dentry *debugfs_create_file(const char *name, unsigned short mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops)
{
	return (struct dentry *)2;
}

struct dentry *debugfs_create_file_unsafe(const char *name, unsigned short mode,
					  struct dentry *parent, void *data,
					  const struct file_operations *fops)
{
	return (struct dentry *)2;
}

void debugfs_remove(struct dentry *d)
{
}

int main(void)
{
	printf("result %d\n", run());
	return 0;
}
"""


def built(tmp_path, headers, kernel_side):
    (tmp_path / "main.c").write_text(MAIN)
    return standin.build(headers, kernel_side, [str(tmp_path / "main.c")], str(tmp_path),
                         ASAN)


def test_a_corpus_of_ordinary_kernel_code_compiles_and_runs(tmp_path, kernel_headers):
    (tmp_path / "run.c").write_text('#include <linux/export.h>\nint corpus(void);\n'
                                    'int run(void)\n{\n\treturn corpus();\n}\n')
    errors, prog = built(tmp_path, kernel_headers, [CORPUS, str(tmp_path / "run.c")])
    assert errors is None, errors[-3000:]
    out = subprocess.run([prog], capture_output=True, text=True, timeout=30)
    # result N: the line of corpus.c whose check failed
    assert out.stdout.splitlines()[-1:] == ["result 0"], out.stdout + out.stderr


ALLOCATIONS = r"""
#include <linux/slab.h>
#include <linux/printk.h>

static int count(const unsigned char *p, size_t n, unsigned char byte)
{
	size_t i;
	int k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == byte;
	return k;
}

int run(void)
{
	unsigned char *a = kmalloc(64, GFP_KERNEL);
	unsigned char *b = kzalloc(64, GFP_KERNEL);
	unsigned char *c = kvmalloc(16, GFP_KERNEL);
	unsigned char *d = kcalloc(4, 4, GFP_KERNEL);

	pr_info("kmalloc 0x5a %d\n", count(a, 64, 0x5a));
	pr_info("kzalloc 0 %d\n", count(b, 64, 0));
	pr_info("kvmalloc 0x5a %d\n", count(c, 16, 0x5a));
	pr_info("kcalloc 0 %d\n", count(d, 16, 0));
	pr_info("allocated %ld\n", harness_allocated);
	kfree(a);
	kfree(b);
	kvfree(c);
	kfree(d);
	pr_info("after kfree %ld\n", harness_allocated);
	harness_failing_allocs = 1;
	harness_allocs_before_failing = 1;
	a = kmalloc(8, GFP_KERNEL);
	b = kmalloc(8, GFP_KERNEL);
	c = kmalloc(8, GFP_KERNEL);
	pr_info("let through %d failed %d next %d allocated %ld\n",
		a != NULL, b == NULL, c != NULL, harness_allocated);
	kfree(a);
	kfree(c);
	harness_failing_allocs = 1;
	a = kmalloc(8, GFP_KERNEL | __GFP_NOFAIL);
	harness_failing_allocs = 0;
	pr_info("nofail %d zero %d\n", a != NULL, kmalloc(0, GFP_KERNEL) == ZERO_SIZE_PTR);
	kfree(a);
	a = kvmalloc(8, GFP_KERNEL);
	kfree(a);
	return 0;
}
"""


def test_allocations_behave_as_the_kernels(tmp_path, kernel_headers):
    (tmp_path / "alloc.c").write_text(ALLOCATIONS)
    errors, prog = built(tmp_path, kernel_headers, [str(tmp_path / "alloc.c")])
    assert errors is None, errors[-3000:]
    out = subprocess.run([prog], capture_output=True, text=True, timeout=30).stdout
    assert out.splitlines() == [
        "info: kmalloc 0x5a 64",      # every byte poisoned, as slub_debug's POISON_INUSE
        "info: kzalloc 0 64",
        "info: kvmalloc 0x5a 16",
        "info: kcalloc 0 16",
        "info: allocated 4",
        "info: after kfree 0",
        "info: let through 1 failed 1 next 1 allocated 2",
        "info: nofail 1 zero 1",
        # the kernel oopses on kfree() of vmalloc'd memory
        "H: FAIL kfree() of memory that kvmalloc() or vmalloc() gave: free it with kvfree() "
        "or vfree()",
    ], out


def lacking_check(tmp_path, headers, body):
    (tmp_path / "fs.c").write_text("#include <linux/debugfs.h>\n#include <linux/string.h>\n"
                                   "int run(void)\n{\n%s\n}\n" % body)
    errors, prog = built(tmp_path, headers, [str(tmp_path / "fs.c")])
    assert prog is None
    return checks.compile_failure(errors, "fs.c compiles", {
        str(tmp_path / "fs.c"): "kernel/gcov/fs.c"}, headers)


def test_a_name_the_stand_in_lacks_is_a_failed_check_naming_it(tmp_path, kernel_headers):
    # an undeclared function of the kernel's debugfs.h; a function that
    # string.h declares and nothing defines on the host
    for body, name, line in (
            ("\tu32 v;\n\n\tdebugfs_create_u32(\"v\", 0400, NULL, &v);\n\treturn 0;",
             "debugfs_create_u32", 7),
            ("\treturn strnstr(\"abc\", \"b\", 3) != NULL;", "strnstr", 5)):
        check = lacking_check(tmp_path, kernel_headers, body)
        assert not check.passed and check.todo is None
        assert check.detail.startswith(
            "kernel/gcov/fs.c:%d: the lab's stand-in kernel does not have %s: tell your "
            "instructor" % (line, name)), check.detail


def test_a_name_the_kernel_lacks_too_is_the_students_error(tmp_path, kernel_headers):
    check = lacking_check(tmp_path, kernel_headers, "\treturn lsit_empty(NULL);")
    assert "stand-in" not in check.detail
    assert "line 5 of kernel/gcov/fs.c" in check.detail and "lsit_empty" in check.detail
