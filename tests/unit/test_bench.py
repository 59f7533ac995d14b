# SPDX-License-Identifier: GPL-2.0
"""make bench's pieces that need no kernel: the guest's timing marks, the
figures' statistics and data files, and the site's tables and charts made
from those files (docs/_ext/benchsite.py)."""

import argparse
import json
import os
import statistics
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, os.path.join(REPO, "docs", "_ext"))

import bench  # noqa: E402
import benchsite  # noqa: E402


def test_guest_times_split_the_run(tmp_path):
    (tmp_path / "transfer.log").write_text(
        "GCOVLAB-STATUS 0\nGCOVLAB-TIMES 1.25 1.75 4.50\nGCOVLAB-DONE 3\n")
    boot, workload, sending = bench.guest_times(str(tmp_path))
    assert (boot, workload, round(sending, 2)) == (1.25, 0.5, 2.75)


def test_guest_times_missing_is_named(tmp_path):
    (tmp_path / "transfer.log").write_text("GCOVLAB-STATUS 0\nGCOVLAB-DONE 0\n")
    with pytest.raises(bench.BenchError, match="no GCOVLAB-TIMES line"):
        bench.guest_times(str(tmp_path))


def test_figures_option():
    assert bench.figures("edit,transfer") == ["edit", "transfer"]
    for bad in ("", "edit,fast", "speed"):
        with pytest.raises(argparse.ArgumentTypeError, match="figures are demo, edit"):
            bench.figures(bad)


def test_figure_prints_min_median_max_and_saves(tmp_path, capsys):
    fig = bench.Figure("t", "a test figure")
    for v in (3.0, 1.0, 2.0, 10.0):
        fig.add("loop", v)
    fig.add("files", 598, "files")
    fig.print()
    out = capsys.readouterr().out
    assert "loop   min 1.0 / median 2.5 / max 10.0 s (4 runs)" in out
    assert "files  min 598 / median 598 / max 598 files (1 run)" in out
    fig.save(str(tmp_path), 4, "tools/bench.py --only t")
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["series"][0] == {"label": "loop", "unit": "s", "values": [3.0, 1.0, 2.0, 10.0]}
    assert data["machine"]["cores"] == os.cpu_count() and data["command"].endswith("--only t")


def sample():
    return {"figure": "x", "runs": 3, "measured": "2026-12-04 21:00 UTC", "commit": "abc",
            "command": "tools/bench.py --only x", "machine": {"cpu": "CPU", "cores": 2},
            "series": [{"label": "warm: a", "unit": "s", "values": [1.0, 3.0, 2.0]},
                       {"label": "warm: b", "unit": "bytes", "values": [1234567]},
                       {"label": "cold", "unit": "s", "values": [99.0]}],
            "notes": ["a note"]}


def test_site_table_rows_are_the_data():
    rows = "\n".join(benchsite.table(sample()))
    assert "* - warm: a\n     - 1.0\n     - 2.0\n     - 3.0\n     - s\n     - 3" in rows
    assert "* - warm: b\n     - 1,234,567\n     - 1,234,567\n     - 1,234,567" in rows
    lines = benchsite.provenance(sample())
    assert "at commit ``abc``" in lines[0] and "``tools/bench.py --only x``" in lines[0]
    assert lines[-1] == "a note"


def test_site_chart_draws_the_chosen_medians():
    svg = benchsite.bars(sample(), ["warm: a", "cold"])
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    # Text stays text (svg.fonttype none): the labels and medians are readable.
    assert "warm: a" in svg and "cold" in svg and "warm: b" not in svg
    assert " %.1f" % statistics.median([1.0, 3.0, 2.0]) in svg and " 99.0" in svg
    with pytest.raises(ValueError, match="no series of x starts with"):
        benchsite.bars(sample(), ["nothing"])


def test_site_read_chart_has_both_kernels():
    data = {"figure": "read", "series": [
        {"label": "series: us per read of one file", "unit": "us",
         "sizes": [4096, 8192], "values": [10.0, 19.0]},
        {"label": "mainline: us per read of one file", "unit": "us",
         "sizes": [4096, 8192], "values": [11.0, 21.0]}]}
    svg = benchsite.read_lines(data)
    assert "series" in svg and "mainline" in svg and ".gcda file size (KiB)" in svg


def suite_record(tmp_path, **changes):
    record = {"started": "2026-12-06 15:16 UTC", "seconds": 1281.0, "work": "warm",
              "commit": "abc1234", "passed": 518, "failed": 0, "skipped": 0,
              "exit": [0, 0], "streams": {"tree": 1246.0, "other": 729.0},
              "slowest": [[200.0 - i, "tests/test_%02d.py::t[*_%d]" % (i, i)]
                          for i in range(10)]}
    record.update(changes)
    (tmp_path / "check-run.json").write_text(json.dumps(record))


def test_suite_figure_is_the_last_make_check(tmp_path):
    """--only suite reads what make check left: nothing without a record;
    cold or warm after the record; the ten slowest tests in order."""
    assert bench.fig_suite(str(tmp_path)) is None
    suite_record(tmp_path)
    fig = bench.fig_suite(str(tmp_path))
    assert fig.name == "suite-warm" and fig.refused is None
    assert fig.series["make check, both processes"] == [1281.0 / 60]
    assert fig.series["the other tests (second process)"] == [729.0 / 60]
    assert fig.series["tests failed"] == [0] and fig.units["tests failed"] == "tests"
    slow = [k for k in fig.series if k.startswith("slowest: ")]
    assert slow == ["slowest: tests/test_%02d.py::t[*_%d]" % (i, i) for i in range(10)]
    assert fig.series[slow[0]] == [200.0]
    fig.save(str(tmp_path / "out"), 1, "make check, then tools/bench.py --only suite")
    data = json.loads((tmp_path / "out" / "suite-warm.json").read_text())
    assert (data["measured"], data["commit"], data["runs"]) == (
        "2026-12-06 15:16 UTC", "abc1234", 1)
    # the site's table shows a test's name as it is, * and _ included
    rows = "\n".join(benchsite.table(data))
    assert "slowest: tests/test\\_00.py :: t\\[\\*\\_0\\]" in rows


def test_suite_figure_of_a_failed_or_partial_run_is_not_saved(tmp_path, capsys):
    suite_record(tmp_path, failed=2, exit=[1, 0])
    assert "failed" in bench.fig_suite(str(tmp_path)).refused
    suite_record(tmp_path, work="partial")
    assert "neither" in bench.fig_suite(str(tmp_path)).refused
    (tmp_path / "check-run.json").write_text('{"seconds": 3}')
    with pytest.raises(bench.BenchError, match="not a record make check wrote"):
        bench.fig_suite(str(tmp_path))
    suite_record(tmp_path, failed=1, exit=[1, 0])
    os.environ["GCOVLAB_WORK"] = str(tmp_path)
    try:
        assert bench.main(["--only", "suite", "--save", str(tmp_path / "out")]) == 0
    finally:
        del os.environ["GCOVLAB_WORK"]
    assert "not saved: this make check failed" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()


def test_demo_phases_read_both_time_forms():
    out = ("gcovlab: extracting /usr/src/linux-source-6.1.tar.xz ...\n"
           "gcovlab: extracting /usr/src/linux-source-6.1.tar.xz: done in 10.7 s\n"
           "gcovlab: built the mainline kernel in 3 min 58 s (587 files compiled): "
           "/tmp/w/build/mainline/arch/x86/boot/bzImage\n"
           "gcovlab: built the lab kernel in 20.5 s (3 files compiled): /x/bzImage\n")
    assert bench.demo_phases(out) == [
        ("extracting /usr/src/linux-source-6.1.tar.xz", 10.7),
        ("built the mainline kernel", 238.0), ("built the lab kernel", 20.5)]
