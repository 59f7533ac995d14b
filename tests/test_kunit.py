# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab kunit on the mainline kernel: four in-tree KUnit suites of
the packaged tree, built as modules into a copy of build/mainline
(build/mainline-kunit: only what the suites' options and the covered
files change is rebuilt), loaded in the guest after the counters are
zeroed, parsed by the tree's own kunit.py, and the coverage of the code
they test.  The series' side is tests/test_kunit_series.py; the host
parts (a suite's option, the --kunitconfig format, --cover) are here too,
on the mainline worktree, which no test changes."""

import json
import os
import sys

import pytest

from conftest import REPO, gcovlab, ok, work_root

sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib import kunit  # noqa: E402
from gcovlablib.util import GcovlabError  # noqa: E402

# suite -> (its option, the file of the code it tests)
# (lib_sort selects CONFIG_STACKTRACE, which recompiles 343 files of the
# tiny kernel; resource's cases test inline functions of a header, and
# reach no line of kernel/resource.c)
SUITES = {
    "cmdline": ("CONFIG_CMDLINE_KUNIT_TEST", "lib/cmdline.c"),
    "list_sort": ("CONFIG_TEST_LIST_SORT", "lib/list_sort.c"),
    "linear-ranges-test": ("CONFIG_LINEAR_RANGES_TEST", "lib/linear_ranges.c"),
    "time_test_cases": ("CONFIG_TIME_KUNIT_TEST", "kernel/time/timeconv.c"),
}


def suite_args(out):
    """The suites, the covered files and OUT, after 'kunit' and the kernel."""
    args = ["--out", out]
    for suite in SUITES:
        args += ["--suite", suite]
    return args + ["--cover"] + [c for _o, c in SUITES.values()]


def summary(out):
    """{covered file: (lines hit, lines)} from the run's lcov.info."""
    sys.path.insert(0, os.path.join(REPO, "vm"))
    from gcovlablib import report
    got = report.coverage(os.path.join(out, "lcov.info"))
    src = os.path.commonpath(list(got)) if len(got) > 1 else None
    return {os.path.relpath(k, os.path.dirname(os.path.dirname(src))) if src else k: v
            for k, v in got.items()}


def results(out):
    with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
        return json.load(f)


def suites_of(data):
    return {g["name"]: g for g in data.get("sub_groups", [])}


@pytest.fixture(scope="module")
def mainline_run(mainline, tmp_path_factory):
    out = tmp_path_factory.mktemp("kunit") / "mainline"
    proc = gcovlab("kunit", "--mainline", *suite_args(out), timeout=3600)
    return proc, out


def test_suites_run_and_pass_on_mainline(mainline_run):
    proc, out = mainline_run
    ok(proc)
    got = suites_of(results(out))
    assert set(got) == set(SUITES), got.keys()
    for name, group in got.items():
        assert group["test_cases"], name
        assert all(c["status"] == "PASS" for c in group["test_cases"]), group
    # kunit.py's own report, as kunit.py prints it
    assert "Testing complete." in proc.stdout and "Ran " in proc.stdout, proc.stdout[-3000:]


def test_the_code_under_test_is_covered_not_the_tests(mainline_run):
    proc, out = mainline_run
    ok(proc)
    with open(os.path.join(out, "lcov.info"), encoding="utf-8") as f:
        sources = [line[3:].strip() for line in f if line.startswith("SF:")]
    rel = sorted(os.path.relpath(s, os.path.join(work_root(), "mainline")) for s in sources)
    assert rel == sorted(c for _o, c in SUITES.values()), rel
    for name in ("coverage.xml", "coverage.json", "html/index.html", "summary.txt",
                 "console.log", "kunit-modules.log"):
        assert os.path.isfile(os.path.join(out, name)), name
    # every covered file ran: the suites reach it after the reset
    for line in open(os.path.join(out, "summary.txt"), encoding="utf-8"):
        hit = int(line.split("lines ")[1].split(" /")[0])
        assert hit > 0, line
    for _opt, c in SUITES.values():
        assert "coverage, %s: lines " % c in proc.stderr + proc.stdout


def test_boot_does_not_count(mainline_run):
    """lib/cmdline.c's get_option() parses the kernel command line at boot;
    after the reset only the suite's calls count: a function the suite
    never calls has no count, although boot ran it."""
    _proc, out = mainline_run
    with open(os.path.join(out, "workload.sh"), encoding="utf-8") as f:
        assert "gcov/reset" in f.read()
    counts = {}
    current = None
    with open(os.path.join(out, "lcov.info"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("SF:"):
                current = line[3:].strip()
            elif line.startswith("FNDA:") and current.endswith("lib/cmdline.c"):
                n, name = line[5:].strip().split(",", 1)
                counts[name] = int(n)
    # next_arg() parses the command line at boot (parse_args); no case of
    # the cmdline suite calls it
    assert counts.get("next_arg") == 0, counts
    assert counts.get("get_option", 0) > 0, counts


def test_a_second_run_builds_nothing(mainline_run, tmp_path):
    ok(mainline_run[0])
    proc = ok(gcovlab("kunit", "--mainline", *suite_args(tmp_path / "again"), timeout=1800))
    said = proc.stdout + proc.stderr
    assert "mainline-kunit kernel is up to date" in said, said[-2000:]


DRIVER = os.path.join(REPO, "labs", "kunit-driver")


def test_a_module_of_ones_own_beside_the_tree_s_suites(mainline_run, tmp_path):
    """--module: an out-of-tree module with a KUnit suite of its own
    (labs/kunit-driver, the instructors' example), built against the same
    kunit kernel (the same suites) and loaded beside the tree's suites;
    only the covered file, rpn.c, is profiled and reported,
    and its division, which no case tries, has no count."""
    ok(mainline_run[0])
    out = tmp_path / "mine"
    suites = [arg for suite in SUITES for arg in ("--suite", suite)]
    proc = ok(gcovlab("kunit", "--mainline", "--module", DRIVER, "--out", out, "--cover",
                      "rpn.c", *suites, timeout=1800))
    assert "GCOV_PROFILE_rpn.o=y" in proc.stdout + proc.stderr
    got = suites_of(results(out))
    assert set(got) == set(SUITES) | {"rpn"}, got.keys()
    assert [c["status"] for c in got["rpn"]["test_cases"]] == ["PASS", "PASS"]
    from gcovlablib import report
    info = str(out / "lcov.info")
    assert [os.path.basename(f) for f in report.coverage(info)] == ["rpn.c"]
    with open(os.path.join(DRIVER, "rpn.c"), encoding="utf-8") as f:
        division = [n for n, line in enumerate(f, 1) if "if (!b)" in line]
    counts = {}
    with open(info, encoding="utf-8") as f:
        for line in f:
            if line.startswith("DA:"):
                n, c = line[3:].split(",")[:2]
                counts[int(n)] = int(c)
    assert counts[division[0]] == 0, counts
    assert sum(1 for c in counts.values() if c) > len(counts) // 2, counts


def test_cover_with_module_names_the_module_s_files(mainline, tmp_path):
    proc = gcovlab("kunit", "--mainline", "--module", DRIVER, "--cover", "lib/cmdline.c",
                   "--out", tmp_path / "o")
    assert proc.returncode == 2 and "with --module, name a .c file of" in proc.stderr, \
        proc.stderr


# --- what it refuses, and why -----------------------------------------------

def test_an_unknown_suite_is_named(mainline, tmp_path):
    proc = gcovlab("kunit", "--mainline", "--suite", "no_such_suite", "--out", tmp_path / "o")
    assert proc.returncode == 2, proc.stderr
    assert "no KUnit suite named 'no_such_suite'" in proc.stderr


def test_an_option_kconfig_did_not_take_names_its_dependency(mainline, tmp_path):
    """rational's test depends on CONFIG_RATIONAL, which only drivers select:
    Kconfig leaves it out, as kunit.py reports; gcovlab says which
    dependency is missing."""
    proc = gcovlab("kunit", "--mainline", "--suite", "rational", "--out", tmp_path / "o",
                   timeout=1800)
    assert proc.returncode == 125, proc.stderr[-2000:]
    assert "CONFIG_RATIONAL_KUNIT_TEST=m (got not set)" in proc.stderr, proc.stderr[-2000:]
    assert "CONFIG_RATIONAL=n" in proc.stderr, proc.stderr[-2000:]


def test_a_path_that_is_not_in_the_tree_is_refused(mainline, tmp_path):
    proc = gcovlab("kunit", "--mainline", "--suite", "cmdline", "--cover", "lib/nothere.c",
                   "--out", tmp_path / "o")
    assert proc.returncode == 2 and "--cover lib/nothere.c: no such file" in proc.stderr


def test_a_header_is_not_a_covered_file(mainline, tmp_path):
    proc = gcovlab("kunit", "--mainline", "--suite", "cmdline", "--cover",
                   "include/linux/kernel.h", "--out", tmp_path / "o")
    assert proc.returncode == 2 and "name a .c file or a directory" in proc.stderr


def test_kunitconfig_lines(tmp_path):
    good = tmp_path / "good"
    good.write_text("# my suites\nCONFIG_KUNIT=y\nCONFIG_CMDLINE_KUNIT_TEST=m\n"
                    "# CONFIG_TEST_SORT is not set\n\n")
    assert kunit.read_kunitconfig(str(good)) == {
        "CONFIG_KUNIT": "y", "CONFIG_CMDLINE_KUNIT_TEST": "m", "CONFIG_TEST_SORT": "n"}
    bad = tmp_path / "bad"
    bad.write_text("CONFIG_KUNIT=y\nKUNIT=y\n")
    with pytest.raises(GcovlabError, match=r"bad:2: 'KUNIT=y' is not a config line"):
        kunit.read_kunitconfig(str(bad))


def test_each_suite_is_found_with_its_option(mainline):
    src = os.path.join(work_root(), "mainline")
    for suite, (option, _covered) in SUITES.items():
        _where, got = kunit.find_suite(src, suite)
        assert got == option, suite
        assert kunit.option_type(src, option) == "tristate"


def test_the_profiling_variable_is_each_kernel_s_own():
    objs = ["lib/cmdline.o", "kernel/time/timeconv.o"]
    assert kunit.profile_vars("mainline-kunit", objs) == [
        "GCOV_PROFILE_cmdline.o=$(if $(filter lib,$(obj)),y)",
        "GCOV_PROFILE_timeconv.o=$(if $(filter kernel/time,$(obj)),y)"]
    assert kunit.profile_vars("lab-kunit", objs + ["arch/x86/lib/cmdline.o"]) == [
        "GCOV_cmdline.o=$(if $(filter arch/x86/lib lib,$(obj)),y)",
        "GCOV_timeconv.o=$(if $(filter kernel/time,$(obj)),y)"]
