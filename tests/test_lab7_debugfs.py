# SPDX-License-Identifier: GPL-2.0
"""Lab 7: the series' debugfs export (patches 0001-0006).

- mainline equality: the sample driver's .gcda from the Lab 7 kernel is
  byte-identical to mainline's (same build path, same -frandom-seed);
- reads with chunk sizes 1, 7 and 4096 and from an offset give the same
  bytes; a write zeroes the counters; the file is mode 0600;
- persistence: after rmmod the file stays (a ghost), and two more
  load/unload cycles add up: the counts equal three single runs.
"""

import os
import re
import subprocess

import pytest

from conftest import DATA, DRIVER, gcovlab, ok

LAB7 = os.path.join(DATA, "lab7")


@pytest.fixture(scope="module")
def at_lab0_after(tree):
    yield
    ok(gcovlab("lab", "0"))


def counts(path):
    out = subprocess.run(["gcov-dump", "-l", str(path)], text=True, capture_output=True,
                         check=True).stdout
    return [int(v) for m in re.finditer(r"^\S+:\s+\d+: ((?:-?\d+ ?)+)$", out, re.M)
            for v in m.group(1).split()]


def gcda(out):
    found = [os.path.join(d, f) for d, _s, fs in os.walk(out / "gcda") for f in fs
             if f == "gcovdemo.gcda"]
    assert len(found) == 1, found
    return found[0]


def test_sample_driver_equals_mainline(at_lab0_after, tmp_path):
    proc = gcovlab("compare", "--lab", "7", "--module", DRIVER, "--workload",
                   os.path.join(DRIVER, "workload-full.sh"), "--out", tmp_path / "cmp")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"identical \(\d+ bytes\): .*gcovdemo\.gcda", proc.stdout)
    assert "1 of 1 .gcda file identical" in proc.stdout


@pytest.fixture(scope="module")
def reads(at_lab0_after, tmp_path_factory):
    out = tmp_path_factory.mktemp("lab7") / "reads"
    proc = ok(gcovlab("run", "--lab", "7", "--module", DRIVER, "--workload",
                      os.path.join(LAB7, "reads.sh"), "--out", out))
    return out, proc.stdout


def test_reads_of_any_size_agree(reads):
    _, stdout = reads
    for bs in (1, 7, 4096):
        assert re.search(r"lab7: bs=%d same \d+ bytes" % bs, stdout)
    assert "lab7: offset read same" in stdout
    assert re.search(r"lab7: file /sys/kernel/debug/gcov/\S+/gcovdemo\.gcda mode 600", stdout)


def test_write_resets(reads):
    assert "lab7: reset ok" in reads[1]


def test_ghost_kept_and_revived(reads, tmp_path):
    out, stdout = reads
    assert "lab7: ghost kept" in stdout
    assert "lab7: ghost discarded" in stdout
    assert "lab7: revived 1" in stdout
    once = tmp_path / "once"
    ok(gcovlab("run", "--lab", "7", "--module", DRIVER, "--workload",
               os.path.join(LAB7, "once.sh"), "--out", once))
    single = counts(gcda(once))
    # reads.sh: after the ghost is discarded, two load/calc/unload cycles.
    assert counts(gcda(out)) == [2 * v for v in single]
    assert any(single)
