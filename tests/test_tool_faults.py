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


def interrupt_after(args, seconds, wait_for=None):
    """Start vm/gcovlab ARGS in its own process group, send the group SIGINT
    (as a terminal's Ctrl-C does) after SECONDS, or as soon as a line with
    WAIT_FOR appears; return (exit status, output)."""
    # Ctrl-C as at a terminal: a suite started in the background of a
    # non-interactive shell (nohup ... &) inherits SIGINT ignored, and the
    # tool would never see it (measured: both tests failed that way).
    proc = subprocess.Popen([GCOVLAB] + args, cwd=REPO, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    start = time.monotonic()
    if wait_for:
        seen = ""
        while wait_for not in seen and time.monotonic() - start < 300:
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
        time.sleep(seconds)
    else:
        time.sleep(seconds)
    os.killpg(proc.pid, signal.SIGINT)
    rest, _ = proc.communicate(timeout=300)
    return proc.returncode, (seen if wait_for else "") + rest


def tree_state(tree):
    status = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--branch"],
                            text=True, capture_output=True, check=True).stdout
    am = os.path.exists(os.path.join(tree, ".git", "rebase-apply"))
    return status, am


def test_ctrl_c_during_a_lab_switch(tree):
    # Make gcovlab build branch lab-7 again (its key no longer matches).
    subprocess.run(["git", "-C", tree, "config", "--unset", "gcovlab.lab-7.key"])
    try:
        status, output = interrupt_after(["lab", "7"], 2.5, wait_for="making branch lab-7")
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
        ok(gcovlab("lab", "0"))


def test_ctrl_c_during_a_build(tree, tmp_path):
    # The tree's own kernel (baseline here), not mainline: make check runs
    # the mainline tests beside this file's (tools/check.py), and they
    # build modules against build/mainline.
    ok(gcovlab("build", "--tree"))
    status, output = interrupt_after(["build", "--tree", "--force"], 1.5,
                                     wait_for="building the lab kernel")
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
