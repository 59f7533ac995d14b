# SPDX-License-Identifier: GPL-2.0
"""tools/warm_ccache.py and the ccache settings it relies on: the warm
build directory has the same layout as the real one, the builds hash paths
below the work directory relative to the build directory, and bad
arguments fail with the cause named, before anything is checked out."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import kbuild  # noqa: E402
from gcovlablib.work import Work  # noqa: E402

TOOL = os.path.join(REPO, "tools", "warm_ccache.py")


def test_warm_layout_is_the_real_one(tmp_path):
    """ccache makes a path below CCACHE_BASEDIR relative to the build
    directory: the source must be the same relative path from both."""
    work = Work(str(tmp_path / "w"))
    warm = Work(os.path.join(work.root, "warm"))
    for config in ("lab", "lab-smp", "lab-all"):
        assert os.path.relpath(warm.tree, os.path.join(warm.root, "build", config)) == \
            os.path.relpath(work.tree, os.path.join(work.root, "build", config)) == "../../linux"


def test_make_env_hashes_relative_paths_and_falls_back_to_the_preprocessor(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("CCACHE_DEPEND", "1")
    work = Work(str(tmp_path / "w"))
    env = kbuild.make_env(work)
    assert env["CCACHE_BASEDIR"] == work.root
    assert env["CCACHE_DIR"] == work.ccache
    # depend mode would never fall back to the preprocessor: every change
    # of autoconf.h would miss every file
    assert "CCACHE_DEPEND" not in env


def run(tmp_path, *args):
    env = dict(os.environ, GCOVLAB_WORK=str(tmp_path / "w"))
    return subprocess.run(["/usr/bin/python3", TOOL] + list(args), env=env, text=True,
                          capture_output=True, timeout=60)


def test_bad_arguments_name_the_cause(tmp_path):
    proc = run(tmp_path, "mainline", "lab-10")
    assert proc.returncode == 1 and "'mainline' is not a lab configuration" in proc.stderr
    proc = run(tmp_path, "lab-smp", "lab-10")
    assert proc.returncode == 1 and "no kernel tree" in proc.stderr
    assert "vm/gcovlab tree" in proc.stderr
    assert not os.path.exists(tmp_path / "w" / "warm")
    proc = run(tmp_path, "lab-smp")
    assert proc.returncode == 2 and "usage: tools/warm_ccache.py CONFIG REF" in proc.stdout


def test_an_unknown_branch_is_named(tmp_path):
    tree = tmp_path / "w" / "linux"
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    proc = run(tmp_path, "lab-smp", "lab-99")
    assert proc.returncode == 1
    assert "the kernel tree has no branch or commit 'lab-99'" in proc.stderr
