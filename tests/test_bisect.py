# SPDX-License-Identifier: GPL-2.0
"""The patch series is bisectable: every prefix of patches/ applies to the
baseline with git am, builds and boots, and the boot registers objects
exactly when the tree has kernel/gcov/base.c.

It moves the work directory's own kernel tree, on a branch of its own
(gcovlab-test-bisect), so make check runs it in its first process, with
the other tests that move the tree (tools/check.py).  Its prefixes are
committed as the tool commits a lab branch (tree.git_env: the tool's
committer and the baseline's date, each patch's own author), so that the
prefixes that are lab states (1, 3, 5, 8, 9, 10 and 12 patches) are the
very commits of branches lab-1 ... lab-11, and share their builds: a build
of a committed state is kept (kbuild.restore_or_keep) and put back, not
made again, by whichever of this file and the lab tests comes second.
Measured on a cold run, the file used to move a tree of its own
(WORK/bisect): a whole-kernel build of 701 s of its own and twelve more
that shared nothing with the lab kernels'."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, gcovlab, ok, work_root

sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib import tree as treemod  # noqa: E402

PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
BRANCH = "gcovlab-test-bisect"
# Enough kept builds for every prefix and the pages' own states, so that
# neither this file nor a later make check builds a prefix twice.
KEEP = str(len(PATCHES) + 8)


def git(tree, *args, env=None):
    return subprocess.run(["git", "-C", tree] + list(args), text=True,
                          capture_output=True, check=True, env=env).stdout


@pytest.fixture(scope="module")
def bisect(tree):
    """The shared tree on BRANCH, made again at the baseline; back on the
    baseline branch, BRANCH deleted, afterwards."""
    # WORK/bisect: where this file used to move a tree of its own
    shutil.rmtree(os.path.join(work_root(), "bisect"), ignore_errors=True)
    git(tree, "checkout", "-q", "-B", BRANCH, treemod.TAG_BASELINE)
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", tree, "am", "--abort"], stderr=subprocess.DEVNULL)
        git(tree, "reset", "-q", "--hard")
        git(tree, "clean", "-q", "-fd")
        git(tree, "checkout", "-q", "baseline")
        git(tree, "branch", "-D", BRANCH)


@pytest.mark.parametrize("k", range(1, len(PATCHES) + 1))
def test_prefix_applies_builds_boots(bisect, k, tmp_path):
    tree = bisect
    # Tests run in order: the branch holds patches 1..k-1 already.
    assert len(git(tree, "rev-list", treemod.TAG_BASELINE + "..HEAD").split()) == k - 1
    env = treemod.git_env(date=git(tree, "log", "-1", "--format=%cI",
                                   treemod.TAG_BASELINE).strip())
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE"):
        env.pop(var)
    git(tree, "am", "--quiet", PATCHES[k - 1], env=env)
    own = {"GCOVLAB_KEEP_BUILDS": KEEP}
    ok(gcovlab("build", "--tree", env=own))
    ok(gcovlab("boot", "--tree", "--out", tmp_path / "boot", env=own))
    with open(tmp_path / "boot" / "console.log", encoding="utf-8", errors="replace") as f:
        console = f.read()
    assert "gcovlab: workload end, exit status 0" in console
    has_stub = os.path.exists(os.path.join(tree, "kernel", "gcov", "base.c"))
    assert bool(re.search(r"gcov: \d+ objects registered during boot", console)) == has_stub


def test_lab_branches_are_prefix_commits(bisect):
    """What the sharing rests on: the tool's lab branch is the commit of its
    prefix here (same committer, same date, same parents)."""
    tree = bisect
    n = len(PATCHES)
    for number, k in ((1, 1), (7, 8)):
        ok(gcovlab("lab", str(number)))
        assert git(tree, "rev-parse", "lab-%d" % number) == \
            git(tree, "rev-parse", "%s~%d" % (BRANCH, n - k))
