# SPDX-License-Identifier: GPL-2.0
"""Moving between lab states does not rebuild a state built before: its
build directory is kept when the tree moves on and put back when the tree
returns (kbuild.restore_or_keep; tests/unit/test_kept_builds.py has the
cases).  Here with real kernels: Labs 7 and 8, which the pages built
earlier in make check, so this takes seconds there."""

import hashlib
import os
import re
import subprocess

from conftest import GCOVLAB, REPO, gcovlab, ok, work_root

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
        # as a checkout that rewrites them would: the sources of the
        # profiled objects get a later time than Lab 7's kept build
        assert touch_profiled_sources() > 0
        back = ok(gcovlab("build", "--lab", "7"))
        assert "lab kernel is up to date (build/lab: the build of this tree state " \
            "kept in build/.kept, put back)" in back.stdout, back.stdout
        assert "building the lab kernel" not in back.stdout
        # the very image built for Lab 7, in a build directory that works
        # for what comes next (modules are built with make -C there)
        assert image_digest() == seven and kbuild_state_is_lab(7)
        # the checkouts wrote the sources after this build was made: its
        # notes must not look older than them to gcov
        assert notes_not_older_than_sources() > 0
        release = subprocess.run(["make", "-s", "-C", OUT, "kernelrelease"], text=True,
                                 capture_output=True)
        assert release.returncode == 0 and release.stdout.startswith("6.1"), release
        # it boots, and its .gcda files come out (vm/smoke.sh)
        booted = ok(gcovlab("boot", "--lab", "7", "--out", str(tmp_path / "boot")))
        assert "kernel is up to date" in booted.stdout, booted.stdout
        assert re.search(r"\d+ \.gcda files? received", booted.stdout), booted.stdout
        again = ok(gcovlab("build", "--lab", "7"))
        assert "lab kernel is up to date (build/lab in the work directory)" in again.stdout
        # the sources written again without a build (the tree away and
        # back): the same build, its notes again not older than them
        assert touch_profiled_sources() > 0
        again = ok(gcovlab("build", "--tree"))
        assert "lab kernel is up to date (build/lab in the work directory)" in again.stdout
        assert notes_not_older_than_sources() > 0
        status = ok(gcovlab("status"))
        assert "kept builds:" in status.stdout
    finally:
        ok(gcovlab("lab", "0"))


def test_a_build_in_a_second_terminal_waits_for_a_boot_in_the_first(tree, tmp_path):
    """Terminal 1 boots Lab 7's kernel; terminal 2 asks for Lab 8's.  Putting
    Lab 8's build in place renames build/lab, so it waits until the boot
    is done (kbuild.built holds the directory's use lock), and the boot
    finishes undisturbed."""
    try:
        ok(gcovlab("build", "--lab", "7"))
        # a workload that takes its time, so that the second command surely
        # comes while the guest runs
        slow = tmp_path / "slow.sh"
        slow.write_text("#!/bin/sh\necho slow workload\nsleep 15\n")
        slow.chmod(0o755)
        first = subprocess.Popen([GCOVLAB, "boot", "--lab", "7", "--workload", str(slow),
                                  "--out", str(tmp_path / "boot")],
                                 cwd=REPO, text=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
        lines = []
        for line in first.stdout:
            lines.append(line)
            if line.startswith("gcovlab: booting "):
                break
        second = ok(gcovlab("build", "--lab", "8"))
        lines += first.stdout.readlines()
        assert first.wait(timeout=600) == 0, "".join(lines)
        assert "waiting for another gcovlab command that is using build/lab" in \
            second.stdout, second.stdout
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


def touch_profiled_sources():
    sources = profiled_sources()
    for source in sources.values():
        os.utime(source)
    return len(sources)


def notes_not_older_than_sources():
    """Assert that no .gcno of build/lab is older than the C file of the
    tree it was compiled from (gcov: "source file is newer than notes
    file"); return how many were compared."""
    sources = profiled_sources()
    for gcno, source in sources.items():
        assert os.stat(gcno).st_mtime >= os.stat(source).st_mtime, gcno
    return len(sources)
