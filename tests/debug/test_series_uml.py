# SPDX-License-Identifier: GPL-2.0
"""The series on a second architecture: User Mode Linux (ARCH=um).

On UML the C library runs the constructors (.init_array) before
start_kernel(), so __gcov_init() is called before the slab allocator or
any mutex works (arch/um/kernel/dyn.lds.S, and the do_ctors() comment in
init/main.c).  v2 allocated there: SLUB returned NULL and every built-in
object was dropped without a word.  v3 queues the objects through their
own gcov_info until a core initcall registers them.

The test builds the series' UML kernel (tinyconfig, 64-bit, debugfs,
hostfs, KUnit with the cmdline suite and the series' own format tests),
with one directory (lib/math, "GCOV := y") and one object
(lib/cmdline.o, "GCOV_cmdline.o := y") profiled, runs it as an ordinary
host process under a timeout, and has its init copy /sys/kernel/debug/gcov
to the host through hostfs.  It asserts that every profiled object was
registered at boot, that each has its .gcda, that gcov-dump reads each
one, and that cmdline.o's counters show the KUnit suite ran it.

The UML kernel is a build of its own (several minutes cold), so the test
runs in "make check-debug", not in "make check".
"""

import glob
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import IDENT, REPO, work_root

sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib import guest  # noqa: E402

PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
OPTIONS = ["64BIT", "DEBUG_FS", "DEBUG_FS_ALLOW_ALL", "GCOV_PROFILE", "HOSTFS",
           "BINFMT_ELF", "BINFMT_SCRIPT", "PROC_FS", "SYSFS", "BLK_DEV_INITRD",
           "TTY", "STDERR_CONSOLE", "FD_CHAN", "NULL_CHAN", "CON_CHAN", "PRINTK",
           "KUNIT", "GCOV_FORMAT_KUNIT_TEST", "GCOV_FS_KUNIT_TEST", "RUNTIME_TESTING_MENU",
           "CMDLINE_KUNIT_TEST"]
# What the test relies on (the console options may be defaults of UML).
NEEDED = ["64BIT", "DEBUG_FS", "GCOV_PROFILE", "HOSTFS", "BLK_DEV_INITRD", "KUNIT",
          "GCOV_FORMAT_KUNIT_TEST", "GCOV_FS_KUNIT_TEST", "CMDLINE_KUNIT_TEST"]


def profiled_notes(out):
    """The .gcno files of the objects profiled: lib/'s (GCOV := y on
    lib/math, GCOV_cmdline.o := y) and patch 0008's KUnit test objects
    (kernel/gcov/test_profiled*.o, GCOV_<obj>.o := y)."""
    return sorted(glob.glob(os.path.join(out, "lib", "**", "*.gcno"), recursive=True) +
                  glob.glob(os.path.join(out, "kernel", "gcov", "*.gcno")))
MAKE = ["make", "-s", "ARCH=um", "-j%d" % max(1, os.cpu_count() or 1)]

INIT = b"""#!/bin/sh
# Copy the kernel's gcov data to the host, then stop.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
out=$(sed -n 's/.*gcovout=\\([^ ]*\\).*/\\1/p' /proc/cmdline)
mount -t hostfs none /out -o "$out"
cp -r /sys/kernel/debug/gcov /out/gcov
dmesg > /out/dmesg.txt
echo "UML-GCOV: copied" > /out/done
sync
poweroff -f
"""


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, "%s failed (%d):\n%s%s" % (
        " ".join(cmd), proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


@pytest.fixture(scope="module")
def uml(tree_repo, tmp_path_factory):
    """The series' UML kernel, built in the work directory (kept, so that
    a second run is incremental), from a worktree with the series and the
    two profiling lines.  Returns (source, build directory)."""
    base = os.path.join(work_root(), "uml")
    src = os.path.join(base, "linux")
    out = os.path.join(base, "build")
    if os.path.exists(src):
        subprocess.run(["git", "-C", tree_repo, "worktree", "remove", "--force", src])
        shutil.rmtree(src, ignore_errors=True)
    subprocess.run(["git", "-C", tree_repo, "worktree", "prune"], check=True)
    os.makedirs(base, exist_ok=True)
    run(["git", "-C", tree_repo, "worktree", "add", "-q", "--detach", src,
         "gcovlab-baseline"])
    try:
        run(["git"] + IDENT + ["-C", src, "am", "-q"] + PATCHES)
        with open(os.path.join(src, "lib", "math", "Makefile"), "a") as f:
            f.write("\n# test_series_uml.py: profile this directory\nGCOV := y\n")
        with open(os.path.join(src, "lib", "Makefile"), "a") as f:
            f.write("\n# test_series_uml.py: profile one object\nGCOV_cmdline.o := y\n")
        os.makedirs(out, exist_ok=True)
        print("configuring and building the UML kernel in %s" % out, flush=True)
        run(MAKE + ["-C", src, "O=" + out, "tinyconfig"])
        cmd = [os.path.join(src, "scripts", "config"), "--file", os.path.join(out, ".config")]
        for o in OPTIONS:
            cmd += ["--enable", o]
        run(cmd)
        run(MAKE + ["-C", src, "O=" + out, "olddefconfig"])
        with open(os.path.join(out, ".config"), encoding="utf-8") as f:
            config = f.read()
        for o in NEEDED:
            assert "CONFIG_%s=y" % o in config, "CONFIG_%s did not stay on" % o
        env = dict(os.environ, CCACHE_DIR=os.path.join(work_root(), "ccache"))
        run(MAKE + ["-C", src, "O=" + out, "CC=ccache gcc", "linux"], env=env, timeout=3600)
        yield src, out
    finally:
        subprocess.run(["git", "-C", tree_repo, "worktree", "remove", "--force", src])


@pytest.fixture(scope="module")
def booted(uml, tmp_path_factory):
    """Run the UML kernel once (a host process, under a timeout) and
    return the directory its init copied to."""
    src, out = uml
    tmp = tmp_path_factory.mktemp("uml-run")
    c = guest.Cpio()
    for d in ("bin", "dev", "proc", "sys", "out"):
        c.dir(d)
    c.chardev("dev/console", 5, 1)
    c.chardev("dev/null", 1, 3, 0o666)
    c.file("init", INIT, 0o755)
    guest.check_static(guest.BUSYBOX)
    with open(guest.BUSYBOX, "rb") as f:
        c.file("bin/busybox", f.read(), 0o755)
    for applet in ("sh", "mount", "cp", "sed", "dmesg", "sync", "poweroff", "echo"):
        c._entry("bin/" + applet, 0o120777, b"busybox")
    initrd = tmp / "initrd.cpio"
    initrd.write_bytes(c.bytes())
    share = tmp / "share"
    share.mkdir()
    # UML's own memory is a file in $TMPDIR; keep it in the test's folder.
    env = dict(os.environ, TMPDIR=str(tmp))
    print("running the UML kernel (a host process, at most 300 s)", flush=True)
    proc = subprocess.run(
        ["timeout", "300", os.path.join(out, "linux"), "mem=128M",
         "initrd=" + str(initrd), "rdinit=/init", "con=null", "con0=null,fd:2",
         "gcovout=" + str(share)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
        env=env)
    log = proc.stdout + proc.stderr
    (tmp / "console.log").write_text(log)
    assert (share / "done").exists(), (
        "the UML kernel stopped (exit %d) before its init copied the gcov data; "
        "its console:\n%s" % (proc.returncode, log[-4000:]))
    return out, share, log


def test_every_profiled_object_is_registered_at_boot(booted):
    out, share, log = booted
    gcno = profiled_notes(out)
    assert len([g for g in gcno if "/kernel/gcov/test_profiled" in g]) == 2, gcno
    assert gcno, "no .gcno files under lib/: nothing was profiled"
    dmesg = (share / "dmesg.txt").read_text(errors="replace")
    m = re.search(r"gcov: (\d+) objects registered during boot", dmesg)
    assert m, "no 'objects registered during boot' line:\n" + dmesg[-3000:]
    assert int(m.group(1)) == len(gcno), (
        "%s objects registered, %d profiled (%s)" % (
            m.group(1), len(gcno), " ".join(os.path.relpath(g, out) for g in gcno)))
    assert "not registered" not in dmesg, dmesg


def test_each_object_has_its_gcda_and_gcov_dump_reads_it(booted):
    out, share, log = booted
    gcno = profiled_notes(out)
    for g in gcno:
        # debugfs mirrors the object's absolute path under gcov/.
        gcda = os.path.join(str(share), "gcov") + os.path.abspath(g)[:-5] + ".gcda"
        assert os.path.isfile(gcda), "%s has no exported .gcda (%s)" % (g, gcda)
        dump = subprocess.run(["gcov-dump", "-l", gcda], capture_output=True, text=True)
        assert dump.returncode == 0 and "data:magic" in dump.stdout, dump.stdout + dump.stderr
        assert "function" in dump.stdout.lower(), dump.stdout[:2000]


def test_the_kunit_suites_ran_the_profiled_code(uml, booted):
    src, _ = uml
    out, share, log = booted
    dmesg = (share / "dmesg.txt").read_text(errors="replace")
    assert re.search(r"^\s*ok \d+ cmdline", dmesg, re.M), dmesg[-4000:]
    # patch 0008's three suites, on UML too (kunit.py's default architecture)
    for suite in ("gcov_gcc_12", "gcov_fs", "gcov_base"):
        assert re.search(r"^\s*ok \d+ %s$" % suite, dmesg, re.M), (suite, dmesg[-4000:])
    assert not re.search(r"^\s*not ok", dmesg, re.M), dmesg[-4000:]
    gcda = os.path.join(str(share), "gcov") + os.path.abspath(
        os.path.join(out, "lib", "cmdline.gcda"))
    dump = subprocess.run(["gcov-dump", "-l", gcda], capture_output=True, text=True).stdout
    counts = [int(n) for row in re.findall(r":\s+\d+: ([\d ]+)$", dump, re.M)
              for n in row.split()]
    assert counts and any(counts), (
        "cmdline.gcda counted nothing although its KUnit suite ran:\n" + dump[:3000])
    # gcov itself, on the source, through the series' links from the build
    # directory to the data ("make gcov_links GCOV_DATA_DIR=<copy>").
    run(MAKE + ["-C", src, "O=" + out, "gcov_links",
                "GCOV_DATA_DIR=" + os.path.join(str(share), "gcov")])
    assert os.path.realpath(os.path.join(out, "lib", "cmdline.gcda")) == os.path.realpath(gcda)
    proc = subprocess.run(["gcov", "-n", "-o", os.path.join(out, "lib"),
                           os.path.join(src, "lib", "cmdline.c")],
                          capture_output=True, text=True, cwd=str(share))
    m = re.search(r"File '[^']*lib/cmdline.c'\nLines executed:([\d.]+)% of (\d+)",
                  proc.stdout)
    assert m and float(m.group(1)) > 0, proc.stdout + proc.stderr
