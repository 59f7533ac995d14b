# SPDX-License-Identifier: GPL-2.0
"""Moving between lab states does not rebuild a state built before: its
build directory is kept when the tree moves on and put back when the tree
returns (kbuild.restore_or_keep; tests/unit/test_kept_builds.py has the
cases).  Here with real kernels: Labs 7 and 8, which the pages built
earlier in make check, so this takes seconds there, and Lab 8 with
init/ profiled (the state of Lab 8's page and of
tests/labs/test_lab08_links.py), whose .gcno files gcov compares with
their sources."""

import hashlib
import os
import re
import signal
import subprocess

from conftest import GCOVLAB, IDENT, REPO, gcovlab, ok, work_root

OUT = os.path.join(work_root(), "build", "lab")


def image_digest():
    with open(os.path.join(OUT, "arch", "x86", "boot", "bzImage"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_a_lab_state_built_before_is_put_back_not_rebuilt(tree, tmp_path):
    try:
        ok(gcovlab("build", "--lab", "7"))
        seven = image_digest()
        ok(gcovlab("build", "--lab", "8"))
        # (not the image: patch 0009 changes only kbuild, and a build of
        # Lab 8 put back from a kept one was never relinked after Lab 7's,
        # so the two images can be byte for byte the same)
        assert kbuild_state_is_lab(8)
        back = ok(gcovlab("build", "--lab", "7"))
        assert "lab kernel is up to date (build/lab: the build of this tree state " \
            "kept in build/.kept, put back)" in back.stdout, back.stdout
        assert "building the lab kernel" not in back.stdout
        # the very image built for Lab 7, in a build directory that works
        # for what comes next (modules are built with make -C there)
        assert image_digest() == seven and kbuild_state_is_lab(7)
        release = subprocess.run(["make", "-s", "-C", OUT, "kernelrelease"], text=True,
                                 capture_output=True)
        assert release.returncode == 0 and release.stdout.startswith("6.1"), release
        # it boots, and its .gcda files come out (vm/smoke.sh)
        booted = ok(gcovlab("boot", "--lab", "7", "--out", str(tmp_path / "boot")))
        assert "kernel is up to date" in booted.stdout, booted.stdout
        assert re.search(r"\d+ \.gcda files? received", booted.stdout), booted.stdout
        again = ok(gcovlab("build", "--lab", "7"))
        assert "lab kernel is up to date (build/lab in the work directory)" in again.stdout
        status = ok(gcovlab("status"))
        assert "kept builds:" in status.stdout
    finally:
        ok(gcovlab("lab", "0"))


def test_a_build_put_back_has_notes_newer_than_its_sources(tree):
    """gcov says "source file is newer than notes file" of an object whose
    source is newer than its .gcno.  The checkouts write the sources after
    a build is kept; a build put back, or found up to date after the tree
    went away and came back, must not look older than them."""
    branch = "gcovlab-test-kept-notes"
    try:
        subprocess.run(["git", "-C", tree, "switch", "-q", "-c", branch, "lab-8"], check=True)
        with open(os.path.join(tree, "init", "Makefile"), "a", encoding="utf-8") as f:
            f.write("\nGCOV := y\n")
        subprocess.run(["git"] + IDENT + ["-C", tree, "commit", "-q", "-am",
                                          "init: profile every object"], check=True)
        ok(gcovlab("build", "--tree"))
        sources = profiled_sources()
        assert any(gcno.endswith("init/main.gcno") for gcno in sources), sorted(sources)
        ok(gcovlab("build", "--lab", "7"))
        # what a checkout that rewrites them does to the sources
        for source in sources.values():
            os.utime(source)
        subprocess.run(["git", "-C", tree, "switch", "-q", branch], check=True)
        back = ok(gcovlab("build", "--tree"))
        assert "put back" in back.stdout, back.stdout
        notes_not_older_than(sources)
        for source in sources.values():
            os.utime(source)
        again = ok(gcovlab("build", "--tree"))
        assert "lab kernel is up to date (build/lab in the work directory)" in again.stdout
        notes_not_older_than(sources)
        gcov = subprocess.run(["gcov", "-n", "-o", "init/", "main.c"], cwd=OUT, text=True,
                              capture_output=True)
        assert gcov.returncode == 0 and "newer" not in gcov.stdout + gcov.stderr, gcov
    finally:
        subprocess.run(["git", "-C", tree, "checkout", "-q", "--", "."])
        ok(gcovlab("lab", "0"))
        subprocess.run(["git", "-C", tree, "branch", "-q", "-D", branch],
                       stderr=subprocess.DEVNULL)



def test_a_build_in_a_second_terminal_waits_for_a_boot_in_the_first(tree, tmp_path):
    """Terminal 1 boots Lab 7's kernel; terminal 2 asks for Lab 8's.  Putting
    Lab 8's build in place renames build/lab, so it waits until the boot
    is done (kbuild.built holds the directory's use lock), and the boot
    finishes undisturbed."""
    try:
        ok(gcovlab("build", "--lab", "7"))
        workload = tmp_path / "quick.sh"
        workload.write_text("#!/bin/sh\necho quick workload\n")
        workload.chmod(0o755)
        # The boot stops once its guest runs (GCOVLAB_PAUSE_AT=boot) and
        # goes on only when the second command has said it waits: the
        # second command surely comes while the first holds the directory.
        first = subprocess.Popen([GCOVLAB, "boot", "--lab", "7", "--workload", str(workload),
                                  "--out", str(tmp_path / "boot")],
                                 cwd=REPO, text=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT,
                                 env=dict(os.environ, GCOVLAB_PAUSE_AT="boot"))
        lines = []
        for line in first.stdout:
            lines.append(line)
            if line.startswith("gcovlab: paused at boot"):
                break
        assert first.poll() is None, "".join(lines)
        second = subprocess.Popen([GCOVLAB, "build", "--lab", "8"], cwd=REPO, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        said = []
        for line in second.stdout:
            said.append(line)
            if "waiting for another gcovlab command that is using build/lab" in line:
                break
        assert second.poll() is None, "".join(said)
        first.send_signal(signal.SIGUSR1)
        lines += first.stdout.readlines()
        assert first.wait(timeout=600) == 0, "".join(lines)
        said += second.stdout.readlines()
        assert second.wait(timeout=1800) == 0, "".join(said)
        assert re.search(r"\d+ \.gcda files? received", "".join(lines)), "".join(lines)
        with open(tmp_path / "boot" / "console.log", encoding="utf-8", errors="replace") as f:
            assert "gcovlab: workload end, exit status 0" in f.read()
        # the second command did its work once the first was done
        assert kbuild_state_is_lab(8)
    finally:
        ok(gcovlab("lab", "0"))


def kbuild_state_is_lab(number):
    head = subprocess.run(["git", "-C", os.path.join(work_root(), "linux"), "rev-parse",
                           "lab-%d^{tree}" % number], text=True, capture_output=True,
                          check=True).stdout.strip()
    with open(os.path.join(OUT, ".gcovlab-built"), encoding="utf-8") as f:
        return f.read().startswith(head + "+")


def profiled_sources():
    """{.gcno in build/lab: the C file of the tree it was compiled from}."""
    tree = os.path.join(work_root(), "linux")
    found = {}
    for dirpath, _d, filenames in os.walk(OUT):
        for name in filenames:
            if name.endswith(".gcno"):
                rel = os.path.relpath(os.path.join(dirpath, name), OUT)
                source = os.path.join(tree, rel[:-len(".gcno")] + ".c")
                if os.path.exists(source):
                    found[os.path.join(dirpath, name)] = source
    return found


def notes_not_older_than(sources):
    for gcno, source in sources.items():
        assert os.stat(gcno).st_mtime >= os.stat(source).st_mtime, gcno
