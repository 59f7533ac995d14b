# SPDX-License-Identifier: GPL-2.0
"""gcovjson.capture, the tracefile made from gcov's JSON with one gcov for
many objects, writes the records lcov's geninfo writes for the same
objects: compared record by record, TN: lines counted, branches included.

The objects are compiled and run on the host by the real gcc and g++,
each with what a kernel object's data can hold and more: a header shared
by several objects, a source named by a relative path with '..' in it,
branches never reached (gcov's unexecuted blocks), a line reported twice
(a C++ template instantiated twice), exceptional branches (C++ throw),
lcov's exclusion markers (which the kernel's sources do not use) and a
source that is gone by the time of the report.  The same comparison on a
real whole-kernel run is in tests/labs/test_lab09_all.py."""

import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "vm"))

from gcovlablib import gcovjson, report  # noqa: E402
from gcovlablib.util import GcovlabError  # noqa: E402

SHARED = "static inline int twice(int x)\n{\n\treturn x > 100 ? x : 2 * x;\n}\n"

MARKED = r"""#include "shared.h"
int marked(int x)
{
	int y = 0;

	if (x > 3)		/* LCOV_EXCL_BR_LINE */
		y = 1;
	if (x < -5)
		y = 2;		/* LCOV_EXCL_LINE */
	/* LCOV_EXCL_START */
	if (x == 42)
		y = 3;
	/* LCOV_EXCL_STOP */
	/* LCOV_EXCL_BR_START */
	if (x == 43)
		y = 4;
	/* LCOV_EXCL_BR_STOP */
	return y + twice(x);
}

int unused(int x)		/* LCOV_EXCL_LINE */
{
	return x * 3;
}
"""

PLAIN = r"""#include "../shared.h"
int plain(int x)
{
	int i, s = 0;

	for (i = 0; i < x; i++)
		if (i % 3 == 0 && i != 7)
			s += twice(i);
	if (x > 1000) {
		if (x & 1)
			s = -1;
		else
			s = -2;
	}
	return s;
}
"""

THROWS = r"""#include <stdexcept>
template <typename T> T pick(T a, T b)
{
	return a > b ? a : b;
}

static int check(int x)
{
	if (x > 5)
		throw std::runtime_error("big");
	return x;
}

extern "C" int throws(int x)
{
	int r = 0;

	try {
		r = check(x) + pick(x, 2) + (int)pick(1.5, (double)x);
	} catch (const std::exception &) {
		r = -1;
	}
	return r;
}
"""

GONE = "int gone(int x)\n{\n\treturn x ? 1 : 0;\n}\n"

MAIN = r"""int marked(int); int plain(int); int throws(int); int gone(int);
int main(int argc, char **argv)
{
	(void)argv;
	return (marked(argc + 3) + plain(argc * 10) + throws(argc) + throws(argc + 9) +
		gone(argc)) == 12345;
}
"""


def tracefile(path):
    """(number of TN: lines, the records sorted)."""
    tests, records = gcovjson.tracefile_records(path)
    assert list(tests) == ["TN:t\n"], tests
    return tests["TN:t\n"], records


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    for tool in ("gcc", "g++", "geninfo", "gcov"):
        if not shutil.which(tool):
            pytest.skip("needs gcc, g++, gcov and lcov (./setup.sh installs them)")
    d = tmp_path_factory.mktemp("gcovjson")
    (d / "lib").mkdir()
    (d / "sub").mkdir()
    (d / "shared.h").write_text(SHARED)
    (d / "marked.c").write_text(MARKED)
    (d / "lib" / "plain.c").write_text(PLAIN)
    (d / "throws.cc").write_text(THROWS)
    (d / "gone.c").write_text(GONE)
    (d / "main.c").write_text(MAIN)

    def cc(*args):
        subprocess.run(list(args), cwd=d, check=True)
    cc("gcc", "--coverage", "-O0", "-c", "marked.c", "-o", "marked.o")
    # named through sub/..: the .gcno keeps the path as written (gcc itself
    # takes out "./" and "//")
    cc("gcc", "--coverage", "-O0", "-c", "sub/../lib/plain.c", "-o", "plain.o")
    cc("g++", "--coverage", "-O0", "-c", "throws.cc", "-o", "throws.o")
    cc("gcc", "--coverage", "-O0", "-c", "gone.c", "-o", "gone.o")
    cc("gcc", "--coverage", "-O0", "-c", "main.c", "-o", "main.o")
    cc("g++", "--coverage", "-o", "prog", "marked.o", "plain.o", "throws.o", "gone.o", "main.o")
    subprocess.run([str(d / "prog")], cwd=d, check=False)
    os.remove(d / "gone.c")
    gcda = sorted(str(p) for p in d.glob("*.gcda"))
    assert len(gcda) == 5
    return d, gcda


def both(gcda, tmp_path, jobs):
    """geninfo's tracefile and gcovjson's, with what each said."""
    old, new = tmp_path / "geninfo.info", tmp_path / "gcovjson.info"
    said_old = report.capture_kernel(gcda, "t", str(old), str(tmp_path / "old.log"), jobs=1)
    said_new = gcovjson.capture(gcda, "t", str(new), str(tmp_path / "new.log"), jobs=jobs)
    return (tracefile(old), said_old), (tracefile(new), said_new)


@pytest.mark.parametrize("jobs", [1, 2])
def test_same_records_as_geninfo(data, tmp_path, jobs):
    d, gcda = data
    (old, said_old), (new, said_new) = both(gcda, tmp_path, jobs)
    assert new == old
    tns, records = new
    assert tns == len(gcda)
    text = "".join(records)
    # what the comparison covered, seen in geninfo's own records
    assert "SF:%s\n" % (d / "lib" / "plain.c") in text            # sub/.. taken out
    assert text.count("SF:%s\n" % (d / "shared.h")) == 2          # one record per object
    assert ",-\n" in text and ",0\n" in text                      # unexecuted, not taken
    marked = [r for r in records if r.startswith("SF:%s\n" % (d / "marked.c"))][0]
    assert "DA:8," in marked and "DA:9," not in marked            # LCOV_EXCL_LINE
    assert "DA:11," not in marked and "DA:12," not in marked      # START..STOP
    assert "BRDA:6," not in marked and "BRDA:8," in marked        # LCOV_EXCL_BR_LINE
    assert "DA:15," in marked and "BRDA:15," not in marked        # BR_START..STOP
    assert "FN:21," not in marked and "DA:23," in marked          # a function's line
    assert "FN:2,marked\n" in marked
    throws = [r for r in records if r.startswith("SF:%s\n" % (d / "throws.cc"))][0]
    da = [line.split(",")[0] for line in throws.split("\n") if line.startswith("DA:")]
    assert len(da) > len(set(da))                                 # a line twice
    assert throws.count("BRDA:") > 8                              # throw's branches too
    # the source that is gone: both warn, both still write its record
    assert any("gone.c" in line for line in said_old)
    assert any("gone.c" in line for line in said_new)
    assert "SF:%s\n" % (d / "gone.c") in text


def test_gcov_exceptional_branches_are_there(data):
    """gcov marks C++'s exceptional branches (throw), and geninfo keeps
    them; the test above sees them only as counts, so look at the JSON."""
    _d, gcda = data
    result = gcovjson.part_records([g for g in gcda if g.endswith("throws.gcda")], "t")
    assert result["rc"] == 0 and result["text"]
    proc = subprocess.run(gcovjson.GCOV + [g for g in gcda if g.endswith("throws.gcda")],
                          capture_output=True, text=True, check=True)
    doc = next(gcovjson.documents(proc.stdout))
    assert any(b["throw"] for f in doc["files"] for line in f["lines"]
               for b in line["branches"])


@pytest.mark.parametrize("way", ["gcov", "geninfo"])
def test_a_failing_capture_is_an_error_and_leaves_no_tracefile(data, tmp_path, way):
    """Both ways of making the tracefile stop at a file that is not there,
    and leave neither the tracefile nor a part of it."""
    _d, gcda = data
    info = tmp_path / "k.info"
    capture = gcovjson.capture if way == "gcov" else report.capture_kernel
    with pytest.raises(GcovlabError, match="%s failed .* to .*missing.gcda" % way):
        capture(gcda + [str(tmp_path / "missing.gcda")], "t", str(info),
                str(tmp_path / "log"), jobs=2)
    assert not info.exists()
    assert not [n for n in os.listdir(tmp_path) if ".part" in n or n.endswith(".tmp")]
    if way == "gcov":
        assert "missing.gcno" in (tmp_path / "log").read_text()


def test_parts_are_consecutive_and_cover_every_file():
    files = ["%03d.gcda" % i for i in range(11)]
    for jobs in (1, 2, 3, 4, 20):
        parts = gcovjson.parts_of(files, jobs)
        assert [f for part in parts for f in part] == files
        assert len(parts) == min(jobs, len(files))
