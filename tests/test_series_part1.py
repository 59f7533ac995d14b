# SPDX-License-Identifier: GPL-2.0
"""Series part 1 (labs 2-4 share its state: patches 0001-0003).

- kbuild precedence of GCOV_<obj>.o, GCOV and CONFIG_GCOV_PROFILE_ALL, read
  from the .cmd files of a real module build against the lab kernel;
- GCOV from the environment is ignored, GCOV on the command line is not;
- in the VM: the stub's registration count at boot equals the number of
  entries in vmlinux's constructor table, and insmod adds one per
  instrumented object of the module;
- the compiler guard fires for a simulated GCC 13 and not for GCC 12.
"""

import glob
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import DATA, REPO, linked_objects, gcovlab, ok, other_compiler, work_root

sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib import kbuild  # noqa: E402
from gcovlablib.work import Work  # noqa: E402

BUILD = os.path.join(work_root(), "build", "lab")
TREE = os.path.join(work_root(), "linux")
INSTRUMENTED_DIRS = ("init", "lib")


def git(*args):
    return subprocess.run(["git", "-C", TREE] + list(args), text=True,
                          capture_output=True, check=True).stdout


@pytest.fixture(scope="module")
def lab4(tree):
    ok(gcovlab("lab", "4"))
    ok(gcovlab("build", "--lab", "4"))
    yield BUILD
    ok(gcovlab("lab", "0"))


def module_make(src, tmp, *make_args, env_extra=None):
    """Build a copy of src against the lab kernel with plain kbuild (no
    GCOV=y from the tool); return {object: instrumented?} from .cmd files."""
    dst = os.path.join(tmp, "m")
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    work = Work()
    env = kbuild.make_env(work)
    env.update(env_extra or {})
    cmd = ["make", "-s", "-C", BUILD, "M=" + dst] + kbuild.make_vars(work) + \
        list(make_args) + ["modules"]
    proc = subprocess.run(cmd, env=env, text=True, capture_output=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    flags = {}
    for cmd_file in glob.glob(os.path.join(dst, "**", ".*.o.cmd"), recursive=True):
        name = os.path.basename(cmd_file)[1:-len(".cmd")]
        with open(cmd_file, encoding="utf-8") as f:
            first = f.readline()
        flags[name] = "-fprofile-arcs" in first
    return flags


def expected(obj, directory, default):
    """The rule of patch 0003: the first of GCOV_<obj>.o, the directory's
    GCOV and a GCOV given on make's command line (the default) that is set
    decides; a value starting with n means no.  (Patch 0010 adds
    CONFIG_GCOV_PROFILE_ALL as the last default.)"""
    for value in (obj, directory, default):
        if value:
            return not value.startswith("n")
    return False


VALUES = {"y": "y", "n": "n", "u": ""}
OBJECTS = ["d%s_o%s.o" % (d, o) for d in "ynu" for o in "ynu"]


def table(default):
    want = {}
    for name in OBJECTS:
        d, o = name[1], name[4]
        want[name] = expected(VALUES[o], VALUES[d], default)
    return want


@pytest.mark.parametrize("default", ["", "y", "n"])
def test_precedence_table(lab4, tmp_path, default):
    # "make M=... GCOV=y modules" (what gcovlab runs) is a default: the
    # module's per-object and per-directory settings, in its Kbuild file
    # and its subdirectories' (d?_o?.o), still win over it.
    args = ["GCOV=" + default] if default else []
    got = module_make(os.path.join(DATA, "precedence"), str(tmp_path), *args)
    want = table(default)
    assert {k: got.get(k) for k in want} == want
    # The module's .mod.o (modpost's glue) is never instrumented.
    mods = {k: v for k, v in got.items() if k.endswith(".mod.o")}
    assert len(mods) == 9 and not any(mods.values()), mods
    # Both outcomes occur, so the table cannot pass by accident.
    assert set(want.values()) == {True, False}


@pytest.mark.parametrize("value", ["gcov", "gcov-12", "y"])
def test_environment_gcov_is_ignored(lab4, tmp_path, value):
    got = module_make(os.path.join(DATA, "precedence"), str(tmp_path),
                      env_extra={"GCOV": value})
    assert {k: got.get(k) for k in OBJECTS} == table("")


def test_kernel_objects_follow_the_rule(lab4):
    # Nothing in the lab kernel asks for profiling: no object linked into
    # it got the flags, and the stub itself was built.  (Objects, .cmd and
    # .gcno files of later lab states built in the same directory remain,
    # patch 0008's profiled test object among them: kbuild never deletes
    # them, so only what vmlinux.a links counts.)
    assert os.path.exists(os.path.join(BUILD, "kernel", "gcov", "base.o"))
    linked = linked_objects(BUILD)
    assert len(linked) > 300 and "kernel/gcov/base.o" in linked
    profiled = []
    for obj in linked:
        d, f = os.path.split(obj)
        with open(os.path.join(BUILD, d, "." + f + ".cmd"), encoding="utf-8",
                  errors="replace") as cmd:
            if "-fprofile-arcs" in cmd.readline():
                profiled.append(obj)
    assert profiled == []


# ---- the compiler guard ----------------------------------------------------

def guard_compile(tmp_path, *defines, cc="gcc"):
    src = tmp_path / "t.c"
    src.write_text('#include "gcc_version.h"\nint gcovlab_guard_test;\n')
    cmd = [cc, "-I", os.path.join(TREE, "include"), "-I",
           os.path.join(TREE, "kernel", "gcov"), *defines, "-c", str(src), "-o",
           str(tmp_path / "t.o")]
    return subprocess.run(cmd, text=True, capture_output=True)


def test_guard_accepts_installed_gcc(lab4, tmp_path):
    version = subprocess.run(["gcc", "-dumpversion"], text=True,
                             capture_output=True).stdout.strip()
    assert version.split(".")[0] == "12"
    proc = guard_compile(tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("major,minor", [("13", "1"), ("11", "4"), ("4", "7")])
def test_guard_fires_for_other_versions(lab4, tmp_path, major, minor):
    proc = guard_compile(tmp_path, "-U__GNUC__", "-D__GNUC__=" + major,
                         "-U__GNUC_MINOR__", "-D__GNUC_MINOR__=" + minor)
    assert proc.returncode != 0
    assert re.search(r"error: GCC %s\.%s\.\d+ found but kernel gcov support "
                     r"implements the gcov_info layout of GCC 12 only" % (major, minor),
                     proc.stderr), proc.stderr


@pytest.mark.parametrize("cc,found", [("gcc-11", r"GCC 11\.\d+\.\d+"),
                                      ("clang-15", r"clang 15\.\d+")])
def test_guard_refuses_debians_other_compilers(lab4, tmp_path, cc, found):
    # The real compilers, not predefined macros: each names itself.
    proc = guard_compile(tmp_path, cc=other_compiler(cc))
    assert proc.returncode != 0
    assert re.search(r"error: %s found but kernel gcov support implements the "
                     r"gcov_info layout of GCC 12 only" % found, proc.stderr), proc.stderr


def test_guard_stops_gcc_11_on_the_kernel_file(lab4, tmp_path):
    # kernel/gcov/base.o compiled by gcc-11 with the command line kbuild
    # used for it (the option gcc-11 lacks left out, as kbuild's cc-option
    # would): the build is forced past the Kconfig gate, and the guard stops it.
    other_compiler("gcc-11")
    with open(os.path.join(BUILD, "kernel", "gcov", ".base.o.cmd"), encoding="utf-8") as f:
        line = f.readline()
    cmd = line.split(" := ", 1)[1].split(";", 1)[0].split()     # not objtool's part
    cmd = cmd[cmd.index("-nostdinc"):]
    cmd = [a for a in cmd if not a.startswith(("-Wp,-MMD", "-ftrivial-auto-var-init"))]
    out = cmd.index("-o")
    cmd[out + 1] = str(tmp_path / "base.o")
    proc = subprocess.run(["gcc-11"] + cmd, cwd=BUILD, text=True, capture_output=True)
    assert proc.returncode != 0
    assert re.search(r"gcc_version\.h:\d+:\d+: error: GCC 11\.\d+\.\d+ found but kernel "
                     r"gcov support implements the gcov_info layout of GCC 12 only",
                     proc.stderr), proc.stderr[-3000:]


def test_guard_fires_in_the_kernel_build(lab4, tmp_path):
    # The real thing: kbuild compiling kernel/gcov/base.o for a "GCC 13".
    # Into a scratch copy of the build directory, so the lab build stays.
    work = Work()
    scratch = tmp_path / "build"
    shutil.copytree(BUILD, scratch, symlinks=True,
                    ignore=shutil.ignore_patterns("*.o", "*.a", "vmlinux*", "*.ko",
                                                  "bzImage", "*.bin"))
    proc = subprocess.run(
        ["make", "-s", "-C", TREE, "O=%s" % scratch] + kbuild.make_vars(work) +
        ["KCFLAGS=-U__GNUC__ -D__GNUC__=13", "kernel/gcov/base.o"],
        env=kbuild.make_env(work), text=True, capture_output=True)
    assert proc.returncode != 0
    assert "kernel/gcov/gcc_version.h" in proc.stderr
    assert "GCC 13." in proc.stderr and "GCC 12 only" in proc.stderr


# ---- registrations in the VM ----------------------------------------------

def ctor_table_entries(vmlinux):
    out = subprocess.run(["nm", vmlinux], text=True, capture_output=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("__ctors_start", "__ctors_end"):
            syms[parts[2]] = int(parts[0], 16)
    return (syms["__ctors_end"] - syms["__ctors_start"]) // 8


@pytest.fixture(scope="module")
def profiled_branch(lab4):
    """A student-style branch off lab-4 with GCOV := y in init/ and lib/:
    built-in objects with constructors, some of them in lib.a."""
    branch = "gcovlab-test-profiled"
    git("checkout", "--quiet", "-B", branch, "lab-4")
    for d in INSTRUMENTED_DIRS:
        path = os.path.join(TREE, d, "Makefile")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n# gcovlab test: profile this directory\nGCOV := y\n")
    git("-c", "user.name=gcovlab-test", "-c", "user.email=test@invalid", "commit",
        "--quiet", "-am", "test: profile init/ and lib/")
    try:
        ok(gcovlab("build", "--tree"))
        yield BUILD
    finally:
        git("checkout", "--quiet", "lab-4")
        git("branch", "-D", branch)


@pytest.fixture(scope="module")
def registrations(profiled_branch, tmp_path_factory):
    out = tmp_path_factory.mktemp("reg") / "out"
    proc = gcovlab("run", "--tree", "--module", os.path.join(DATA, "multi-mod"),
                   "--workload", os.path.join(DATA, "multi-mod", "workload.sh"),
                   "--out", out)
    ok(proc)
    with open(out / "console.log", encoding="utf-8", errors="replace") as f:
        return f.read(), proc


def test_boot_registrations_equal_ctor_table(registrations, profiled_branch):
    console, _ = registrations
    m = re.search(r"gcov: (\d+) objects registered during boot", console)
    assert m, console[-3000:]
    booted = int(m.group(1))
    entries = ctor_table_entries(os.path.join(profiled_branch, "vmlinux"))
    assert booted == entries
    # Not a vacuous 0 == 0: init/ and lib/ objects registered.
    assert booted > 10
    # .gcno files overcount: lib.a members nobody references are not linked.
    gcno = [p for d in INSTRUMENTED_DIRS
            for p in glob.glob(os.path.join(profiled_branch, d, "**", "*.gcno"),
                               recursive=True)]
    assert len(gcno) > booted


def test_insmod_registers_each_module_object(registrations, profiled_branch):
    console, _ = registrations
    m = re.search(r"gcov: (\d+) objects registered during boot", console)
    booted = int(m.group(1))
    later = [int(n) for n in re.findall(r"gcov: object registered, (\d+) in all", console)]
    # multi.ko has two instrumented objects (core.o, lib/helper.o).
    assert later == [booted + 1, booted + 2]


def test_run_says_no_gcda_yet(registrations):
    _, proc = registrations
    assert "no .gcda came back, as expected" in proc.stdout + proc.stderr
