#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make check: the test suite in two pytest processes that run at once.

The tests that move the kernel tree (lab states, pages, the lab tests)
must run one after the other: they share the work directory's one
checkout.  The others never touch that checkout: the host-only tests,
those that build modules against the read-only mainline kernel, those
that make a worktree of their own (the exercises' checks, the Kconfig
tests).  They run in a second process next to the first, on the
core the first leaves idle while a single-CPU guest boots or a test reads
its results (a cold run measured one core idle 15 to 45 % of the time in
its last 50 minutes).

The first process prints as it goes; the second writes to
check-other.log in the work directory, printed in full when both are
done.  Closing line: the sum of both, "check: N passed, N failed, N
skipped"; exit status 0 only if both passed.  Arguments are passed to
both pytest runs (for example -x, or -k EXPR).
"""

import json
import os
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"
# GCOVLAB_CHECK_STREAM of each process: conftest names its files after it
# (check-times.<stream>.txt, check-counts.<stream>.txt, prebuild.<stream>.log).
STREAMS = ("tree", "other")

# The second process: tests that leave the kernel tree's checkout alone
# (they may read the tree, build against build/mainline, make a
# worktree of their own, or move a tree of their own in a work directory
# of their own: conftest.own_work).  Everything else under tests/, tests/debug
# aside, runs in the first.
SECOND = [
    "tests/unit/test_bench.py",
    "tests/unit/test_check.py",
    "tests/unit/test_exercise.py",
    "tests/unit/test_host_variants.py",
    "tests/unit/test_kept_builds.py",
    "tests/unit/test_report_capture.py",
    "tests/unit/test_gcovjson.py",
    "tests/unit/test_standin.py",
    "tests/unit/test_tool.py",
    "tests/test_docs.py",
    "tests/test_exercises.py",
    "tests/test_format_host.py",
    "tests/test_gcda_normalise.py",
    "tests/test_stress_summary.py",
    "tests/test_series_v2_kbuild.py",
    "tests/test_series_v3_kbuild.py",
    "tests/test_faults.py",
    "tests/test_e2e.py",
    "tests/test_kunit.py",
    "tests/test_mainline_fix.py",
    "tests/test_scripts.py",
    "tests/labs/test_lab03_seqwrite.py",
]

# Builds kept per tree state (kbuild.restore_or_keep) for the whole run:
# the series' twelve prefixes (tests/test_bisect.py) and the states the
# pages and lab tests move through, so that the next make check puts every
# one of them back instead of building it again (about 100 MB each).
KEEP_BUILDS = "24"

# how many of the slowest tests check-run.json names
SLOWEST = 10


def work_root():
    return os.environ.get("GCOVLAB_WORK") or os.path.join(
        os.path.expanduser("~"), ".cache", "gcov-kernel-labs")


def counts_path(stream):
    return os.path.join(work_root(), "check-counts.%s.txt" % stream)


def main(args):
    missing = [f for f in SECOND if not os.path.exists(os.path.join(REPO, f))]
    if missing:
        sys.exit("check: tools/check.py names test files that do not exist: %s"
                 % ", ".join(missing))
    state = work_state()
    os.makedirs(work_root(), exist_ok=True)
    log_path = os.path.join(work_root(), "check-other.log")
    # each process's counts and times are written at its end: none may be
    # taken from an earlier run
    for stream in STREAMS:
        for path in (counts_path(stream), times_path(stream)):
            if os.path.exists(path):
                os.remove(path)
    base = [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "--durations=10"]
    os.environ.setdefault("GCOVLAB_KEEP_BUILDS", KEEP_BUILDS)
    commit = subprocess.run(["git", "-C", REPO, "describe", "--always", "--dirty"],
                            text=True, capture_output=True).stdout.strip() or "?"
    started = time.time()
    start = time.monotonic()
    print("check: two pytest processes: the tests that move the kernel tree here, "
          "the others (%d files) beside them, their output in %s" % (len(SECOND), log_path),
          flush=True)
    with open(log_path, "w", encoding="utf-8") as log:
        second = subprocess.Popen(
            base + SECOND + args, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
            env=dict(os.environ, GCOVLAB_CHECK_STREAM="other"))
        try:
            first = subprocess.run(
                base + ["--ignore=tests/debug"] + ["--ignore=" + f for f in SECOND] +
                ["tests"] + args, cwd=REPO,
                env=dict(os.environ, GCOVLAB_CHECK_STREAM="tree"))
        except KeyboardInterrupt:
            second.terminate()
            second.wait()
            raise
        if second.poll() is None:
            print("check: the tree's tests are done after %d s; waiting for the others ..."
                  % (time.monotonic() - start), flush=True)
        second.wait()
    with open(log_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    print("\n==== the tests that leave the kernel tree alone (%s) ====" % log_path)
    print(text, end="" if text.endswith("\n") else "\n")
    total = total_counts()
    took = time.monotonic() - start
    slowest = merge_times(took)
    if not args:
        try:
            write_record(dict(started=started, seconds=took, work=state, commit=commit,
                              counts=total, exit=[first.returncode, second.returncode],
                              slowest=slowest))
        except (OSError, ValueError) as e:
            print("check: note: could not write %s: %s" % (record_path(), e))
    print("check: %d passed, %d failed, %d skipped (both processes, %d min %02d s)" % (
        total[0], total[1], total[2], took // 60, took % 60))
    # 5: the selection (-k) left one process nothing to run
    good = (0, 5) if args else (0,)
    return 0 if first.returncode in good and second.returncode in good else 1


def record_path():
    return os.path.join(work_root(), "check-run.json")


def times_path(stream):
    return os.path.join(work_root(), "check-times.%s.txt" % stream)


def work_state():
    """'cold': the work directory is empty or missing (no tree, no builds,
    no ccache); 'warm': it has the tree and builds; 'partial': anything
    between (the figure of such a run is neither)."""
    root = work_root()
    have = [name for name in ("linux", "build", "ccache")
            if os.path.isdir(os.path.join(root, name))]
    if not have:
        return "cold"
    return "warm" if "linux" in have and "build" in have else "partial"


def stream_seconds(stream):
    """A process's own time, from the first line of its check-times file
    (None: the process wrote none)."""
    try:
        with open(times_path(stream), encoding="utf-8") as f:
            m = re.search(r": \d+ tests in (\d+(?:\.\d+)?) s ", f.readline())
    except OSError:
        return None
    return float(m.group(1)) if m else None


def write_record(run):
    """check-run.json, what tools/bench.py --only suite reads: a whole run
    only (none with pytest arguments, which select or stop early).  RUN has
    started (epoch), seconds, work (work_state() at the start), commit,
    counts ([passed, failed, skipped]), exit (both processes), slowest
    ([(seconds, test)], slowest first)."""
    passed, failed, skipped = run["counts"]
    record = {"started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(run["started"])),
              "seconds": round(run["seconds"], 1), "work": run["work"],
              "commit": run["commit"], "passed": passed, "failed": failed,
              "skipped": skipped, "exit": run["exit"],
              "streams": {stream: stream_seconds(stream) for stream in STREAMS},
              "slowest": [[secs, test] for secs, test in run["slowest"][:SLOWEST]]}
    with open(record_path() + ".tmp", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(record_path() + ".tmp", record_path())


def merge_times(took):
    """check-times.txt: both processes' times, slowest first."""
    rows = []
    for stream in STREAMS:
        try:
            with open(times_path(stream), encoding="utf-8") as f:
                rows += [line for line in f if line.strip() and not line.startswith("#")]
        except OSError:
            pass
    rows.sort(key=lambda line: -float(line.split()[0]))
    path = os.path.join(work_root(), "check-times.txt")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("# %s: %d tests in %d s (%d min %02d s), two processes (check-times.tree.txt, "
                "check-times.other.txt); seconds per test, slowest first\n" % (
                    time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(time.time() - took)),
                    len(rows), took, took // 60, took % 60))
        f.writelines(rows)
    os.replace(path + ".tmp", path)
    return [(float(line.split(None, 1)[0]), line.split(None, 1)[1].strip()) for line in rows]


def total_counts():
    """[passed, failed, skipped] of both processes; a process that left no
    counts (it crashed, or was killed) counts as one failure."""
    total = [0, 0, 0]
    for stream in STREAMS:
        got = read_counts(stream)
        if got is None:
            print("check: the %s process left no counts (it did not finish)" % stream)
            got = (0, 1, 0)
        total = [a + b for a, b in zip(total, got)]
    return total


def read_counts(stream):
    try:
        with open(counts_path(stream), encoding="utf-8") as f:
            return tuple(int(x) for x in f.read().split())
    except (OSError, ValueError):
        return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
