# SPDX-License-Identifier: GPL-2.0
"""The patch series is bisectable: every prefix of patches/ applies to the
baseline with git am, builds and boots, and the boot registers objects
exactly when the tree has kernel/gcov/base.c.

It moves a kernel tree of its own, in a work directory of its own
(conftest.own_work: WORK/bisect, a clone of the tree that shares its
objects and the ccache), so make check runs it in its second process,
beside the tests that move the shared tree (tools/check.py).

The prefixes are the same commits in every run, and their builds are
kept (kbuild.restore_or_keep): after the first run a prefix is built
again only when its patches, the configuration or the compiler changed,
and every prefix is still booted."""

import os
import re
import subprocess

import pytest

from conftest import REPO, gcovlab, ok, own_work

PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
BRANCH = "gcovlab-test-bisect"


@pytest.fixture(scope="module")
def bisect(tree_repo):
    """(work directory, its tree) on BRANCH, made again at the baseline;
    files an interrupted git am left are removed (the tree is the test's)."""
    with own_work("bisect") as root:
        tree = os.path.join(root, "linux")
        subprocess.run(["git", "-C", tree, "am", "--abort"], stderr=subprocess.DEVNULL)
        subprocess.run(["git", "-C", tree, "checkout", "-q", "-f", "-B", BRANCH,
                        "gcovlab-baseline"], check=True)
        subprocess.run(["git", "-C", tree, "clean", "-q", "-ffdx"], check=True)
        yield root, tree


def git(tree, *args, env=None):
    return subprocess.run(["git", "-C", tree] + list(args), text=True,
                          capture_output=True, check=True, env=env).stdout


@pytest.mark.parametrize("k", range(1, len(PATCHES) + 1))
def test_prefix_applies_builds_boots(bisect, k, tmp_path):
    root, tree = bisect
    # Tests run in order: the branch holds patches 1..k-1 already.
    assert len(git(tree, "rev-list", "gcovlab-baseline..HEAD").split()) == k - 1
    # A fixed committer and date: the same prefix is the same commit in
    # every run, so a later make check finds its build kept (all twelve:
    # GCOVLAB_KEEP_BUILDS) and puts it back instead of building again.
    env = dict(os.environ, GIT_COMMITTER_NAME="gcovlab-test",
               GIT_COMMITTER_EMAIL="test@invalid",
               GIT_COMMITTER_DATE=git(tree, "log", "-1", "--format=%cI",
                                      "gcovlab-baseline").strip())
    git(tree, "am", "--quiet", PATCHES[k - 1], env=env)
    own = {"GCOVLAB_WORK": root, "GCOVLAB_KEEP_BUILDS": str(len(PATCHES) + 1)}
    ok(gcovlab("build", "--tree", env=own))
    ok(gcovlab("boot", "--tree", "--out", tmp_path / "boot", env=own))
    with open(tmp_path / "boot" / "console.log", encoding="utf-8", errors="replace") as f:
        console = f.read()
    assert "gcovlab: workload end, exit status 0" in console
    has_stub = os.path.exists(os.path.join(tree, "kernel", "gcov", "base.c"))
    assert bool(re.search(r"gcov: \d+ objects registered during boot", console)) == has_stub
