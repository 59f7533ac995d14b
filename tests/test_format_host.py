# SPDX-License-Identifier: GPL-2.0
"""The series' .gcda writer (kernel/gcov/gcc_12.c, from patches/) against
GCC's own libgcov, on the host.

Each program is compiled once with the series' CFLAGS_GCOV and linked
twice: with libgcov, and with labs/lab06/harness/harness.c plus gcc_12.c in its
place.  libgcov's file, put into the kernel's form by
tools/gcda_normalise.py, must equal the series' file byte for byte,
and gcov must print the same line counts for both.  Covered: several
functions, a function that never runs, two objects, add (merge), reset.
"""

import os
import re
import subprocess

import pytest

from conftest import REPO

PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
HARNESS = os.path.join(REPO, "labs", "lab06", "harness")
NORMALISE = os.path.join(REPO, "tools", "gcda_normalise.py")
CFLAGS_GCOV = ["-fprofile-arcs", "-ftest-coverage", "-fno-tree-loop-im"]

PROG = r"""
#include <stdio.h>
#include <stdlib.h>
int helper(int n);
__attribute__((noinline)) static int never(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int loop(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (i % 3)
			s += i;
		else
			s -= 1;
	}
	return s;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	if (n < 0)
		return never(n);
	printf("%d %d\n", loop(n), helper(n));
	return 0;
}
"""

HELPER = r"""
__attribute__((noinline)) static int square(int x) { return x * x; }
int helper(int n)
{
	int t = 0;
	while (n-- > 0)
		t += (n & 1) ? square(n) : n;
	return t;
}
"""


def sh(cmd, cwd, env=None):
    proc = subprocess.run(cmd, cwd=cwd, text=True, capture_output=True, env=env)
    assert proc.returncode == 0, "%s\n%s%s" % (cmd, proc.stdout, proc.stderr)
    return proc.stdout


@pytest.fixture(scope="module")
def series_gcov(tmp_path_factory):
    """kernel/gcov/ as the series leaves it, from patches/ alone."""
    root = tmp_path_factory.mktemp("series")
    sh(["git", "init", "-q"], root)
    for patch in PATCHES:
        sh(["git", "apply", "--include=kernel/gcov/*", patch], root)
    gcov = root / "kernel" / "gcov"
    assert (gcov / "gcc_12.c").exists(), "no patch adds kernel/gcov/gcc_12.c"
    return gcov


@pytest.fixture(scope="module")
def build(series_gcov, tmp_path_factory):
    d = tmp_path_factory.mktemp("prog")
    (d / "prog.c").write_text(PROG)
    (d / "helper.c").write_text(HELPER)
    inc = ["-I", os.path.join(HARNESS, "shim"), "-I", str(series_gcov)]
    sh(["gcc", "-O2", "-Wall", "-Werror", *inc, "-c", str(series_gcov / "gcc_12.c"),
        "-o", "gcc_12.o"], d)
    sh(["gcc", "-O2", "-Wall", "-Werror", *inc, "-c",
        os.path.join(HARNESS, "harness.c"), "-o", "harness.o"], d)
    for name in ("prog", "helper"):
        sh(["gcc", "-O2", *CFLAGS_GCOV, "-c", name + ".c", "-o", name + ".o"], d)
    sh(["gcc", "-fprofile-arcs", "prog.o", "helper.o", "-o", "with-libgcov"], d)
    sh(["gcc", "-fprofile-arcs", "prog.o", "helper.o", "harness.o", "gcc_12.o",
        "-o", "with-series"], d)
    # The series' binary must not contain libgcov's entry points.
    syms = sh(["nm", "with-series"], d)
    assert "__gcov_dump" not in syms
    return d


def run(d, binary, arg, env=None, runs=1):
    for name in ("prog.gcda", "helper.gcda"):
        if (d / name).exists():
            (d / name).unlink()
    full = dict(os.environ)
    full.update(env or {})
    for _ in range(runs):
        sh(["./" + binary, str(arg)], d, env=full)
    return {name: (d / name).read_bytes() for name in ("prog.gcda", "helper.gcda")}


def normalised(d, data, name):
    src, dst = d / ("lib-" + name), d / ("norm-" + name)
    src.write_bytes(data)
    sh(["/usr/bin/python3", NORMALISE, str(src), str(dst)], d)
    return dst.read_bytes()


def gcov_lines(d, files):
    for name, data in files.items():
        (d / name).write_bytes(data)
    out = sh(["gcov", "-t", "prog.c", "helper.c"], d)
    return "\n".join(line for line in out.splitlines()
                     if not line.lstrip().startswith("-:    0:"))


@pytest.mark.parametrize("arg", [0, 7, 40])
def test_equal_to_libgcov(build, arg):
    lib = run(build, "with-libgcov", arg)
    ours = run(build, "with-series", arg)
    for name in lib:
        assert normalised(build, lib[name], name) == ours[name], name
    assert gcov_lines(build, lib) == gcov_lines(build, ours)


def test_never_run_function_is_written_in_full(build):
    ours = run(build, "with-series", 5)
    (build / "prog.gcda").write_bytes(ours["prog.gcda"])
    dump = sh(["gcov-dump", "-l", "prog.gcda"], build)
    assert dump.count("FUNCTION") == 3          # main, loop, never
    # The header's checksum word is the object's since v3, as libgcov's.
    lib = run(build, "with-libgcov", 5)
    want = int.from_bytes(lib["prog.gcda"][12:16], "little")
    assert want and "checksum %d\n" % want in dump
    assert "OBJECT_SUMMARY" not in dump
    assert "(all zero)" not in dump             # zeros written as values


def test_add_equals_two_libgcov_runs(build):
    # libgcov merges a second run into the file; the series' add() of a
    # duplicate must give the same numbers.
    lib = run(build, "with-libgcov", 9, runs=2)
    ours = run(build, "with-series", 9, env={"GCOVLAB_TWICE": "1"})
    for name in lib:
        assert normalised(build, lib[name], name) == ours[name], name


def test_reset_zeroes_every_counter(build):
    plain = run(build, "with-series", 9)
    reset = run(build, "with-series", 9, env={"GCOVLAB_RESET": "1"})
    for name in plain:
        assert len(reset[name]) == len(plain[name])
        assert reset[name] != plain[name]
        (build / name).write_bytes(reset[name])
        dump = sh(["gcov-dump", "-l", name], build)
        values = [v for m in re.finditer(r"^\S+:\s+\d+: ((?:-?\d+ ?)+)$", dump, re.M)
                  for v in m.group(1).split()]
        assert values and set(values) == {"0"}


def test_a_foreign_layout_is_not_read_as_ours(build):
    # Sanity of the comparison itself: a file with one counter changed
    # must not compare equal.
    lib = run(build, "with-libgcov", 7)
    ours = run(build, "with-series", 7)
    norm = bytearray(normalised(build, lib["prog.gcda"], "prog.gcda"))
    norm[-8] ^= 1
    assert bytes(norm) != ours["prog.gcda"]
