# SPDX-License-Identifier: GPL-2.0
"""Lab 8: .gcda links in the build directory (patch 0009).

- a profiled module object gets <obj>.gcda -> /sys/kernel/debug/gcov/<its
  absolute path>.gcda when it compiles; objects without the gcov flags
  (the module's .mod.o) get none;
- "make gcov_links GCOV_DATA_DIR=<dir>" re-points the links at a copy of
  the guest's tree, and the 2008 cover letter's "gcov -o <dir> <file>.c"
  then works in the build directory, with the counts the report shows;
- "make M=<dir> clean" removes the links, and only the links;
- built-in objects: GCOV := y in init/ gives init's objects links (and no
  other directory's); "gcov -o init/ main.c" works in the kernel build
  directory against collected data; when the directory stops being
  profiled, its objects lose their links on the rebuild;
- "make clean" of a kernel build directory removes the links.
"""

import os
import re
import shutil
import subprocess

import pytest

from conftest import DRIVER, gcovlab, linked_objects, ok, work_root

BASIC = os.path.join(DRIVER, "workload-basic.sh")
DEBUGFS = "/sys/kernel/debug/gcov"
IDENT = ["-c", "user.name=gcovlab-test", "-c", "user.email=test@gcov-kernel-labs.invalid"]


def make(*args, cwd=None):
    proc = subprocess.run(["make", "-s"] + [str(a) for a in args], cwd=cwd, text=True,
                          capture_output=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc


def links(top):
    """{path: target} of every .gcda link below top."""
    found = {}
    for d, _s, fs in os.walk(top):
        for f in fs:
            p = os.path.join(d, f)
            if f.endswith(".gcda") and os.path.islink(p):
                found[p] = os.readlink(p)
    return found


@pytest.fixture(scope="module")
def at_lab8(tree):
    """The tree on Lab 8 for the whole module (make gcov_links needs the
    patched Makefile), back on the baseline at the end."""
    ok(gcovlab("lab", "8"))
    yield tree
    ok(gcovlab("lab", "0"))


@pytest.fixture(scope="module")
def module_run(at_lab8, tmp_path_factory):
    out = tmp_path_factory.mktemp("lab8") / "driver"
    ok(gcovlab("run", "--lab", "8", "--module", DRIVER, "--workload", BASIC,
               "--out", out))
    return out


def kbuild_dir():
    return os.path.join(work_root(), "build", "lab")


def test_module_link_made_and_repointed(module_run):
    build = module_run / "build"
    # The build made the link to debugfs; the run's report pointed it at the
    # copy of the guest's tree.  Put it back the way kbuild made it, by hand
    # as a student would with a new GCOV_DATA_DIR.
    make("-C", kbuild_dir(), "M=%s" % build, "gcov_links")
    assert links(build) == {str(build / "gcovdemo.gcda"):
                            DEBUGFS + str(build / "gcovdemo.gcda")}
    assert not os.path.lexists(build / "gcovdemo.mod.gcda")
    data = module_run / "gcda"
    make("-C", kbuild_dir(), "M=%s" % build, "gcov_links", "GCOV_DATA_DIR=%s" % data)
    target = str(data) + str(build / "gcovdemo.gcda")
    assert links(build) == {str(build / "gcovdemo.gcda"): target}
    assert os.path.isfile(target)


def test_seed_gcov_o_workflow_on_module(module_run):
    build = module_run / "build"
    make("-C", kbuild_dir(), "M=%s" % build, "gcov_links",
         "GCOV_DATA_DIR=%s" % (module_run / "gcda"))
    proc = subprocess.run(["gcov", "-o", ".", "gcovdemo.c"], cwd=build, text=True,
                          capture_output=True)
    assert proc.returncode == 0 and "warning" not in (proc.stdout + proc.stderr).lower(), \
        proc.stdout + proc.stderr
    assert re.search(r"Lines executed:69\.62% of 79", proc.stdout), proc.stdout
    with open(module_run / "summary.txt", encoding="utf-8") as f:
        assert "lines hit 55 / 79" in f.read()


def test_module_clean_removes_links_only(module_run, tmp_path):
    build = tmp_path / "copy"
    shutil.copytree(module_run / "build", build, symlinks=True)
    keep = build / "kept.gcda"
    keep.write_bytes(b"not a link")
    make("-C", kbuild_dir(), "M=%s" % build, "gcov_links")
    assert links(build)
    make("-C", kbuild_dir(), "M=%s" % build, "clean")
    assert not links(build)
    assert keep.read_bytes() == b"not a link"


@pytest.fixture(scope="module")
def builtin(at_lab8, tmp_path_factory):
    """Lab 8's tree with GCOV := y in init/, built and booted."""
    out = tmp_path_factory.mktemp("lab8") / "boot"
    t = at_lab8
    state = {}
    try:
        subprocess.run(["git", "-C", t, "switch", "-q", "-c", "gcovlab-test-lab8"],
                       check=True)
        with open(os.path.join(t, "init", "Makefile"), "a", encoding="utf-8") as f:
            f.write("\nGCOV := y\n")
        subprocess.run(["git"] + IDENT + ["-C", t, "commit", "-q", "-am", "profile init"],
                       check=True)
        ok(gcovlab("build", "--tree"))
        # Made by the compile rule: init's objects were just rebuilt.
        state["init_links"] = links(os.path.join(kbuild_dir(), "init"))
        state["profiled"] = profiled_objects(kbuild_dir())
        state["by_rule"] = gcov_links_rule(kbuild_dir())
        # gcov_links goes over the whole build directory: links exactly the
        # profiled objects, and removes links that earlier builds with
        # other flags (or other tests) may have left.
        make("-C", t, "O=%s" % kbuild_dir(), "gcov_links")
        state["links"] = links(kbuild_dir())
        ok(gcovlab("boot", "--tree", "--out", out))
        make("-C", t, "O=%s" % kbuild_dir(), "gcov_links", "GCOV_DATA_DIR=%s" % (out / "gcda"))
        proc = subprocess.run(["gcov", "-o", "init/", "main.c"], cwd=kbuild_dir(), text=True,
                              capture_output=True)
        state["gcov"] = proc
        annotated = os.path.join(kbuild_dir(), "main.c.gcov")
        if os.path.exists(annotated):
            with open(annotated, encoding="utf-8") as f:
                state["annotated"] = f.read()
        for name in os.listdir(kbuild_dir()):
            if name.endswith(".gcov"):
                os.remove(os.path.join(kbuild_dir(), name))
        # Back to Lab 8 as it is: init is no longer profiled.
        subprocess.run(["git", "-C", t, "switch", "-q", "lab-8"], check=True)
        ok(gcovlab("build", "--lab", "8"))
        state["after"] = links(os.path.join(kbuild_dir(), "init"))
    finally:
        subprocess.run(["git", "-C", t, "checkout", "-q", "--", "."])
        subprocess.run(["git", "-C", t, "switch", "-q", "lab-8"])
        subprocess.run(["git", "-C", t, "branch", "-q", "-D", "gcovlab-test-lab8"],
                       stderr=subprocess.DEVNULL)
    return state


def profiled_objects(top):
    """Objects linked into vmlinux (vmlinux.a's members) whose kbuild
    command line (.<obj>.o.cmd) has -ftest-coverage.  (A .gcno, or a whole
    object with its .cmd, may be left over from an earlier build of
    another lab state or configuration, so the link and the command lines
    are the reliable answer.)"""
    found = []
    for obj in linked_objects(top):
        d, f = os.path.split(obj)
        with open(os.path.join(top, d, "." + f + ".cmd"), encoding="utf-8",
                  errors="replace") as cmd:
            if "-ftest-coverage" in cmd.readline():
                found.append(os.path.join(top, obj[:-len(".o")]))
    return sorted(found)


def gcov_links_rule(top):
    """What patch 0009 documents for make gcov_links: every object with a
    .gcno whose saved command line (.<obj>.o.cmd) has -ftest-coverage.
    That includes objects of an earlier configuration of the same build
    directory that this one no longer builds (their files stay)."""
    found = []
    for d, _s, fs in os.walk(top):
        for f in fs:
            if f.endswith(".gcno") and not f.endswith(".mod.gcno"):
                cmd = os.path.join(d, "." + f[:-len(".gcno")] + ".o.cmd")
                if os.path.exists(cmd):
                    with open(cmd, encoding="utf-8", errors="replace") as c:
                        if "-ftest-coverage" in c.readline():
                            found.append(os.path.join(d, f[:-len(".gcno")]))
    return sorted(found)


def test_builtin_links_exactly_the_profiled_objects(builtin):
    init = os.path.join(kbuild_dir(), "init") + "/"
    # init's objects, and patch 0008's KUnit test object, which the lab
    # kernel profiles on its own (GCOV_test_profiled.o := y)
    kunit = os.path.join(kbuild_dir(), "kernel", "gcov", "test_profiled")
    profiled = builtin["profiled"]
    assert kunit in profiled, profiled
    assert profiled and all(p.startswith(init) or p == kunit for p in profiled), profiled
    # The compile rule linked init's objects as they were built ...
    assert sorted(p[:-len(".gcda")] for p in builtin["init_links"]) == \
        [p for p in profiled if p != kunit]
    # ... and gcov_links leaves links for exactly the objects its rule
    # names: every profiled object of this kernel, and nothing that was
    # never compiled with the flags.
    made = builtin["links"]
    assert set(profiled) <= set(builtin["by_rule"])
    assert sorted(p[:-len(".gcda")] for p in made) == builtin["by_rule"], sorted(made)
    for p, target in made.items():
        assert target == DEBUGFS + p


def test_builtin_gcov_o_workflow(builtin):
    proc = builtin["gcov"]
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "warning" not in text.lower(), text
    assert re.search(r"File '\S*init/main\.c'\nLines executed:\d+\.\d+% of \d+", text), text
    counted = re.findall(r"^\s+(\d+)\*?:\s+\d+:", builtin.get("annotated", ""), re.M)
    assert counted and any(int(n) > 0 for n in counted)


def test_links_go_when_profiling_stops(builtin):
    assert builtin["after"] == {}


def test_kernel_clean_removes_links(at_lab8, tmp_path):
    """make clean of a kernel build directory: a scratch one, with two
    profiled objects, so the lab's own build stays."""
    out = tmp_path / "kbuild"
    out.mkdir()
    shutil.copy(os.path.join(kbuild_dir(), ".config"), out / ".config")
    make("-C", at_lab8, "O=%s" % out, "olddefconfig")
    make("-C", at_lab8, "O=%s" % out, "GCOV=y", "init/version.o", "init/calibrate.o")
    made = links(out)
    # GCOV=y on the command line reaches every directory make visits, so
    # scripts/mod/empty.o (built by prepare) is profiled too.
    assert {str(out / "init" / "version.gcda"), str(out / "init" / "calibrate.gcda")} <= \
        set(made)
    assert all(os.path.exists(p[:-len(".gcda")] + ".gcno") for p in made)
    make("-C", at_lab8, "O=%s" % out, "clean")
    assert not links(out)
