# SPDX-License-Identifier: GPL-2.0
"""make bench-kunit-uml's pieces that need no kernel: the saved figures
(docs/bench/kunit-uml.json) name the four suites of tests/test_kunit.py
and both trees, the KUnit chapter's tables are made from them
(docs/_ext/benchsite.py), and the script reads kunit.py's output as
kunit.py prints it."""

import importlib.util
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "docs", "_ext"))
import benchsite  # noqa: E402

SAVED = os.path.join(REPO, "docs", "bench", "kunit-uml.json")


def script():
    spec = importlib.util.spec_from_file_location(
        "bench_kunit_uml", os.path.join(REPO, "tools", "bench-kunit-uml.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def saved():
    with open(SAVED, encoding="utf-8") as f:
        return json.load(f)


def test_the_script_runs_the_suites_of_the_kunit_tests():
    bench = script()
    sys.path.insert(0, os.path.join(REPO, "tests"))
    import test_kunit
    assert bench.SUITES == test_kunit.SUITES and len(bench.SUITES) == 4
    for option, _file in bench.SUITES.values():
        assert "%s=y" % option in bench.KUNITCONFIG
    assert "CONFIG_KUNIT=y" in bench.KUNITCONFIG


def test_saved_figures_name_every_suite_and_both_trees():
    data = saved()
    sys.path.insert(0, os.path.join(REPO, "tests"))
    import test_kunit
    assert data["suites"] == {s: f for s, (_o, f) in test_kunit.SUITES.items()}
    kunit_py = [r for r in data["rows"] if r["how"].startswith("kunit.py")]
    trees = [r["tree"] for r in kunit_py]
    assert {"mainline", "series"} <= set(trees) <= {"mainline", "series", "mainline-renamed"}
    assert len(trees) == len(set(trees)), trees
    for row in kunit_py:
        assert row["kernel"].startswith("6.1."), row["kernel"]
        for run in ("cold", "warm"):
            assert isinstance(row[run]["exit"], int) and row[run]["verdict"], row[run]
            assert isinstance(row[run]["gcda"], int)
            assert row[run]["wall_s"] > 0
    gcovlab = [r for r in data["rows"] if r["how"].startswith("vm/gcovlab")]
    assert sorted(r["tree"] for r in gcovlab) == ["mainline", "series"]
    measured = next(r for r in gcovlab if "from" not in r)
    assert set(measured["files"]) == set(data["suites"].values())
    assert data["machine"]["gcc"].startswith("gcc") and " 12." in data["machine"]["gcc"]
    assert data["measured"][:4].isdigit()


def test_the_saved_figures_make_the_tables():
    data = saved()
    text = "\n".join(benchsite.kunit_uml_table(data))
    for path in data["suites"].values():
        assert "``%s``" % path in text
    for label, row in benchsite.kunit_uml_rows(data):
        assert "* - %s\n" % label in text
        for path, (hit, lines) in (row.get("files") or {}).items():
            assert "%d / %d" % (hit, lines) in text
    assert data["measured"] in text and data["commit"] in text


def sample():
    files = {"lib/cmdline.c": [36, 89], "lib/list_sort.c": [58, 60]}
    return {
        "measured": "2026-12-08 10:00 UTC", "commit": "abc1234",
        "command": "tools/bench-kunit-uml.py --save x.json", "series_version": "PATCH v3",
        "machine": {"gcc": "gcc (Debian 12.2.0-14) 12.2.0", "cpu": "CPU", "cores": 2},
        "script_s": 1800,
        "suites": {"cmdline": "lib/cmdline.c", "list_sort": "lib/list_sort.c"},
        "rows": [
            {"tree": "mainline", "how": "kunit.py run --arch=um", "kernel": "6.1.192",
             "change": "f() renamed g()",
             "cold": {"exit": 0, "verdict": "5 tests: passed: 5", "gcda": 0, "wall_s": 900.0,
                      "build_s": 880.4, "run_s": 3.2, "ccache": "not used (CCACHE_RECACHE)",
                      "errors": ["profiling:/x/lib/cmdline.gcda:Cannot open",
                                 "seq_file.o:/home/u/.cache/gcov-kernel-labs/kunit-uml/seq_file.c:4"]},
             "warm": {"exit": 0, "verdict": "5 tests: passed: 5", "gcda": 0, "wall_s": 30.0,
                      "errors": ["profiling:/x/lib/cmdline.gcda:Cannot open"]}},
            {"tree": "mainline", "how": "vm/gcovlab kunit --mainline", "exit": 0,
             "verdict": "5 tests: passed: 5", "wall_s": 17.2, "files": files},
            {"tree": "series", "how": "vm/gcovlab kunit --lab 10",
             "from": "vm/gcovlab kunit --mainline", "note": "not run"}]}


def test_table_of_a_run_without_gcda_and_a_row_taken_from_another():
    rows = benchsite.kunit_uml_rows(sample())
    assert rows[2][1]["files"] == sample()["rows"][1]["files"]
    text = "\n".join(benchsite.kunit_uml_table(sample()))
    # the kunit.py row: no .gcda, so no lines; its times, rounded
    assert ("* - ``kunit.py run --arch=um``, mainline\n     - 0\n     - 5 tests: passed: 5\n"
            "     - 0\n     - 900\n     - 3\n     - 30") in text
    assert "* - ``lib/cmdline.c`` (cmdline)\n     - --\n     - 36 / 89\n     - 36 / 89" in text
    # what the run printed, quoted once although both runs printed it
    assert text.count("   profiling:/x/lib/cmdline.gcda:Cannot open") == 1
    # the work directory as on a student's machine
    assert "   seq_file.o:~/.cache/gcov-kernel-labs/kunit-uml/seq_file.c:4" in text
    assert "Linux 6.1.192, series PATCH v3" in text and "(30 min here)" in text
    assert "compile everything (ccache does not use earlier results)" in text
    assert "\n\n``kunit.py run --arch=um``, mainline: f() renamed g().\n" in "\n".join(
        benchsite.kunit_uml_table(sample()))


KUNIT_OUT = """\
[10:00:01] Configuring KUnit Kernel ...
[10:02:00] Building KUnit Kernel ...
[10:20:00] ================== cmdline (4 subtests) ===================
[10:20:00] [PASSED] cmdline_test_noint
[10:20:01] ============================================================
[10:20:01] Testing complete. Ran 10 tests: passed: 10
[10:20:01] Elapsed time: 1080.500s total, 2.100s configuring, 1075.200s building, 3.200s running
profiling:/k/build/lib/cmdline.gcda:Cannot open
profiling:/k/build/lib/cmdline.gcda:Cannot open
"""


def test_kunit_py_output_is_read_as_kunit_py_prints_it(tmp_path):
    bench = script()
    assert bench.verdict(KUNIT_OUT, str(tmp_path / "none.json")) == "10 tests: passed: 10"
    assert bench.verdict("[10:00] Building KUnit Kernel ...\nERROR:root:make failed",
                         str(tmp_path / "none.json")) == "did not run the tests"
    assert [float(x) for x in bench.ELAPSED.search(KUNIT_OUT).groups()] == [
        1080.5, 2.1, 1075.2, 3.2]
    assert bench.trouble(KUNIT_OUT) == ["profiling:/k/build/lib/cmdline.gcda:Cannot open"]


def test_suites_passed_reads_kunit_json(tmp_path):
    bench = script()
    (tmp_path / "r.json").write_text(json.dumps({"sub_groups": [
        {"name": "cmdline", "test_cases": [{"status": "PASS"}, {"status": "PASS"}]},
        {"name": "list_sort", "test_cases": [{"status": "PASS"}, {"status": "FAIL"}]},
        {"name": "empty", "test_cases": []}]}))
    assert bench.suites_passed(str(tmp_path / "r.json")) == {
        "cmdline": "PASS", "list_sort": "FAIL", "empty": "FAIL"}
    assert bench.suites_passed(str(tmp_path / "missing.json")) == {}
