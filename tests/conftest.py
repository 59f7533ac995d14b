# SPDX-License-Identifier: GPL-2.0
"""Shared helpers and fixtures of the gcov-kernel-labs test suite.

The slow parts (kernel tree, kernel builds) live in the work directory,
GCOVLAB_WORK or ~/.cache/gcov-kernel-labs, and are reused across tests and
across runs: a warm 'make check' rebuilds nothing.
"""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib.util import Lock  # noqa: E402
# Which of make check's two pytest processes this is (tools/check.py), or
# None for pytest run by hand: it names this run's files in the work
# directory, so that the two do not write over each other's.
STREAM = os.environ.get("GCOVLAB_CHECK_STREAM")
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


def run_file(name, ext):
    """NAME.EXT in the work directory, NAME.STREAM.EXT in a make check process."""
    return os.path.join(work_root(), "%s.%s%s" % (name, STREAM + "." if STREAM else "", ext))


def other_compiler(*programs):
    """Debian 12's other compilers (gcc-11, gcov-11, clang-15), which the
    tests use as the real thing and ./setup.sh installs: the first
    program's path, or a failure that says how to get them."""
    missing = [p for p in programs if not shutil.which(p)]
    assert not missing, "%s not installed: ./setup.sh installs them (apt-get install %s)" % (
        ", ".join(missing), " ".join(sorted({"gcc-11" if "11" in p else "clang-15"
                                            for p in missing})))
    return shutil.which(programs[0])


def linked_objects(build):
    """The objects a built kernel links, relative to its build directory:
    vmlinux.a's members and init/version-timestamp.o, which
    link-vmlinux.sh adds.  (A build directory keeps the objects, .cmd and
    .gcno files of earlier lab states and configurations: only these are
    the kernel's.)"""
    members = subprocess.run(["ar", "t", os.path.join(build, "vmlinux.a")], text=True,
                             capture_output=True, check=True).stdout.split()
    return [os.path.relpath(os.path.join(build, p), build) for p in members] + \
        ["init/version-timestamp.o"]


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
def tree_repo():
    """The kernel tree's git repository (made if missing), for a test that
    makes a worktree of its own and leaves the checkout alone: it may be
    on any branch (tools/check.py runs such tests beside those that move
    it)."""
    ok(gcovlab("tree"))
    return os.path.join(work_root(), "linux")


@pytest.fixture(scope="session")
def kernel_headers():
    """The pristine mainline worktree, whose headers the host checks of
    Labs 5, 6 and 7 compile the student's code against
    (vm/gcovlablib/standin.py); made from the kernel tree if missing.  It
    never changes: the tests that move the tree can run beside."""
    from gcovlablib import standin
    from gcovlablib.work import Work
    work = Work(work_root())
    if not os.path.exists(os.path.join(work.root, "mainline.ready")):
        ok(gcovlab("tree"))
    return standin.headers(work)


@contextlib.contextmanager
def own_work(name):
    """WORK/NAME, a work directory of its own for a test file of make
    check's second process that has to move a kernel tree (the series'
    prefixes): a clone of the tree that borrows its objects (git clone
    --shared), the tree's tree.json, and a link to the shared ccache
    (its builds are at other paths, so they share nothing with the first
    process's, but the next run's builds of the same states hit).  Held
    under a lock (WORK/locks/own-NAME) for the block; kept across runs,
    made again when the tree's baseline is another commit or a clone was
    cut short."""
    main = work_root()
    root = os.path.join(main, name)
    tree = os.path.join(root, "linux")
    info = os.path.join(main, "tree.json")
    assert os.path.exists(info), "no %s: the kernel tree is not made (vm/gcovlab tree)" % info
    base = subprocess.run(["git", "-C", os.path.join(main, "linux"), "rev-parse",
                           "gcovlab-baseline"], text=True, capture_output=True,
                          check=True).stdout.strip()
    with Lock(os.path.join(main, "locks", "own-" + name), "using %s" % root):
        ready = os.path.join(root, "linux.ready")
        try:
            with open(ready, encoding="utf-8") as f:
                made = f.read().strip()
        except OSError:
            made = None
        if made != base:
            if os.path.exists(ready):
                os.remove(ready)
            if os.path.exists(tree):
                subprocess.run(["chmod", "-R", "u+w", tree], check=True)
                shutil.rmtree(tree)
            os.makedirs(root, exist_ok=True)
            subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout",
                            os.path.join(main, "linux"), tree], check=True)
            # its own branches only, not the first process's
            subprocess.run(["git", "-C", tree, "remote", "remove", "origin"], check=True)
            subprocess.run(["git", "-C", tree, "-c", "checkout.workers=0", "checkout", "-q",
                            "--detach", "gcovlab-baseline"], check=True)
            with open(ready, "w", encoding="utf-8") as f:
                f.write(base + "\n")
        shutil.copyfile(info, os.path.join(root, "tree.json"))
        os.makedirs(os.path.join(main, "ccache"), exist_ok=True)
        cache = os.path.join(root, "ccache")
        if not os.path.islink(cache):
            if os.path.isdir(cache):
                shutil.rmtree(cache)
            os.symlink(os.path.join("..", "ccache"), cache)
        yield root


@pytest.fixture(scope="session")
def mainline(tree_repo):
    ok(gcovlab("build", "--mainline"))
    return os.path.join(work_root(), "build", "mainline")


# The mainline kernels build from the read-only mainline worktree, which no
# test changes: they are built in the background, niced, on the core that
# the single-CPU guests and the host-only tests leave idle, instead of in
# front of the first test that needs them (on an empty work directory the
# whole-kernel one costs 8 minutes).  A test that needs one waits for it
# on the build's lock.  GCOVLAB_PREBUILD=0 turns this off; the log is
# prebuild.log in the work directory.
PREBUILD_FOR = {
    # test file -> the mainline kernels its tests use
    "test_e2e.py": ["mainline"],
    "test_kunit.py": ["mainline"],
    "test_kunit_series.py": ["mainline"],
    "test_pages.py": ["mainline"],
    "test_lab07_debugfs.py": ["mainline"],
    "test_lab09_all.py": ["mainline", "mainline-all"],
    "test_mainline_fix.py": ["mainline", "fixed"],
}
# A kernel needed late starts when the run reaches this test file, when
# that file is selected: measured on a cold run, the first half hour kept
# both cores busy (the foreground's cold builds, mainline's build, Lab 1's
# Kconfig checks) and the whole-kernel build took its share of them for
# 21 minutes; from the pages on, a core was idle 15 to 45 % of the time.
PREBUILD_FROM = {"mainline-all": "test_pages.py"}
_prebuild = {"procs": [], "later": []}


def prebuild_step(config):
    """The shell command that builds CONFIG."""
    if config == "fixed":
        return "%s build --fixed" % GCOVLAB
    return "%s build --mainline%s" % (GCOVLAB, " --variant all" if config == "mainline-all" else "")


def start_prebuild(configs, what):
    # The mainline kernel first, always: the tests wait for it, and a
    # whole-kernel build started beside it took half the CPU from it (a
    # cold run measured both building at once while both pytest processes
    # waited for mainline).  If another process is building it, this
    # waits on its lock.
    if "mainline" not in configs:
        configs = ["mainline"] + list(configs)
    steps = ["%s tree" % GCOVLAB] + [prebuild_step(c) for c in configs]
    os.makedirs(work_root(), exist_ok=True)
    if "log" not in _prebuild:
        _prebuild["log"] = open(run_file("prebuild", "log"), "w", encoding="utf-8")
    log = _prebuild["log"]
    log.write("# the test suite's background builds, %s: %s\n" % (what, ", ".join(configs)))
    log.flush()
    # A process group of its own (stopped as one), but the same session:
    # with the kernel's autogroups a new session would be scheduled as a
    # peer of the tests, whatever its nice value (measured: the niced build
    # took half the CPU from a foreground one).
    _prebuild["procs"].append(subprocess.Popen(
        ["nice", "-n", "19", "sh", "-c", " && ".join(steps)], cwd=REPO,
        stdout=log, stderr=subprocess.STDOUT, process_group=0))


def pytest_collection_finish(session):
    if os.environ.get("GCOVLAB_PREBUILD", "1") == "0" or session.config.option.collectonly:
        return
    wanted = []
    files = [os.path.basename(str(item.fspath)) for item in session.items]
    for name in files:
        for config in PREBUILD_FOR.get(name, []):
            if config not in wanted:
                wanted.append(config)
    now = [c for c in wanted if PREBUILD_FROM.get(c) not in files]
    _prebuild["later"] = [c for c in wanted if c not in now]
    if now:
        start_prebuild(now, "from the start")


def pytest_runtest_setup(item):
    later = [c for c in _prebuild["later"]
             if PREBUILD_FROM[c] == os.path.basename(str(item.fspath))]
    if later:
        _prebuild["later"] = [c for c in _prebuild["later"] if c not in later]
        start_prebuild(later, "from %s on" % item.nodeid)


# Every test's time (setup, call and teardown together: a fixture's kernel
# build counts against the first test that needs it), written at the end
# of the run to check-times.txt in the work directory, slowest first: what
# the last 'make check' on this machine spent, cold or warm, for whoever
# works on its speed next (docs/architecture.rst, "The tests").
_times = {}
_started = []


def pytest_sessionstart(session):
    _started.append(time.time())


def pytest_runtest_logreport(report):
    _times[report.nodeid] = _times.get(report.nodeid, 0.0) + report.duration


def write_times(session):
    if not _started or not _times or session.config.option.collectonly:
        return
    took = time.time() - _started[0]
    path = run_file("check-times", "txt")
    try:
        os.makedirs(work_root(), exist_ok=True)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("# %s: %d tests in %d s (%d min %02d s), exit status %s; "
                    "seconds per test, slowest first\n" % (
                        time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(_started[0])),
                        len(_times), took, took // 60, took % 60, session.exitstatus))
            for nodeid, secs in sorted(_times.items(), key=lambda kv: -kv[1]):
                f.write("%8.1f  %s\n" % (secs, nodeid))
        os.replace(path + ".tmp", path)
    except OSError as e:
        print("note: could not write %s: %s" % (path, e))


def pytest_sessionfinish(session):
    """A run cut short (-x, a selection) does not leave a build running."""
    write_times(session)
    for proc in _prebuild.pop("procs", []):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    log = _prebuild.pop("log", None)
    if log is not None:
        log.close()


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
    if STREAM:
        # for tools/check.py's closing line, the sum of both processes
        with open(run_file("check-counts", "txt"), "w", encoding="utf-8") as f:
            f.write("%d %d %d\n" % (passed, failed, skipped))


@pytest.fixture(scope="session")
def lab_kernel(tree):
    """The kernel built from the tree as checked out (the baseline): a tree
    without the series builds in build/lab-baseline."""
    ok(gcovlab("build", "--tree"))
    return os.path.join(work_root(), "build", "lab-baseline")


# What the kernel prints when one of its checkers fires (the debug kernel's
# boot banners, "kasan: KernelAddressSanitizer initialized" or "kmemleak:
# Kernel memory leak detector initialized", match none of them).  kmemleak's
# background scan is not among them: it also reports objects of early boot
# (ACPI's caches); labs/lab11/lab11.sh counts leaks without those.  Nor is
# a bare "Call Trace:": an allocation that fails on purpose (failslab)
# prints one with its "vmalloc error" warning.
KERNEL_REPORTS = ("BUG:", "Oops", "WARNING:", "general protection", "INFO: task",
                  "blocked for more than", "soft lockup", "possible circular locking",
                  "KASAN", "ODEBUG:", "detected stalls")


def check_stress(out, proc, cpus):
    """What labs/lab11/stress.sh must leave: every worker did its work, no
    operation that must succeed failed, the guest did not stall, the
    kernel reported nothing, and every .gcda that came out parses."""
    summary = "\n".join(l for l in proc.stdout.splitlines() if l.startswith("stress:"))
    assert proc.returncode == 0, "exit %d (124: the guest stopped making progress)\n%s\n%s" % (
        proc.returncode, summary, proc.stderr[-2000:])
    assert "stress: done, status 0" in proc.stdout, summary
    assert re.search(r"stress: \d+ s, %d CPUs" % cpus, proc.stdout), summary
    for worker in ("load-a", "load-b", "read-1", "read-2", "read-3", "reset-all"):
        m = re.search(r"stress: %s (\d+) ok, (\d+) failed" % worker, proc.stdout)
        assert m and int(m.group(1)) > 0, summary
    with open(out / "console.log", encoding="utf-8", errors="replace") as f:
        console = f.read()
    found = [bad for bad in KERNEL_REPORTS if bad in console]
    assert not found, "the kernel reported %s:\n%s" % (found, console[-4000:])
    files = [os.path.join(d, f) for d, _s, fs in os.walk(out / "gcda") for f in fs
             if f.endswith(".gcda")]
    for path in files:
        subprocess.run(["gcov-dump", "-l", path], check=True, capture_output=True)
    return console


# A lab page that ran in this session without a problem (tests/test_pages.py)
# leaves here what a lab's tests can take instead of doing the same steps
# again: {lab: {"outputs": {console block index: its output, normalised},
# "dir": a copy of the folder the page's run wrote}}.  Run alone, those
# tests do the steps themselves.
PAGE_RUNS = {}


def page_output(number, command):
    """The output of the page block of lab NUMBER that runs COMMAND (its
    first line starting so), from this session's run of the page, or None."""
    run = PAGE_RUNS.get(number)
    if run is None:
        return None
    if os.path.join(REPO, "tools") not in sys.path:
        sys.path.insert(0, os.path.join(REPO, "tools"))
    import pagerun
    for b, block in enumerate(pagerun.read_page(pagerun.page_of(number))):
        if any(cmd.startswith(command) for cmd in block.commands):
            return run["outputs"].get(b)
    return None


# The identity of the commits a test makes on a branch of its own.
IDENT = ["-c", "user.name=gcovlab-test", "-c", "user.email=test@gcov-kernel-labs.invalid"]


@contextlib.contextmanager
def patched_branch(tree, start, name, patch):
    """A branch of the test's own, START plus PATCH (git am), checked out for
    the block; afterwards the tree is back on START and the branch is gone,
    whatever happened (an interrupted git am included)."""
    subprocess.run(["git", "-C", tree, "switch", "-q", "-c", name, start], check=True)
    try:
        subprocess.run(["git"] + IDENT + ["-C", tree, "am", "-q", patch], check=True)
        yield
    finally:
        subprocess.run(["git", "-C", tree, "am", "--abort"], stderr=subprocess.DEVNULL)
        subprocess.run(["git", "-C", tree, "switch", "-q", start])
        subprocess.run(["git", "-C", tree, "branch", "-q", "-D", name],
                       stderr=subprocess.DEVNULL)


def exercise_check(tree, number, files):
    """Write FILES ({path in the tree: text}) into the kernel tree, then run
    'vm/gcovlab check NUMBER --json': (the process, its JSON)."""
    import json
    for rel, text in files.items():
        with open(os.path.join(tree, rel), "w", encoding="utf-8") as f:
            f.write(text)
    proc = gcovlab("check", str(number), "--json", timeout=3600)
    return proc, json.loads(proc.stdout)
