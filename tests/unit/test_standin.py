# SPDX-License-Identifier: GPL-2.0
"""The stand-in kernel of labs/standin, which the host checks of Labs 5 and
7 compile a student's kernel code against, behaves as the kernel does where
a student's bug depends on it: kmalloc() memory is not zeroed, kzalloc()'s
is, allocations are counted, and one made to fail returns NULL and counts
nothing.  No kernel; gcc with AddressSanitizer, a second."""

import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDIN = os.path.join(REPO, "labs", "standin")

PROGRAM = r"""
#include <linux/slab.h>

void harness_fail(const char *why)
{
	printf("harness_fail: %s\n", why);
	exit(3);
}

static int count(const unsigned char *p, size_t n, unsigned char byte)
{
	size_t i;
	int k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == byte;
	return k;
}

int main(void)
{
	unsigned char *a = kmalloc(64, GFP_KERNEL);
	unsigned char *b = kzalloc(64, GFP_KERNEL);
	unsigned char *c = kvmalloc(16, GFP_KERNEL);
	unsigned char *d = kcalloc(4, 4, GFP_KERNEL);

	printf("kmalloc 0x5a %d\n", count(a, 64, 0x5a));
	printf("kzalloc 0 %d\n", count(b, 64, 0));
	printf("kvmalloc 0x5a %d\n", count(c, 16, 0x5a));
	printf("kcalloc 0 %d\n", count(d, 16, 0));
	printf("allocated %ld\n", harness_allocated);
	kfree(a);
	kfree(b);
	kvfree(c);
	kfree(d);
	printf("after kfree %ld\n", harness_allocated);
	harness_failing_allocs = 1;
	harness_allocs_before_failing = 1;
	a = kmalloc(8, GFP_KERNEL);
	b = kmalloc(8, GFP_KERNEL);
	c = kmalloc(8, GFP_KERNEL);
	printf("let through %d failed %d next %d allocated %ld\n",
	       a != NULL, b == NULL, c != NULL, harness_allocated);
	kfree(a);
	kfree(c);
	return 0;
}
"""


def test_allocations_behave_as_the_kernels(tmp_path):
    src = tmp_path / "t.c"
    src.write_text(PROGRAM)
    prog = tmp_path / "t"
    subprocess.run(["gcc", "-std=gnu11", "-fsanitize=address", "-I", STANDIN, "-o", str(prog),
                    str(src), os.path.join(STANDIN, "standin.c")], check=True)
    out = subprocess.run([str(prog)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "kmalloc 0x5a 64",      # every byte poisoned, as slub_debug's POISON_INUSE
        "kzalloc 0 64",
        "kvmalloc 0x5a 16",
        "kcalloc 0 16",
        "allocated 4",
        "after kfree 0",
        "let through 1 failed 1 next 1 allocated 2",
    ], out
