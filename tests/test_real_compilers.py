# SPDX-License-Identifier: GPL-2.0
"""A module compiled by Debian's gcc-11 (labs/lab05/gcc11, Lab 5's step 4), loaded into
a kernel built by GCC 12: the series and mainline 6.1 side by side.

- The series (Lab 5's kernel) refuses the object at load, by name, with
  the GCC release it decoded from the version word, and registers
  nothing of it.
- Mainline 6.1 registers it: it prints the version word and nothing more,
  and debugfs exports a .gcda written in GCC 12's format (a checksum word
  in the header, record lengths in bytes) with GCC 11's version word.
  GCC 12's gcov refuses the module's .gcno ("version 'B13*', prefer
  'B22*'"), and gcov-11, given the file next to its .gcno, reports every
  line as never run without a word of warning, although the module's
  init ran.  Measured here, not assumed.

Two boots of kernels that make check builds anyway: seconds each.
"""

import os
import re
import shutil
import struct
import subprocess

from conftest import REPO, gcovlab, other_compiler

MODULE = os.path.join(REPO, "labs", "lab05", "gcc11")
WORKLOAD = os.path.join(MODULE, "workload.sh")
GCC_11_VERSION = re.compile(r"0x4231(3[0-9])2a")      # "B1x*": GCC 11.x


def console(out):
    with open(os.path.join(out, "console.log"), encoding="utf-8", errors="replace") as f:
        return f.read()


def test_the_series_refuses_a_gcc_11_module_by_name(tmp_path):
    other_compiler("gcc-11", "gcov-11")
    out = tmp_path / "series"
    proc = gcovlab("run", "--lab", "5", "--module", MODULE, "--workload", WORKLOAD,
                   "--out", out)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    with open(out / "build" / ".gcc11.o.cmd", encoding="utf-8") as f:
        assert f.readline().split(" := ", 1)[1].startswith("gcc-11 "), "not built by gcc-11"
    log = console(out)
    m = re.search(r"gcov: (\S+)/gcc11\.gcda: data version (0x[0-9a-f]{8}) \(GCC (11\.\d)\), "
                  r"this kernel reads GCC 12 data only: not registered", log)
    assert m, log[-3000:]
    assert GCC_11_VERSION.match(m.group(2)) and m.group(1) == str(out / "build")
    assert "registered %s/gcc11.gcda" % (out / "build") not in log
    assert "gcc11: loaded" in log and "gcc11: unloaded" in log


def test_mainline_takes_gcc_11_data_that_no_gcov_reads(tmp_path):
    other_compiler("gcc-11", "gcov-11")
    out = tmp_path / "mainline"
    proc = gcovlab("run", "--mainline", "--module", MODULE, "--workload", WORKLOAD,
                   "--out", out)
    log = console(out)
    # Registered: only the version word is printed, no refusal.
    assert re.search(r"version magic: 0x4231(3[0-9])2a", log), log[-3000:]
    assert "not registered" not in log and "gcc11: loaded" in log
    # The report fails: gcov 12 will not read gcc-11's notes file.
    assert proc.returncode != 0
    assert "version 'B13*', prefer 'B22*'" in proc.stdout + proc.stderr
    # The file debugfs gave: GCC 11's version word in GCC 12's layout.
    gcda = os.path.join(out, "gcda") + str(out / "build" / "gcc11.gcda")
    with open(gcda, "rb") as f:
        data = f.read()
    magic, version, _stamp, checksum, tag, length = struct.unpack_from("<6I", data)
    assert (magic, tag) == (0x67636461, 0x01000000)
    assert GCC_11_VERSION.match("0x%08x" % version)
    assert checksum == 0 and length == 12          # GCC 12: a checksum word, bytes
    # gcov-11 beside the .gcno: every line "never run", and no warning.
    build = out / "build"
    shutil.copy(gcda, build / "gcc11.gcda")
    gcov = subprocess.run(["gcov-11", "-n", "gcc11.c"], cwd=build, text=True,
                          capture_output=True)
    assert re.search(r"Lines executed:0\.00% of \d+", gcov.stdout), gcov.stdout + gcov.stderr
