# SPDX-License-Identifier: GPL-2.0
"""labs/lab11/summary.py (Lab 11's table) on console logs of the shapes a
finished, a stalled and a broken run leave; and labs/lab11/badio.c, built
as the page builds it, on a regular file of the host."""

import csv
import io
import os
import subprocess

from conftest import REPO

SUMMARY = os.path.join(REPO, "labs", "lab11", "summary.py")

FINISHED = """\
[    0.1] kasan: KernelAddressSanitizer initialized
gcovlab: workload start
stress: 20 s, 2 CPUs, console=ttyS0 STRESS_SECONDS=20
stress: load-a 40 ok, 0 failed
stress: load-b 60 ok, 0 failed
stress: read-1 100 ok, 0 failed
stress: read-2 100 ok, 0 failed
stress: read-3 100 ok, 0 failed
stress: reset-all 300 ok, 0 failed
stress: reset-one 100 ok, 0 failed
stress: done, status 0
lab11: kmemleak: 0 suspects
lab11: done, status 0
gcovlab: workload end, exit status 0
"""

STALLED = """\
gcovlab: workload start
stress: 20 s, 2 CPUs, console=ttyS0 STRESS_SECONDS=20
[   22.2] INFO: task sh:53 blocked for more than 10 seconds.
[   32.4] INFO: task sh:53 blocked for more than 20 seconds.
stress: load-a 2 ok, 0 failed
stress: load-b 2 ok, 0 failed
stress: read-1 1 ok, 0 failed
stress: reset-all 4 ok, 0 failed
stress: STALLED: still running 30 s after the deadline: load-a load-b
gcovlab: workload end, exit status 2
"""

BROKEN = FINISHED.replace("lab11: kmemleak: 0 suspects", "lab11: kmemleak: 3 suspects") \
    .replace("lab11: done, status 0", "[  40.0] BUG: KASAN: use-after-free in x\nlab11: done, status 1")


def run_dir(tmp_path, name, console, status=None):
    out = tmp_path / name
    out.mkdir()
    (out / "console.log").write_text(console)
    if status is not None:
        (out / "status").write_text("%d\n" % status)
    return out


def summary(*args):
    return subprocess.run([SUMMARY] + [str(a) for a in args], text=True,
                          capture_output=True)


def test_rows_for_finished_stalled_and_broken_runs(tmp_path):
    fin = run_dir(tmp_path, "fin", FINISHED, 0)
    stall = run_dir(tmp_path, "stall", STALLED)
    broken = run_dir(tmp_path, "broken", BROKEN, 1)
    proc = summary("--csv", "v2=%s" % fin, "v1=%s" % stall, "bad=%s" % broken)
    assert proc.returncode == 0, proc.stderr
    rows = {r["run"]: r for r in csv.DictReader(io.StringIO(proc.stdout))}
    assert rows["v2"] == {"run": "v2", "loads/s": "5.0", "reads/s": "15.0",
                          "resets/s": "20.0", "kernel reports": "none", "leaks": "0",
                          "outcome": "finished, all checks passed"}
    assert rows["v1"]["kernel reports"] == "hung task (at 22 s)"
    assert rows["v1"]["outcome"] == "stalled; VM stopped at the timeout"
    assert rows["v1"]["loads/s"] == "0.2" and rows["v1"]["leaks"] == "not scanned"
    assert rows["bad"]["kernel reports"] == "KASAN"
    assert rows["bad"]["leaks"] == "3" and rows["bad"]["outcome"] == "finished, status 1"
    text = summary("v2=%s" % fin).stdout.splitlines()
    assert text[0].split()[:3] == ["run", "loads/s", "reads/s"] and text[1].startswith("v2")


def test_bad_arguments_are_named(tmp_path):
    proc = summary(str(tmp_path))
    assert proc.returncode == 2 and "LABEL=OUT" in proc.stderr
    proc = summary("x=%s" % tmp_path)
    assert proc.returncode != 0 and "no console.log" in proc.stderr
    other = run_dir(tmp_path, "other", "gcovlab: workload start\nhello\n", 0)
    proc = summary("x=%s" % other)
    assert proc.returncode != 0 and "no stress.sh output" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_badio_on_a_regular_file(tmp_path):
    exe = tmp_path / "badio"
    subprocess.run(["gcc", "-static", "-Os", "-Wall", "-Werror", "-o", str(exe),
                    os.path.join(REPO, "labs", "lab11", "badio.c")], check=True)
    data = tmp_path / "data"
    data.write_bytes(b"adcg" + bytes(100))
    proc = subprocess.run([str(exe), str(data)], text=True, capture_output=True)
    assert proc.returncode == 0, proc.stdout
    assert "seek to the end: 104" in proc.stdout
    assert "read there: 0" in proc.stdout
    assert "seek to -1: -1 (Invalid argument)" in proc.stdout
    assert "write 1 MiB: 1048576" in proc.stdout
    assert "UNEXPECTED" not in proc.stdout
    assert subprocess.run([str(exe)], capture_output=True).returncode == 2


def test_failnth_builds_and_refuses_bad_use(tmp_path):
    exe = tmp_path / "failnth"
    subprocess.run(["gcc", "-static", "-Os", "-Wall", "-Werror", "-o", str(exe),
                    os.path.join(REPO, "labs", "lab11", "failnth.c")], check=True)
    for args in ([], ["load"], ["write", "x"]):
        proc = subprocess.run([str(exe)] + args, text=True, capture_output=True)
        assert proc.returncode == 2 and "usage: failnth" in proc.stderr, args


HUNG = """\
[   22.1] INFO: task sh:64 blocked for more than 10 seconds.
[   22.1]       Tainted: G           O     N 6.1.192+ #8
[   22.1] Call Trace:
[   22.1]  <TASK>
[   22.1]  __schedule+0x757/0x7ba
[   22.1]  ? devtmpfsd+0x2f/0x2f
[   22.1]  schedule+0x53/0x90
[   22.1]  debugfs_remove+0x3b/0x52
[   22.1]  gcov_tree_end+0x8d/0x15c
[   22.1]  </TASK>
[   22.2] INFO: task dd:91 blocked for more than 10 seconds.
[   22.2]  <TASK>
[   22.2]  __mutex_lock+0x2a3/0x508
[   22.2]  gcov_file_open+0x35/0x23a
[   22.2]  open_proxy_open+0x1/0x2
[   22.2]  </TASK>
[   32.1] INFO: task sh:64 blocked for more than 20 seconds.
[   32.1]  <TASK>
[   32.1]  debugfs_remove+0x3b/0x52
[   32.1]  </TASK>
"""


def test_blocked_shows_each_task_once_without_stale_frames(tmp_path):
    console = tmp_path / "console.log"
    console.write_text(HUNG)
    blocked = os.path.join(REPO, "labs", "lab11", "blocked.py")
    proc = subprocess.run([blocked, str(console)], text=True, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("task sh, pid 64:\n    __schedule\n    schedule\n"
                           "    debugfs_remove\n    gcov_tree_end\n"
                           "task dd, pid 91:\n    __mutex_lock\n    gcov_file_open\n"
                           "    open_proxy_open\n")
    proc = subprocess.run([blocked, str(console), "gcov_file_open"], text=True,
                          capture_output=True)
    assert proc.stdout.startswith("task dd, pid 91:") and "pid 64" not in proc.stdout
    proc = subprocess.run([blocked, str(console), "reset_write"], text=True,
                          capture_output=True)
    assert proc.returncode == 1 and "no hung-task report with reset_write" in proc.stdout
    proc = subprocess.run([blocked, str(tmp_path / "none")], text=True, capture_output=True)
    assert proc.returncode == 2 and "No such file" in proc.stderr
