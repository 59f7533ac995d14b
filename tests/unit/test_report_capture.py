# SPDX-License-Identifier: GPL-2.0
"""report.capture_kernel: the whole-kernel capture shared out between
several geninfo processes gives the records one lcov --capture gives.

A program of 70 objects built with --coverage on the host and run once
stands in for a kernel's data (the kernel's .gcda files are read by the
same gcov); the parts' records are compared with one capture's, record by
record."""

import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "vm"))

from gcovlablib import report  # noqa: E402
from gcovlablib.util import GcovlabError  # noqa: E402

OBJECTS = 70


def records(path):
    """The records of an lcov tracefile, test names left out, sorted."""
    out, current = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("TN:"):
                continue
            current.append(line)
            if line.strip() == "end_of_record":
                out.append("".join(current))
                current = []
    assert not current, "a record without end_of_record in %s" % path
    return sorted(out)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    if not (shutil.which("gcc") and shutil.which("geninfo")):
        pytest.skip("needs gcc and lcov (./setup.sh installs them)")
    d = tmp_path_factory.mktemp("capture")
    calls = []
    for i in range(OBJECTS):
        # a branch taken on some objects only, so that counts differ
        (d / ("f%02d.c" % i)).write_text(
            "int f%02d(int x)\n{\n\tif (x > %d)\n\t\treturn x - 1;\n\treturn x + 1;\n}\n"
            % (i, i))
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
    assert len(want) == OBJECTS + 1
    assert records(parts) == want
    # and the branch records are there: the data has branches taken and not
    assert any(",0\n" in r or ",-\n" in r for r in want if "BRDA:" in r)
    assert os.listdir(tmp_path) and not [n for n in os.listdir(tmp_path)
                                         if ".part" in n or n.endswith(".tmp")]
    assert log.read_text().count("$ geninfo") == jobs


def test_a_failing_part_is_an_error_and_leaves_no_tracefile(data, tmp_path):
    _d, gcda = data
    info = tmp_path / "k.info"
    # geninfo stops at a file that is not there
    with pytest.raises(GcovlabError, match="geninfo failed"):
        report.capture_kernel(gcda + [str(tmp_path / "missing.gcda")], "t", str(info),
                              str(tmp_path / "log"), jobs=2)
    assert not info.exists()
    assert not [n for n in os.listdir(tmp_path) if ".part" in n or n.endswith(".tmp")]
