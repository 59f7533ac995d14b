# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab under faults on the host: a program that is not installed, a
full disk, Ctrl-C in the middle of a lab switch or a build.  Each ends in
a message that names the cause and the fix (never a Python traceback),
loses nothing, and the same command works when run again."""

import json
import os
import signal
import subprocess
import time

from conftest import DRIVER, GCOVLAB, REPO, gcovlab, ok, work_root

BASIC = os.path.join(DRIVER, "workload-basic.sh")


def no_traceback(proc):
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]


def fake_run_out(tmp_path):
    """An --out as a finished run leaves it: a build directory with a .gcno
    and the .gcda that came back from the guest."""
    out = tmp_path / "out"
    build = tmp_path / "out" / "build"
    build.mkdir(parents=True)
    (build / "x.gcno").write_bytes(b"oncg")
    mirrored = out / "gcda" / str(build).lstrip("/")
    mirrored.mkdir(parents=True)
    (mirrored / "x.gcda").write_bytes(b"adcg")
    (out / ".gcovlab-out").write_text(json.dumps(
        {"module": DRIVER, "build": str(build), "kernel": "mainline", "title": "x"}))
    return out


def test_missing_lcov_is_named_with_its_package(tmp_path):
    out = fake_run_out(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # Every program of /usr/bin but lcov and genhtml.
    for name in os.listdir("/usr/bin"):
        if name not in ("lcov", "genhtml"):
            os.symlink(os.path.join("/usr/bin", name), bin_dir / name)
    proc = gcovlab("report", "--out", out, env={"PATH": str(bin_dir)})
    no_traceback(proc)
    assert proc.returncode == 125, proc.stderr
    assert "lcov is not installed (Debian package lcov)" in proc.stderr, proc.stderr
    assert "./setup.sh" in proc.stderr
    # The data that came back is still there.
    assert (out / "gcda").is_dir() and list((out / "gcda").rglob("x.gcda"))


def test_full_disk_on_out_is_said_plainly(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    # The first file gcovlab writes into --out lands on a full device.
    os.symlink("/dev/full", out / ".gcovlab-out")
    proc = gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", out)
    no_traceback(proc)
    assert proc.returncode == 125, proc.stderr
    assert "no space left on the device" in proc.stderr, proc.stderr
    assert "run the same command again" in proc.stderr


def start_tool(args, env=None):
    """Start vm/gcovlab ARGS in its own process group, as a terminal would."""
    # Ctrl-C as at a terminal: a suite started in the background of a
    # non-interactive shell (nohup ... &) inherits SIGINT ignored, and the
    # tool would never see it (measured: both tests failed that way).
    return subprocess.Popen([GCOVLAB] + args, cwd=REPO, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            env=dict(os.environ, **(env or {})),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def read_until(proc, text):
    """The tool's output up to and including the first line with TEXT."""
    seen = ""
    for line in proc.stdout:
        seen += line
        if text in line:
            return seen
    raise AssertionError("the tool ended before it printed %r:\n%s" % (text, seen))


def interrupt_at(proc, ready):
    """Send the group of PROC SIGINT (a terminal's Ctrl-C) once READY()
    says the tool stands at the point the test wants to interrupt; return
    (exit status, output).  No delay is guessed: the tool waits there."""
    seen = ready()
    os.killpg(proc.pid, signal.SIGINT)
    rest, _ = proc.communicate(timeout=300)
    return proc.returncode, seen + rest


def tree_state(tree):
    status = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--branch"],
                            text=True, capture_output=True, check=True).stdout
    am = os.path.exists(os.path.join(tree, ".git", "rebase-apply"))
    return status, am


# A pre-applypatch hook runs inside git am, after a patch is in the working
# tree and before its commit: the hardest state to leave (an am in
# progress, files changed and not committed).  At the second patch it says
# so in a file and waits there until the test's Ctrl-C ends it.
AM_HOOK = """#!/bin/sh
n=$(cat '{count}' 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > '{count}'
if [ "$n" -eq 2 ]; then
	: > '{ready}'
	exec sleep 600
fi
"""


def test_ctrl_c_during_a_lab_switch(tree, tmp_path):
    # Make gcovlab build branch lab-7 again (its key no longer matches).
    subprocess.run(["git", "-C", tree, "config", "--unset", "gcovlab.lab-7.key"])
    hook = os.path.join(tree, ".git", "hooks", "pre-applypatch")
    ready = tmp_path / "in-git-am"
    with open(hook, "w", encoding="utf-8") as f:
        f.write(AM_HOOK.format(count=tmp_path / "count", ready=ready))
    os.chmod(hook, 0o755)

    def inside_git_am():
        seen = read_until(proc, "making branch lab-7")
        deadline = time.monotonic() + 300
        while not ready.exists():
            assert proc.poll() is None, seen + proc.stdout.read()
            assert time.monotonic() < deadline, "git am never reached its second patch"
            time.sleep(0.05)
        return seen

    try:
        proc = start_tool(["lab", "7"])
        status, output = interrupt_at(proc, inside_git_am)
        os.remove(hook)
        assert "Traceback" not in output, output
        assert status == 130, output
        assert "interrupted" in output and "run the same command again" in output
        # The tree is back where it was, with no git am left in progress.
        state, am = tree_state(tree)
        assert state.startswith("## baseline") and state.count("\n") == 1, state
        assert not am
        again = ok(gcovlab("lab", "7"))
        assert "kernel tree now on branch lab-7" in again.stdout
    finally:
        if os.path.exists(hook):
            os.remove(hook)
        ok(gcovlab("lab", "0"))


def test_ctrl_c_during_a_build(tree, tmp_path):
    # The tree's own kernel (baseline here), not mainline: make check runs
    # the mainline tests beside this file's (tools/check.py), and they
    # build modules against build/mainline.
    ok(gcovlab("build", "--tree"))
    # The tool stops while make runs (GCOVLAB_PAUSE_AT=make) and waits for
    # the Ctrl-C, which reaches make too, as at a terminal.
    proc = start_tool(["build", "--tree", "--force"], env={"GCOVLAB_PAUSE_AT": "make"})
    status, output = interrupt_at(proc, lambda: read_until(proc, "paused at make"))
    assert "building the lab kernel" in output, output
    assert "Traceback" not in output, output
    assert status == 130, output
    assert "interrupted" in output
    # No build lock left behind; the next build runs make again (the
    # interrupted one may have left half-written files: once it left an
    # empty Makefile, and the next build said "up to date") and finishes.
    # (GCOVLAB_KEEP_BUILDS=0: a build of this state kept from before would
    # be put back instead, and make would not run at all)
    again = ok(gcovlab("build", "--tree", env={"GCOVLAB_KEEP_BUILDS": "0"}))
    no_traceback(again)
    assert "up to date" not in again.stdout, again.stdout
    assert "built the lab kernel" in again.stdout, again.stdout
    out = os.path.join(work_root(), "build", "lab-baseline")
    assert os.path.exists(os.path.join(out, "arch", "x86", "boot", "bzImage"))
    # The build directory works for what comes next (modules are built
    # with make -C there).
    release = subprocess.run(["make", "-s", "-C", out, "kernelrelease"], text=True,
                             capture_output=True)
    assert release.returncode == 0 and release.stdout.strip().startswith("6.1"), \
        release.stdout + release.stderr
