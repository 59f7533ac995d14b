# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab lab N for series labs: the tool's branch lab-N is baseline +
the lab's patches (git am), made again when patches/ changes, with the
same commit ids; a student's uncommitted work or own commits on a lab
branch are never lost.  No kernel is built here."""

import os
import subprocess

import pytest

from conftest import gcovlab, work_root

TREE = os.path.join(work_root(), "linux")


def git(*args, check=True):
    return subprocess.run(["git", "-C", TREE] + list(args), text=True,
                          capture_output=True, check=check).stdout.strip()


@pytest.fixture
def on_baseline(tree):
    yield
    git("checkout", "--quiet", "baseline", check=False)


def test_lab_branch_is_baseline_plus_patches(on_baseline):
    proc = gcovlab("lab", "1")
    assert proc.returncode == 0, proc.stderr
    assert git("symbolic-ref", "--short", "HEAD") == "lab-1"
    subjects = git("log", "--format=%s", "gcovlab-baseline..lab-1").splitlines()
    assert subjects == ["gcov: add CONFIG_GCOV_PROFILE and have it select CONSTRUCTORS"]
    assert git("status", "--porcelain") == ""


def test_labs_2_to_4_share_one_commit(on_baseline):
    tips = set()
    for n in (2, 3, 4):
        proc = gcovlab("lab", str(n))
        assert proc.returncode == 0, proc.stderr
        tips.add(git("rev-parse", "HEAD"))
    assert len(tips) == 1
    assert len(git("rev-list", "gcovlab-baseline..lab-4").split()) == 3


def test_changed_patches_remake_the_branch_with_the_same_ids(on_baseline):
    assert gcovlab("lab", "1").returncode == 0
    before = git("rev-parse", "lab-1")
    git("checkout", "--quiet", "baseline")
    git("config", "gcovlab.lab-1.key", "stale")
    proc = gcovlab("lab", "1")
    assert proc.returncode == 0, proc.stderr
    assert "making branch lab-1" in proc.stdout
    # Fixed committer and date: the remade commit is the same commit.
    assert git("rev-parse", "lab-1") == before


def test_dirty_tree_is_refused_and_kept(on_baseline):
    path = os.path.join(TREE, "gcovlab-test-note.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("my notes\n")
    try:
        proc = gcovlab("lab", "4")
        assert proc.returncode != 0
        assert "gcovlab-test-note.txt" in proc.stderr
        assert "stash" in proc.stderr and "commit" in proc.stderr
        assert git("symbolic-ref", "--short", "HEAD") == "baseline"
        with open(path, encoding="utf-8") as f:
            assert f.read() == "my notes\n"
    finally:
        os.remove(path)


def test_own_commits_on_a_lab_branch_are_refused(on_baseline):
    assert gcovlab("lab", "1").returncode == 0
    tip = git("rev-parse", "HEAD")
    git("-c", "user.name=t", "-c", "user.email=t@invalid", "commit", "--quiet",
        "--allow-empty", "-m", "student work on lab-1")
    mine = git("rev-parse", "HEAD")
    git("checkout", "--quiet", "baseline")
    try:
        git("config", "gcovlab.lab-1.key", "stale")
        proc = gcovlab("lab", "1")
        assert proc.returncode != 0
        assert "has commits gcovlab did not make" in proc.stderr
        assert "git -C %s branch my-lab1 lab-1" % TREE in proc.stderr
        assert git("rev-parse", "lab-1") == mine
    finally:
        git("branch", "--force", "lab-1", tip)
        git("config", "--unset", "gcovlab.lab-1.key")


def test_run_on_a_series_lab_needs_a_clean_tree(on_baseline, tmp_path):
    path = os.path.join(TREE, "init", "gcovlab-test.c")
    with open(path, "w", encoding="utf-8") as f:
        f.write("/* a student's new file */\n")
    try:
        proc = gcovlab("build", "--lab", "1")
        assert proc.returncode != 0
        assert "init/gcovlab-test.c" in proc.stderr
        assert os.path.exists(path)
    finally:
        os.remove(path)


def test_unknown_lab(tree):
    proc = gcovlab("lab", "99")
    assert proc.returncode == 2
    assert "Lab 99 does not exist yet" in proc.stderr
