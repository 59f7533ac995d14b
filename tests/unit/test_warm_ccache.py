# SPDX-License-Identifier: GPL-2.0
"""tools/warm_ccache.py and what it relies on: the builds see absolute
paths (no CCACHE_BASEDIR, which would hand gcc relative ones), a build
stops a warm-up of its configuration instead of compiling beside it, and
bad arguments fail with the cause named before anything is checked out.
(The warm-up itself, a kernel build in a mount namespace, runs in make
check's background for Labs 9 and 10: its log is in prebuild.tree.log.)"""

import fcntl
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import kbuild  # noqa: E402
from gcovlablib.work import Work  # noqa: E402

TOOL = os.path.join(REPO, "tools", "warm_ccache.py")


def test_make_env_keeps_paths_absolute(tmp_path, monkeypatch):
    """ccache's base_dir rewrites the compiler's arguments, not only its
    hash: the .gcno files and __FILE__ would name ../../linux/..."""
    monkeypatch.setenv("CCACHE_BASEDIR", "/")
    work = Work(str(tmp_path / "w"))
    env = kbuild.make_env(work)
    assert "CCACHE_BASEDIR" not in env
    assert env["CCACHE_DIR"] == work.ccache


def run(tmp_path, *args):
    env = dict(os.environ, GCOVLAB_WORK=str(tmp_path / "w"))
    return subprocess.run(["/usr/bin/python3", TOOL] + list(args), env=env, text=True,
                          capture_output=True, timeout=60)


def test_bad_arguments_name_the_cause(tmp_path):
    proc = run(tmp_path, "mainline", "10")
    assert proc.returncode == 1 and "'mainline' is not a lab configuration" in proc.stderr
    proc = run(tmp_path, "lab-smp", "10")
    assert proc.returncode == 1 and "no kernel tree" in proc.stderr
    assert "vm/gcovlab tree" in proc.stderr
    assert not os.path.exists(tmp_path / "w" / "warm")
    proc = run(tmp_path, "lab-smp", "lab-10")
    assert proc.returncode == 2 and "usage: tools/warm_ccache.py CONFIG LAB" in proc.stdout


def test_a_build_stops_the_warm_up_of_its_configuration(tmp_path):
    """A stand-in for the warm-up holds the lock and names its pid; the
    build's stop_warm_up signals it and returns once the lock is free."""
    work = Work(str(tmp_path / "w"))
    os.makedirs(os.path.join(work.root, "locks"))
    lock = kbuild.warm_lock(work, "lab-smp")
    holder = subprocess.Popen([
        sys.executable, "-c",
        "import fcntl, os, signal, sys, time\n"
        "fd = os.open(%r, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "open(%r, 'w').write('%%d' %% os.getpid())\n"
        "print('held', flush=True)\n"
        "time.sleep(120)\n" % (lock, lock + ".pid")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    start = time.monotonic()
    kbuild.stop_warm_up(work, "lab-smp")
    assert holder.wait(timeout=10) == -15
    assert time.monotonic() - start < 10
    # free now: a second call returns at once
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(fd)
    kbuild.stop_warm_up(work, "lab-smp")


def test_no_warm_up_running_is_no_wait(tmp_path):
    work = Work(str(tmp_path / "w"))
    kbuild.stop_warm_up(work, "lab-all")
