# SPDX-License-Identifier: GPL-2.0
"""Lab 1: constructors of built-in code and of a module do not run on the
baseline and do run once patch 0001 selects CONSTRUCTORS.

The built-in constructor comes from labs/ctor/builtin-demo.patch, applied
with git am to a branch of the test's own (as the lab page tells a student
to), never to a lab branch."""

import os
import re
import subprocess

import pytest

from conftest import REPO, gcovlab, ok, work_root

TREE = os.path.join(work_root(), "linux")
CTOR = os.path.join(REPO, "labs", "ctor")


def git(*args):
    return subprocess.run(["git", "-C", TREE] + list(args), text=True,
                          capture_output=True, check=True).stdout


def run_demo(start, tmp_path):
    branch = "gcovlab-test-ctor"
    git("checkout", "--quiet", "-B", branch, start)
    try:
        git("-c", "user.name=gcovlab-test", "-c", "user.email=test@invalid",
            "am", "--quiet", os.path.join(CTOR, "builtin-demo.patch"))
        out = tmp_path / "out"
        proc = ok(gcovlab("run", "--tree", "--module", CTOR, "--workload",
                          os.path.join(CTOR, "workload.sh"), "--out", out))
        with open(out / "console.log", encoding="utf-8", errors="replace") as f:
            console = f.read()
        log = os.path.join(work_root(), "build", "lab", "gcovlab-build.log")
        with open(log, encoding="utf-8", errors="replace") as f:
            build_log = f.read()
        return console, proc.stdout, build_log
    finally:
        git("checkout", "--quiet", "baseline")
        git("branch", "-D", branch)


@pytest.fixture(scope="module")
def before(tree, tmp_path_factory):
    ok(gcovlab("lab", "0"))
    return run_demo("baseline", tmp_path_factory.mktemp("before"))


@pytest.fixture(scope="module")
def after(tree, before, tmp_path_factory):
    ok(gcovlab("lab", "1"))
    ok(gcovlab("lab", "0"))
    return run_demo("lab-1", tmp_path_factory.mktemp("after"))


def test_baseline_runs_no_constructor(before):
    console, _, _ = before
    assert re.search(r"ctor_demo: built-in constructor did not run", console)
    assert re.search(r"ctor_mod: module constructor did not run", console)


def test_baseline_link_warns_about_the_orphan_section(before):
    _, _, build_log = before
    assert re.search(r"orphan section `\.init_array' from `init/ctor_demo\.o'", build_log), \
        build_log[-3000:]


def test_lab1_runs_both_constructors(after):
    console, _, _ = after
    assert re.search(r"ctor_demo: built-in constructor ran \(1 call\)", console)
    assert re.search(r"ctor_mod: module constructor ran \(1 call\)", console)


def test_lab1_link_has_no_orphan(after):
    _, _, build_log = after
    assert "orphan section" not in build_log


def test_tree_left_on_baseline(after):
    assert git("symbolic-ref", "--short", "HEAD").strip() == "baseline"
    assert git("status", "--porcelain") == ""
