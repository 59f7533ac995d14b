# SPDX-License-Identifier: GPL-2.0
"""Shared helpers and fixtures of the gcov-kernel-labs test suite.

The slow parts (kernel tree, kernel builds) live in the work directory,
GCOVLAB_WORK or ~/.cache/gcov-kernel-labs, and are reused across tests and
across runs: a warm 'make check' rebuilds nothing.
"""

import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GCOVLAB = os.path.join(REPO, "vm", "gcovlab")
DRIVER = os.path.join(REPO, "labs", "driver")
DATA = os.path.join(REPO, "tests", "data")


def gcovlab(*args, env=None, timeout=1800):
    """Run vm/gcovlab; return the CompletedProcess (text, both streams)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([GCOVLAB] + [str(a) for a in args], cwd=REPO, env=full_env,
                          text=True, capture_output=True, timeout=timeout)


def work_root():
    return os.environ.get("GCOVLAB_WORK") or os.path.join(
        os.path.expanduser("~"), ".cache", "gcov-kernel-labs")


def ok(proc):
    assert proc.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (
        proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


@pytest.fixture(scope="session")
def tree():
    ok(gcovlab("tree"))
    path = os.path.join(work_root(), "linux")
    # The tests share the work directory's tree: say so plainly if an
    # earlier, interrupted run left it dirty or on another branch.
    status = subprocess.run(["git", "-C", path, "status", "--porcelain", "--branch"],
                            text=True, capture_output=True).stdout
    assert status.split("\n")[0].startswith("## baseline") and status.count("\n") == 1, \
        "the kernel tree %s is not clean on branch baseline:\n%s" % (path, status)
    return path


@pytest.fixture(scope="session")
def mainline(tree):
    ok(gcovlab("build", "--mainline"))
    return os.path.join(work_root(), "build", "mainline")


def pytest_unconfigure(config):
    """End with the plain 'N passed, N failed' line the project promises."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    stats = reporter.stats
    passed = len([r for r in stats.get("passed", []) if getattr(r, "when", "call") == "call"])
    failed = len(stats.get("failed", [])) + len(stats.get("error", []))
    skipped = len(stats.get("skipped", []))
    print("check: %d passed, %d failed, %d skipped" % (passed, failed, skipped))


@pytest.fixture(scope="session")
def lab_kernel(tree):
    """The kernel built from the tree as checked out (the baseline)."""
    ok(gcovlab("build", "--tree"))
    return os.path.join(work_root(), "build", "lab")
