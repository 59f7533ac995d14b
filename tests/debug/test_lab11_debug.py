# SPDX-License-Identifier: GPL-2.0
"""Lab 11: the whole series on the debug kernel (vm/debug.config: SMP, two
vCPUs, KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, kmemleak, the
hung-task and soft-lockup detectors, failslab).

- v2 runs labs/lab11/lab11.sh clean: the concurrency workload, bad input
  (badio, a reader who is not root, gcov_persist= garbage on the command
  line), failslab during a module load and a .gcda read (every allocation
  failed in turn, labs/lab11/failnth.c), and a kmemleak scan,
  with no report from any checker; then the workload again with
  gcov_persist=0.
- v1's debugfs bug put back (labs/lab11/v1-remove-under-lock.patch, as the
  Lab 11 page does) stops the same workload, and the hung-task detector
  says where.
- Mainline 6.1's own gcov code under the same workload and debug kernel
  stops as v1 does (removal under its node_lock), with the hung-task
  report, in most runs: a finding the Lab 11 page shows side by side with
  v2.
- Mainline's self-wait (labs/lab11/selfwait.sh, one write to the file of
  an unloaded module) stops mainline every time; mainline with its fix
  (patches/mainline-fix/, --fixed) returns from it, and runs the same
  stress with no report from any checker, with gcov_persist=1 and 0.
"""

import os
import re
import subprocess

import pytest

from conftest import KERNEL_REPORTS, REPO, check_stress, gcovlab, ok, patched_branch

STRESS = os.path.join(REPO, "labs", "lab11")
GARBAGE = "gcov_persist=garbage gcov_persist=-1 gcov_persist=99999999999999999999"


def console_of(out):
    with open(os.path.join(out, "console.log"), encoding="utf-8", errors="replace") as f:
        return f.read()


def stress_figures(text):
    """{worker: (ok, failed)} from stress.sh's summary lines."""
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
        r"stress: (\S+) (\d+) ok, (\d+) failed", text)}


def stress_run(kernel, out, timeout, append):
    """labs/lab11/stress.sh on the debug kernel of KERNEL (--mainline,
    --fixed): (OUT, the finished process)."""
    return out, gcovlab("run", kernel, "--variant", "debug", "--module", STRESS,
                        "--workload", os.path.join(STRESS, "stress.sh"), "--out", out,
                        "--timeout", str(timeout), "--append", append)


def said(runs):
    """Print each run's exit status, kernel reports and stress figures."""
    for name, (out, proc) in runs.items():
        text = console_of(out) if os.path.exists(out / "console.log") else ""
        found = [bad for bad in KERNEL_REPORTS if bad in text]
        print("lab11: %-18s exit %3d, kernel reports %s, %s" % (
            name, proc.returncode, found or "none", stress_figures(proc.stdout)))
    return runs


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    """badio and failnth, built static as the Lab 11 page builds them."""
    tmp = tmp_path_factory.mktemp("helpers")
    built = []
    for name in ("badio", "failnth"):
        subprocess.run(["gcc", "-static", "-Os", "-Wall", "-Werror", "-o", str(tmp / name),
                        os.path.join(STRESS, name + ".c")], check=True)
        built.append(str(tmp / name))
    return built


@pytest.fixture(scope="module")
def debug_runs(tree, helpers, tmp_path_factory):
    """Every debug-kernel run of this file, in one tree session."""
    tmp = tmp_path_factory.mktemp("lab11")
    runs = {}
    files = ["--file", os.path.join(STRESS, "stress.sh"), "--file", helpers[0],
             "--file", helpers[1]]
    try:
        ok(gcovlab("lab", "11"))
        ok(gcovlab("build", "--lab", "11"))
        out = tmp / "v2"
        runs["v2"] = (out, gcovlab(
            "run", "--lab", "11", "--module", STRESS, "--workload",
            os.path.join(STRESS, "lab11.sh"), *files, "--out", out, "--timeout", "600",
            "--append", "STRESS_SECONDS=60 " + GARBAGE))
        out = tmp / "v2-persist0"
        runs["v2-persist0"] = (out, gcovlab(
            "run", "--lab", "11", "--module", STRESS, "--workload",
            os.path.join(STRESS, "stress.sh"), "--out", out, "--timeout", "400",
            "--append", "STRESS_SECONDS=20 gcov_persist=0"))
        # v1's bug, put back as the page does it.  The page stresses for
        # 20 s; here 60, for the race more chances: a run of 12-06 went 20 s
        # without meeting it.  When it hangs, as nearly always within the
        # first seconds, the run takes the 150 s of its timeout either way.
        with patched_branch(tree, "lab-11", "gcovlab-test-lab11",
                            os.path.join(STRESS, "v1-remove-under-lock.patch")):
            out = tmp / "v1"
            runs["v1"] = (out, gcovlab(
                "run", "--tree", "--variant", "debug", "--module", STRESS, "--workload",
                os.path.join(STRESS, "stress.sh"), "--out", out, "--timeout", "150",
                "--append", "STRESS_SECONDS=60"))
    finally:
        ok(gcovlab("lab", "0"))
    runs["mainline"] = stress_run("--mainline", tmp / "mainline", 200, "STRESS_SECONDS=60")
    return said(runs)


@pytest.fixture(scope="module")
def fix_runs(tmp_path_factory):
    """Mainline's self-wait and its fix (patches/mainline-fix/): the
    mainline and fixed debug kernels, whose trees no test moves."""
    tmp = tmp_path_factory.mktemp("lab11-fix")
    runs = {}
    selfwait = os.path.join(STRESS, "selfwait.sh")
    driver = os.path.join(REPO, "labs", "driver")
    for name, kernel in (("mainline-selfwait", "--mainline"),
                         ("fixed-selfwait", "--fixed")):
        out = tmp / name
        runs[name] = (out, gcovlab(
            "run", kernel, "--variant", "debug", "--module", driver, "--workload",
            selfwait, "--out", out, "--timeout", "120"))
    runs["fixed"] = stress_run("--fixed", tmp / "fixed", 400, "STRESS_SECONDS=60")
    runs["fixed-persist0"] = stress_run("--fixed", tmp / "fixed-persist0", 400,
                                        "STRESS_SECONDS=20 gcov_persist=0")
    return said(runs)


def test_v2_debug_kernel_clean(debug_runs):
    out, proc = debug_runs["v2"]
    console = check_stress(out, proc, 2)
    # Every checker was there to see.
    for banner in ("KernelAddressSanitizer initialized", "Lock dependency validator",
                   "Kernel memory leak detector initialized"):
        assert banner in console, banner
    assert "lab11: done, status 0" in proc.stdout, proc.stdout[-3000:]


def test_v2_bad_input(debug_runs):
    out, proc = debug_runs["v2"]
    lines = [l for l in proc.stdout.splitlines() if l.startswith("badio:")]
    assert not [l for l in lines if "UNEXPECTED" in l], "\n".join(lines)
    for what in ("write 0 bytes", "write 1 MiB", "write 256 binary bytes",
                 "read there: 0", "seek to -1"):
        assert [l for l in lines if "a.gcda: " + what in l], (what, lines)
        assert [l for l in lines if "reset: " + what in l], (what, lines)
    # A .gcda file is seekable within its image; gcov/reset's seeks do
    # nothing (noop_llseek, as in mainline).
    assert [l for l in lines if "a.gcda: seek to -1: -1 (Invalid argument)" in l], lines
    assert "a user other than root cannot read" in proc.stdout
    # gcov_persist= garbage is reported and the default kept: the ghosts
    # of the stress run were there (load-a reads its file after rmmod).
    console = console_of(out)
    for value in ("garbage", "-1", "99999999999999999999"):
        assert "invalid gcov_persist=%s, keeping 1" % value in console, value


def test_v2_failslab(debug_runs):
    out, proc = debug_runs["v2"]
    scans = {}
    for what, allocs, failed, coped in re.findall(
            r"failnth: (load|read) \S+: (\d+) allocations failed in turn: (\d+) times the "
            r"(?:load|read) failed, (\d+) times it succeeded", proc.stdout):
        scans[what] = (int(allocs), int(failed), int(coped))
    assert set(scans) == {"load", "read"}, proc.stdout[-3000:]
    for what, (allocs, failed, coped) in scans.items():
        # Allocations really failed, each once, and the kernel said so.
        assert allocs > 0 and failed > 0 and failed + coped == allocs, (what, scans)
    assert "cannot be unloaded" not in proc.stdout
    assert "with no allocation failing" not in proc.stdout
    # The scan reached kernel/gcov's own allocations during module load:
    # each failure there is reported by name, and the module still loads.
    console = console_of(out)
    assert re.search(r"gcov: \S+\.gcda: (out of memory, not exported|not exported "
                     r"\(error -12\))", console), "no gcov allocation failed"
    assert "lab11: after failslab: load, read and unload work" in proc.stdout


def test_v2_no_leak(debug_runs):
    _out, proc = debug_runs["v2"]
    assert "lab11: kmemleak: 0 suspects (" in proc.stdout, proc.stdout[-3000:]


def test_v2_persist0_debug(debug_runs):
    out, proc = debug_runs["v2-persist0"]
    console = check_stress(out, proc, 2)
    assert "gcov_persist=0" in console


def test_v1_bug_hangs_with_report(debug_runs):
    out, proc = debug_runs["v1"]
    console = console_of(out)
    # The guest stopped making progress: the tool's timeout ended it.
    assert proc.returncode == 124, proc.stdout[-3000:]
    # The hung-task detector names the blocked task and where it waits.
    m = re.search(r"INFO: task (\S+):\d+ blocked for more than \d+ seconds", console)
    assert m, console[-4000:]
    assert "debugfs" in console[m.start():] or "gcov" in console[m.start():], \
        console[m.start():m.start() + 4000]


def test_mainline_under_the_same_workload(debug_runs):
    """A finding of the lab, not a defect of the project: mainline 6.1
    removes a debugfs file under its node_lock (gcov_seq_write() and
    reset_write()) while an opener of that file waits for node_lock.  It
    is a race without v1's widened window: of five 20 s runs measured
    here, four stopped (hung-task reports 22 to 32 s after boot).  When it stops, the hung-task report must show that cycle; when
    it survives, the run is printed as such (the 60 s here make that
    rarer)."""
    out, proc = debug_runs["mainline"]
    console = console_of(out)
    assert "KernelAddressSanitizer initialized" in console
    assert "stress: 60 s, 2 CPUs" in console
    if proc.returncode != 124:
        print("lab11: mainline did not stop in this run: %s" % stress_figures(console))
        assert "stress: STALLED" not in console
        return
    assert "stress: STALLED" in console
    m = re.search(r"INFO: task (\S+):\d+ blocked for more than \d+ seconds", console)
    assert m, console[-4000:]
    assert "node_lock" in console and "debugfs_remove" in console


def test_mainline_waits_for_itself(fix_runs):
    """One write to the .gcda file of an unloaded module, nothing beside
    it: the writer waits in debugfs_remove() for its own reference."""
    out, proc = fix_runs["mainline-selfwait"]
    console = console_of(out)
    assert proc.returncode == 124, proc.stdout[-3000:]
    assert "selfwait: echo 0 > " in console and "the write returned" not in console
    report = subprocess.run([os.path.join(STRESS, "blocked.py"), str(out / "console.log"),
                             "debugfs_remove"], text=True, capture_output=True)
    assert report.returncode == 0, console[-4000:]
    stack = report.stdout.split()
    for frame in ("remove_one", "debugfs_remove", "remove_node", "gcov_seq_write",
                  "full_proxy_write"):
        assert frame in stack, report.stdout


def test_the_fix_returns_from_the_self_wait(fix_runs):
    out, proc = fix_runs["fixed-selfwait"]
    console = console_of(out)
    assert proc.returncode == 0, proc.stdout[-3000:] + console[-3000:]
    for line in ("the write returned", "the file is gone", "the reset returned",
                 "loaded again, its file is back"):
        assert "selfwait: " + line in console, console[-3000:]
    found = [bad for bad in KERNEL_REPORTS if bad in console]
    assert not found, "the kernel reported %s:\n%s" % (found, console[-4000:])
    assert ", 2 vCPUs" in proc.stdout, proc.stdout[-2000:]


def test_the_fix_under_the_stress_debug_kernel_clean(fix_runs):
    """0 hung tasks, 0 lockdep reports, 0 KASAN reports, on two vCPUs.

    What may still fail is mainline's debugfs design, not the fix:
    load-a reads an unloaded module's file through a descriptor opened
    before the unload, and once a reset (or gcov_persist=0) has removed
    the file, debugfs's proxy answers that read with EIO.  Every failed
    load-a round must be such a read; every other worker never fails."""
    for name in ("fixed", "fixed-persist0"):
        out, proc = fix_runs[name]
        console = console_of(out)
        found = [bad for bad in KERNEL_REPORTS if bad in console]
        assert not found, "%s: the kernel reported %s:\n%s" % (name, found, console[-4000:])
        for banner in ("KernelAddressSanitizer initialized", "Lock dependency validator"):
            assert banner in console, banner
        assert proc.returncode in (0, 1), proc.stdout[-3000:]
        assert "stress: STALLED" not in proc.stdout
        assert re.search(r"stress: done, status [01]", proc.stdout), proc.stdout[-3000:]
        assert ", 2 CPUs" in proc.stdout
        figures = stress_figures(proc.stdout)
        for worker in ("load-b", "read-1", "read-2", "read-3", "reset-all"):
            assert figures[worker][0] > 0 and figures[worker][1] == 0, (name, figures)
        eio = proc.stdout.count("cat: read error: Input/output error")
        assert figures["load-a"][1] == eio, (name, figures["load-a"], eio)
