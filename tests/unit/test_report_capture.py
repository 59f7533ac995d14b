# SPDX-License-Identifier: GPL-2.0
"""report.capture_kernel: the whole-kernel capture shared out between
several geninfo processes gives the records one lcov --capture gives.

A program of 70 objects built with --coverage on the host and run once
stands in for a kernel's data (the kernel's .gcda files are read by the
same gcov).  Every object includes one header with a static inline
function, as kernel objects share headers, so that one source file has
records in every part.  The parts' records are compared with one
capture's, record by record, test names included."""

import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "vm"))

from gcovlablib import report  # noqa: E402

OBJECTS = 70


def records(path):
    """An lcov tracefile as geninfo writes it: a TN: line before each
    object's records, in an order Perl's hashes choose.  Returns the
    blocks, each (its TN: line, its records sorted), sorted."""
    blocks, current, tn = [], [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("TN:"):
                tn = line
                blocks.append([tn, []])
                continue
            assert blocks, "a record before the first TN: line in %s" % path
            current.append(line)
            if line.strip() == "end_of_record":
                blocks[-1][1].append("".join(current))
                current = []
    assert not current, "a record without end_of_record in %s" % path
    return sorted((tn, tuple(sorted(recs))) for tn, recs in blocks)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    if not (shutil.which("gcc") and shutil.which("geninfo")):
        pytest.skip("needs gcc and lcov (./setup.sh installs them)")
    d = tmp_path_factory.mktemp("capture")
    calls = []
    (d / "shared.h").write_text(
        "static inline int clamp(int x, int top)\n{\n\treturn x > top ? top : x;\n}\n")
    for i in range(OBJECTS):
        # a branch taken on some objects only, so that counts differ
        (d / ("f%02d.c" % i)).write_text(
            '#include "shared.h"\n'
            "int f%02d(int x)\n{\n\tif (x > %d)\n\t\treturn clamp(x - 1, 50);\n"
            "\treturn x + 1;\n}\n" % (i, i))
        calls.append("f%02d(argc * 35)" % i)
    (d / "main.c").write_text(
        "".join("int f%02d(int);\n" % i for i in range(OBJECTS)) +
        "int main(int argc, char **argv)\n{\n\tint s = 0;\n\n" +
        "".join("\ts += %s;\n" % c for c in calls) + "\treturn s == 0;\n}\n")
    sources = sorted(p.name for p in d.glob("*.c"))
    subprocess.run(["gcc", "--coverage", "-O0", "-o", "prog"] + sources,
                   cwd=d, check=True)
    subprocess.run([str(d / "prog")], cwd=d, check=True)
    gcda = sorted(str(p) for p in d.glob("*.gcda"))
    assert len(gcda) == OBJECTS + 1
    return d, gcda


def test_parts_are_consecutive_and_cover_every_file():
    files = ["%03d.gcda" % i for i in range(130)]
    parts = report.capture_parts(files, jobs=4)
    assert len(parts) == 4
    assert [f for part in parts for f in part] == files
    assert report.capture_parts(files[:report.PARALLEL_FROM - 1], jobs=4) == \
        [files[:report.PARALLEL_FROM - 1]]
    assert report.capture_parts(files, jobs=1) == [files]


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_parallel_capture_equals_one_lcov_capture(data, jobs, tmp_path):
    d, gcda = data
    one = tmp_path / "one.info"
    subprocess.run(["lcov", "--capture", "--quiet"] + report.BRANCHES +
                   ["--directory", str(d), "--test-name", "t", "--output-file", str(one)],
                   check=True, capture_output=True)
    parts = tmp_path / "parts.info"
    log = tmp_path / "log"
    report.capture_kernel(gcda, "t", str(parts), str(log), jobs=jobs)
    assert len(report.capture_parts(gcda, jobs)) == jobs
    want = records(one)
    # a block per object, named after the test; in each, a record of the
    # object's own source and (but main.c's) one of the shared header
    assert len(want) == OBJECTS + 1
    assert all(tn == "TN:t\n" for tn, _r in want)
    assert sum(len(recs) for _t, recs in want) == 2 * OBJECTS + 1
    assert sum("SF:%s\n" % (d / "shared.h") in r for _t, recs in want for r in recs) == OBJECTS
    assert records(parts) == want
    # and the branch records are there: the data has branches taken and not
    assert any(",0\n" in r or ",-\n" in r for _t, recs in want for r in recs if "BRDA:" in r)
    assert os.listdir(tmp_path) and not [n for n in os.listdir(tmp_path)
                                         if ".part" in n or n.endswith(".tmp")]
    assert log.read_text().count("$ geninfo ") == jobs


