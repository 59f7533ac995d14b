# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab kunit on the series (Lab 12's kernel, in build/lab-kunit):
the same four suites as on mainline (tests/test_kunit.py) give the same
instrumented lines of the code they test, since the series is meant to
be a drop-in; and the series' own KUnit suites measure the series' own
code (kernel/gcov/), which tells the next review what they miss.  Moves
the kernel tree (to lab-12): the tree stream of make check."""

import os
import subprocess

import pytest

from conftest import gcovlab, ok, work_root
from test_kunit import SUITES, results, suite_args, suites_of

from gcovlablib import report  # noqa: E402  (conftest puts vm/ on the path)

LAB = "12"
OWN = ["gcov_gcc_12", "gcov_fs", "gcov_base"]
OWN_CODE = ["kernel/gcov/gcc_12.c", "kernel/gcov/fs.c", "kernel/gcov/base.c"]


def lines_of(out, top):
    """{file relative to TOP: lines instrumented} of a run's lcov.info."""
    got = report.coverage(os.path.join(out, "lcov.info"))
    return {os.path.relpath(k, top): v[1] for k, v in got.items()}


@pytest.fixture(scope="module", autouse=True)
def back_to_baseline(tree):
    """--lab 12 moves the tree to lab-12; the next test file starts from
    the baseline."""
    yield
    subprocess.run(["git", "-C", tree, "switch", "-q", "baseline"], check=True)


@pytest.fixture(scope="module")
def series_run(tree, tmp_path_factory):
    out = tmp_path_factory.mktemp("kunit-series") / "lab12"
    proc = gcovlab("kunit", "--lab", LAB, *suite_args(out), timeout=3600)
    return proc, out


def test_suites_run_and_pass_on_the_series(series_run):
    proc, out = series_run
    ok(proc)
    got = suites_of(results(out))
    # the series' own gcov_gcc_12 suite runs at boot in every lab kernel
    assert set(SUITES) <= set(got), got.keys()
    for name in SUITES:
        assert all(c["status"] == "PASS" for c in got[name]["test_cases"]), got[name]


def test_the_same_lines_as_mainline(series_run, mainline, tmp_path):
    """The series instruments the code under test as mainline does: the
    same files, the same number of instrumented lines each."""
    _proc, out = series_run
    ok(series_run[0])
    theirs = tmp_path / "mainline"
    ok(gcovlab("kunit", "--mainline", *suite_args(theirs), timeout=3600))
    series = lines_of(out, os.path.join(work_root(), "linux"))
    mainline_lines = lines_of(theirs, os.path.join(work_root(), "mainline"))
    assert sorted(series) == sorted(c for _o, c in SUITES.values())
    assert series == mainline_lines


def test_the_series_own_tests_measure_its_code(tree, tmp_path):
    """kernel/gcov/ profiled, with its three suites (built in: they run at
    boot, so the coverage includes the boot's registrations)."""
    out = tmp_path / "own"
    args = ["kunit", "--lab", LAB, "--out", out, "--cover"] + OWN_CODE
    for suite in OWN:
        args += ["--suite", suite]
    proc = ok(gcovlab(*args, timeout=3600))
    got = suites_of(results(out))
    assert set(OWN) <= set(got), got.keys()
    for name in OWN:
        assert all(c["status"] == "PASS" for c in got[name]["test_cases"]), got[name]
    assert "run at boot: the coverage includes the boot" in proc.stderr
    covered = report.coverage(os.path.join(out, "lcov.info"))
    assert sorted(os.path.relpath(k, os.path.join(work_root(), "linux"))
                  for k in covered) == sorted(OWN_CODE)
    for path, (hit, total, _t, _b) in covered.items():
        assert 0 < hit < total, (path, hit, total)
