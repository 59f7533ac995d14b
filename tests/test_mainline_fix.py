# SPDX-License-Identifier: GPL-2.0
"""Mainline's own hang and its fix (patches/mainline-fix/, Lab 11).

Mainline 6.1 removes the debugfs file of an unloaded module from inside
that file's write handler, and debugfs_remove() waits for that handler:
the one-line reproducer (labs/lab11/selfwait.sh) never returns.  With
the fix it returns, the file goes, and the module's file comes back when
it is loaded again.  The patches themselves: checkpatch --strict, and
git am on the pristine tree (ensure_fixed does that for every build)."""

import os
import subprocess
import sys

from conftest import DRIVER, REPO, gcovlab, ok, work_root

sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib.tree import fix_patches  # noqa: E402

SELFWAIT = os.path.join(REPO, "labs", "lab11", "selfwait.sh")


def test_the_fix_is_checkpatch_strict_clean(tree_repo):
    # The packaged tree has no git history, so checkpatch cannot look up
    # the commits the Fixes: tags name (checked against mainline's).
    for patch in fix_patches():
        r = subprocess.run(["perl", "scripts/checkpatch.pl", "--strict",
                            "--ignore", "UNKNOWN_COMMIT_ID", patch],
                           cwd=os.path.join(work_root(), "linux"), text=True,
                           capture_output=True)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "total: 0 errors, 0 warnings, 0 checks" in r.stdout, r.stdout


def test_the_fix_names_what_it_fixes():
    for patch in fix_patches():
        with open(patch, encoding="utf-8") as f:
            text = f.read()
        assert 'Fixes: 2521f2c228ad ("gcov: add gcov profiling infrastructure")' in text
        assert ("Fixes: 49d200deaa68 (\"debugfs: prevent access to removed files' "
                "private data\")") in text
        assert "Cc: Peter Oberparleiter <oberpar@linux.ibm.com>" in text
        assert "Cc: stable@vger.kernel.org" in text


def test_the_write_hangs_on_mainline(mainline, tmp_path):
    out = tmp_path / "out"
    proc = gcovlab("run", "--mainline", "--module", DRIVER, "--workload", SELFWAIT,
                   "--out", out, "--timeout", "40", timeout=600)
    assert proc.returncode == 124, proc.stdout + proc.stderr
    console = (out / "console.log").read_text(errors="replace")
    assert "selfwait: echo 0 > " in console, console[-3000:]
    assert "the write returned" not in console, console[-3000:]


def test_the_write_returns_with_the_fix(tree_repo, tmp_path):
    out = tmp_path / "out"
    proc = gcovlab("run", "--fixed", "--module", DRIVER, "--workload", SELFWAIT,
                   "--out", out, timeout=1800)
    console = (out / "console.log").read_text(errors="replace") \
        if (out / "console.log").exists() else ""
    assert proc.returncode == 0, proc.stdout + proc.stderr + console[-3000:]
    for line in ("the write returned", "the file is gone", "the reset returned",
                 "loaded again, its file is back"):
        assert "selfwait: " + line in console, console[-3000:]
    assert "FAILED" not in console
    # what the guest printed about gcov: nothing went wrong
    assert "BUG" not in console and "WARNING" not in console, console[-3000:]
    # the fixed tree is the pristine one plus the fix's commits
    fixed = os.path.join(work_root(), "mainline-fixed")
    log = subprocess.run(["git", "-C", fixed, "log", "--format=%s", "gcovlab-pristine..HEAD"],
                         text=True, capture_output=True, check=True).stdout.split("\n")
    assert log[:2] == ["gcov: remove debugfs entries only after node_lock is dropped",
                       "gcov: fix hang when writing to the data file of an unloaded module"]
    ok(gcovlab("status"))
