# SPDX-License-Identifier: GPL-2.0
"""Series v3: the kbuild findings of issue 30 (items 4, 5 and 6), checked
on the host against a prepared build directory (no kernel is built: a few
objects and small external modules are).

- item 4: the .gcda link of an object of an external module built with a
  relative M= from a build directory reached through a symbolic link
  names the file the kernel exports (GCC's name for it, "." and ".."
  resolved as text), under dash; v2 ran "cd ../mod" in the shell, which
  dash does on the logical path, failed, and linked to
  $(GCOV_DATA_DIR)/x.gcda;
- item 5: "make gcov_links" does nothing without CONFIG_GCOV_PROFILE, and
  neither it nor the build replaces a regular .gcda file (data copied
  there, or written by the libgcov of UML's CONFIG_GCOV);
- item 2: no prefix of the series offers CONFIG_GCOV_PROFILE_ALL before
  x86's exclusions (v2 offered it from patch 0003 on; the exclusions came
  with 0010): Kconfig run on each prefix, and the four Makefiles read;
- item 6: a GCOV=y on make's command line is a default: the GCOV := n of
  a module's subdirectory, or of a kernel directory, still holds, and the
  sub-makes do not see GCOV at all; and drivers/scsi/lpfc, which had a
  GCOV switch of its own (-O0 and the profiling flags), no longer reads
  kbuild's GCOV.

GCOVLAB_SERIES_SRC=<kernel source tree> runs the tests on that tree
instead of the baseline with patches/*.patch applied (to compare v2 with
a work branch).
"""

import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO, ok

IDENT = ["-c", "user.name=gcovlab-test", "-c", "user.email=test@gcov-kernel-labs.invalid"]
DASH = shutil.which("dash") or "/bin/dash"
# SHELL on the command line: every recipe of every sub-make runs in dash,
# whatever /bin/sh is (Debian's is dash too).
MAKE = ["make", "-s", "ARCH=x86_64", "SHELL=" + DASH]
DEBUGFS = "/sys/kernel/debug/gcov"
PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))

MODULE_C = """#include <linux/module.h>
static int __init gcovtest_%(name)s_init(void)
{
	return 0;
}
module_init(gcovtest_%(name)s_init);
MODULE_LICENSE("GPL");
"""


def clean_env(**extra):
    """The environment without anything that steers make or kbuild (make
    check runs pytest from make: MAKEFLAGS would reach these makes)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GCOV",
                        "GCOV_DATA_DIR", "KBUILD_OUTPUT", "KBUILD_EXTMOD")
           and not k.startswith("KBUILD_GCOV")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def series(request, tmp_path_factory):
    """The kernel source: GCOVLAB_SERIES_SRC, or a detached worktree at
    gcovlab-baseline + every patch."""
    src = os.environ.get("GCOVLAB_SERIES_SRC")
    if src:
        yield src
        return
    tree = request.getfixturevalue("tree_repo")
    src = tmp_path_factory.mktemp("v3") / "linux"
    subprocess.run(["git", "-C", tree, "worktree", "add", "-q", "--detach", str(src),
                    "gcovlab-baseline"], check=True)
    try:
        subprocess.run(["git"] + IDENT + ["-C", str(src), "am", "-q"] + PATCHES, check=True)
        yield str(src)
    finally:
        subprocess.run(["git", "-C", tree, "worktree", "remove", "--force", str(src)])


# lpfc as a module, so that kbuild reads drivers/scsi/lpfc/Makefile (a
# single object of a directory that is not built gets the flags of the
# nearest directory that is).
LPFC = ["--enable", "BLOCK", "--enable", "PCI", "--enable", "NET", "--enable", "SCSI",
        "--enable", "SCSI_LOWLEVEL", "--enable", "CPU_FREQ", "--module", "SCSI_FC_ATTRS",
        "--module", "SCSI_LPFC"]


def prepare(src, out, options):
    """tinyconfig + DEBUG_FS + MODULES + OPTIONS (scripts/config
    arguments) in build directory OUT (SRC itself for an in-tree build),
    prepared for single objects and external modules."""
    os.makedirs(out, exist_ok=True)
    env = clean_env()
    where = [] if str(out) == str(src) else ["O=" + str(out)]
    ok(subprocess.run(MAKE + ["-C", src] + where + ["tinyconfig"], env=env,
                      text=True, capture_output=True))
    cmd = [os.path.join(src, "scripts", "config"), "--file", os.path.join(out, ".config")]
    for opt in ["DEBUG_KERNEL", "DEBUG_FS", "MODULES"]:
        cmd += ["--enable", opt]
    subprocess.run(cmd + list(options), check=True)
    ok(subprocess.run(MAKE + ["-C", src] + where + ["olddefconfig"], env=env,
                      text=True, capture_output=True))
    ok(subprocess.run(MAKE + ["-C", src] + where + ["-j2", "modules_prepare"],
                      env=env, text=True, capture_output=True))
    with open(os.path.join(out, ".config"), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def gcov_out(series, tmp_path_factory):
    """A build directory with CONFIG_GCOV_PROFILE (not _ALL)."""
    out = tmp_path_factory.mktemp("gcov") / "kb"
    config = prepare(series, out, ["--enable", "GCOV_PROFILE"] + LPFC)
    assert "CONFIG_GCOV_PROFILE=y" in config
    assert "CONFIG_GCOV_PROFILE_ALL=y" not in config
    assert "CONFIG_SCSI_LPFC=m" in config
    return out


@pytest.fixture(scope="module")
def nogcov_out(series, tmp_path_factory):
    """A build directory without CONFIG_GCOV_PROFILE."""
    out = tmp_path_factory.mktemp("nogcov") / "kb"
    config = prepare(series, out, LPFC)
    assert "CONFIG_GCOV_PROFILE=y" not in config
    assert "CONFIG_SCSI_LPFC=m" in config
    return out


@pytest.fixture(scope="module")
def intree(series, tmp_path_factory):
    """The series' commit checked out once more and built in place, with
    CONFIG_GCOV_PROFILE: a relative M= names the module's directory from
    the source tree (scripts/Makefile.build reads its Kbuild file from
    $(srctree)/$(src)), so it is used with in-tree builds."""
    head = subprocess.run(["git", "-C", series, "rev-parse", "HEAD"], text=True,
                          capture_output=True, check=True).stdout.strip()
    src = tmp_path_factory.mktemp("intree") / "linux"
    subprocess.run(["git", "-C", series, "worktree", "add", "-q", "--detach", str(src), head],
                   check=True)
    try:
        config = prepare(str(src), str(src), ["--enable", "GCOV_PROFILE"])
        assert "CONFIG_GCOV_PROFILE=y" in config
        yield src
    finally:
        subprocess.run(["git", "-C", series, "worktree", "remove", "--force", str(src)])


def write_module(mod, files):
    """Module directory MOD with FILES: {relative path: text}; a name
    NAME.c without text gets a one-file module NAME."""
    for rel, text in files.items():
        path = mod / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            text = MODULE_C % {"name": os.path.basename(rel)[:-2]}
        path.write_text(text)


def make_in(cwd, args, env=None):
    """make ARGS, typed in a dash whose working directory is CWD (so $PWD
    is CWD, symbolic links and all, as in a user's shell)."""
    script = 'cd "$1" && shift && exec "$@"'
    return subprocess.run([DASH, "-c", script, "dash", str(cwd)] + MAKE + list(args),
                          env=env or clean_env(), text=True, capture_output=True)


def gcda_name(obj):
    """The data file name that GCC built into profiled object OBJ."""
    with open(obj, "rb") as f:
        names = set(re.findall(rb"(/[\x21-\x7e]*\.gcda)\x00", f.read()))
    assert len(names) == 1, "%s: gcda names %r" % (obj, names)
    return names.pop().decode()


def resolved(name):
    """NAME with "." and empty components dropped and ".." resolved as
    text, never above the root: the path under gcov/ at which the kernel
    exports it (kernel/gcov/fs.c)."""
    parts = []
    for part in name.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/" + "/".join(parts)


def cmdline(obj):
    """The command line kbuild saved for object OBJ (its .cmd file)."""
    with open(os.path.join(os.path.dirname(obj), "." + os.path.basename(obj) + ".cmd"),
              encoding="utf-8") as f:
        return f.readline()


# ---------------------------------------------------------------------------
# item 4: a build directory behind a symbolic link, and a relative M=


@pytest.fixture
def linked(intree, tmp_path):
    """(link, module): ~/linux -> /data/linux, as it were: a symbolic link
    to the tree, in another directory, and a module directory beside the
    real tree. From the link, "../<module>" names the module for make and
    the compiler (the file system resolves ".." physically) but nothing
    for a shell's logical "cd"."""
    link = tmp_path / "linux"
    link.symlink_to(intree)
    mod = intree.parent / ("mod-" + tmp_path.name)
    if mod.exists():
        shutil.rmtree(mod)
    write_module(mod, {"symx.c": None, "Kbuild": "obj-m := symx.o\n"})
    assert not os.path.exists(tmp_path / mod.name)
    return link, mod


def test_dash_is_the_shell():
    assert os.path.basename(os.path.realpath(DASH)) == "dash"


def test_link_of_module_built_through_symlink(linked):
    """cd <link to the tree> && make M=../mod GCOV=y modules: the link
    beside the object names the kernel's file for it."""
    link, mod = linked
    proc = make_in(link, ["M=../" + mod.name, "GCOV=y", "modules"])
    ok(proc)
    assert "can't cd" not in proc.stderr and "can't cd" not in proc.stdout, proc.stderr
    name = gcda_name(mod / "symx.o")
    # GCC prefixes the shell's $PWD, link and all: the case this is about.
    assert name == "%s/../%s/symx.gcda" % (link, mod.name)
    assert os.path.islink(mod / "symx.gcda")
    assert os.readlink(mod / "symx.gcda") == DEBUGFS + resolved(name)


def test_gcov_links_of_module_through_symlink(linked):
    """The same from make gcov_links GCOV_DATA_DIR=<copy>."""
    link, mod = linked
    ok(make_in(link, ["M=../" + mod.name, "GCOV=y", "modules"]))
    os.remove(mod / "symx.gcda")
    proc = make_in(link, ["M=../" + mod.name, "GCOV_DATA_DIR=/copy", "gcov_links"])
    ok(proc)
    assert "can't cd" not in proc.stderr, proc.stderr
    name = gcda_name(mod / "symx.o")
    assert os.readlink(mod / "symx.gcda") == "/copy" + resolved(name)


def test_link_of_kernel_object_through_symlink(gcov_out, tmp_path):
    """An object of the kernel itself, built through the link: the link
    keeps the symbolic path, as GCC does."""
    link = tmp_path / "linux"
    link.symlink_to(gcov_out)
    ok(make_in(link, ["GCOV=y", "lib/cmdline.o"]))
    name = gcda_name(gcov_out / "lib" / "cmdline.o")
    assert name == "%s/lib/cmdline.gcda" % link
    assert os.readlink(gcov_out / "lib" / "cmdline.gcda") == DEBUGFS + name


# ---------------------------------------------------------------------------
# item 5: gcov_links needs CONFIG_GCOV_PROFILE; regular files stay


def test_gcov_links_without_gcov_profile(nogcov_out, tmp_path):
    """Objects profiled by other means (UML's CONFIG_GCOV compiles with
    -fprofile-arcs -ftest-coverage and links libgcov, which writes real
    .gcda files): make gcov_links leaves them alone, and says why."""
    mod = tmp_path / "umlish"
    write_module(mod, {"ua.c": None, "ub.c": None,
                       "Kbuild": "ccflags-y := -fprofile-arcs -ftest-coverage\n"
                                 "obj-m := ua.o ub.o\n"})
    ok(make_in(nogcov_out, ["M=" + str(mod), "modules"]))
    assert os.path.exists(mod / "ua.gcno") and os.path.exists(mod / "ub.gcno")
    (mod / "ua.gcda").write_bytes(b"written by libgcov")
    proc = make_in(nogcov_out, ["M=" + str(mod), "gcov_links"])
    ok(proc)
    assert not os.path.islink(mod / "ua.gcda")
    assert (mod / "ua.gcda").read_bytes() == b"written by libgcov"
    assert not os.path.lexists(mod / "ub.gcda")
    assert "CONFIG_GCOV_PROFILE" in proc.stdout + proc.stderr


@pytest.fixture
def profiled_module(gcov_out, tmp_path):
    mod = tmp_path / "regmod"
    write_module(mod, {"ra.c": None, "rb.c": None, "Kbuild": "obj-m := ra.o rb.o\n"})
    ok(make_in(gcov_out, ["M=" + str(mod), "GCOV=y", "modules"]))
    assert os.path.islink(mod / "ra.gcda") and os.path.islink(mod / "rb.gcda")
    os.remove(mod / "ra.gcda")
    (mod / "ra.gcda").write_bytes(b"copied here by hand")
    return mod


def test_gcov_links_keeps_regular_gcda(gcov_out, profiled_module):
    mod = profiled_module
    os.remove(mod / "rb.gcda")
    proc = make_in(gcov_out, ["M=" + str(mod), "GCOV_DATA_DIR=/copy", "gcov_links"])
    ok(proc)
    assert not os.path.islink(mod / "ra.gcda")
    assert (mod / "ra.gcda").read_bytes() == b"copied here by hand"
    assert "ra.gcda" in proc.stderr, "not told that ra.gcda was left alone"
    assert os.readlink(mod / "rb.gcda") == "/copy%s/rb.gcda" % mod


def test_rebuild_keeps_regular_gcda(gcov_out, profiled_module):
    mod = profiled_module
    os.utime(mod / "ra.c")
    os.utime(mod / "rb.c")
    os.remove(mod / "rb.gcda")
    ok(make_in(gcov_out, ["M=" + str(mod), "GCOV=y", "modules"]))
    assert not os.path.islink(mod / "ra.gcda")
    assert (mod / "ra.gcda").read_bytes() == b"copied here by hand"
    assert os.readlink(mod / "rb.gcda") == "%s%s/rb.gcda" % (DEBUGFS, mod)


# ---------------------------------------------------------------------------
# item 6: a command-line GCOV=y is a default; lpfc's switch is its own


def test_command_line_gcov_keeps_module_exclusions(gcov_out, tmp_path):
    """make M=<mod> GCOV=y: the module's own GCOV_<obj>.o := n and a
    subdirectory's GCOV := n still hold; the rest is profiled."""
    mod = tmp_path / "excl"
    write_module(mod, {"ea.c": None, "eb.c": None,
                       "Kbuild": "GCOV_eb.o := n\nobj-m := ea.o eb.o\nobj-m += sub/\n",
                       "sub/ec.c": None, "sub/ed.c": None,
                       "sub/Kbuild": "GCOV := n\nGCOV_ed.o := y\nobj-m := ec.o ed.o\n"})
    ok(make_in(gcov_out, ["M=" + str(mod), "GCOV=y", "modules"]))
    profiled = {o: "-fprofile-arcs" in cmdline(mod / o)
                for o in ("ea.o", "eb.o", "sub/ec.o", "sub/ed.o")}
    assert profiled == {"ea.o": True, "eb.o": False, "sub/ec.o": False, "sub/ed.o": True}


def test_command_line_gcov_does_not_reach_sub_makes(gcov_out, tmp_path):
    """make M=<mod> GCOV=y: the module's make sees no GCOV at all (neither
    as a command-line value nor in its environment), so a Makefile that
    reads GCOV for its own purposes, as lpfc's did, is not switched on."""
    mod = tmp_path / "origin"
    write_module(mod, {"oa.c": None,
                       "Kbuild": "$(info GCOV-ORIGIN=$(origin GCOV))\nobj-m := oa.o\n"})
    proc = make_in(gcov_out, ["M=" + str(mod), "GCOV=y", "modules"])
    ok(proc)
    origins = set(re.findall(r"GCOV-ORIGIN=(.*)", proc.stdout))
    assert origins == {"undefined"}, proc.stdout
    assert "-fprofile-arcs" in cmdline(mod / "oa.o")


def test_command_line_gcov_n_leaves_directory_setting(gcov_out, tmp_path):
    """make M=<mod> GCOV=n: a directory that asks for GCOV := y wins."""
    mod = tmp_path / "dirwins"
    write_module(mod, {"wa.c": None, "Kbuild": "obj-m := sub/\n",
                       "sub/wb.c": None, "sub/Kbuild": "GCOV := y\nobj-m := wb.o\n"})
    ok(make_in(gcov_out, ["M=" + str(mod), "GCOV=n", "modules"]))
    assert "-fprofile-arcs" in cmdline(mod / "sub" / "wb.o")


def test_command_line_gcov_keeps_kernel_exclusions(gcov_out):
    """make GCOV=y on the kernel itself: the vDSO's GCOV := n holds (its
    objects run in user space, where there is no __gcov_init)."""
    obj = gcov_out / "arch" / "x86" / "entry" / "vdso" / "vgetcpu.o"
    ok(make_in(gcov_out, ["GCOV=y", "arch/x86/entry/vdso/vgetcpu.o"]))
    assert "-fprofile-arcs" not in cmdline(obj)


LPFC_OBJ = "drivers/scsi/lpfc/lpfc_vmid.o"


def test_lpfc_with_command_line_gcov(gcov_out):
    """make GCOV=y: lpfc is profiled like any directory without a GCOV
    line, with the series' flags once and its optimisation kept."""
    ok(make_in(gcov_out, ["GCOV=y", LPFC_OBJ]))
    cmd = cmdline(gcov_out / LPFC_OBJ)
    assert cmd.count("-fprofile-arcs") == 1, cmd
    assert " -O0" not in cmd, cmd


def test_lpfc_ignores_environment_gcov(gcov_out):
    """GCOV=y exported in the environment (kbuild ignores it, as gcovr's)
    does not profile lpfc either."""
    ok(make_in(gcov_out, [LPFC_OBJ], env=clean_env(GCOV="y")))
    cmd = cmdline(gcov_out / LPFC_OBJ)
    assert "-fprofile-arcs" not in cmd and " -O0" not in cmd, cmd


def test_lpfc_without_gcov_profile(nogcov_out):
    """Without CONFIG_GCOV_PROFILE nothing provides __gcov_init: make
    GCOV=y must not profile lpfc."""
    ok(make_in(nogcov_out, ["GCOV=y", LPFC_OBJ]))
    cmd = cmdline(nogcov_out / LPFC_OBJ)
    assert "-fprofile-arcs" not in cmd and " -O0" not in cmd, cmd


# ---- item 2: every prefix builds with every option it offers -------------

# What a whole-kernel build must exclude on x86_64 for the kernel to link
# (patch 0010's message: found one piece at a time with the option on).
X86_EXCLUSIONS = ["arch/x86/entry/vdso/Makefile", "arch/x86/purgatory/Makefile",
                  "arch/x86/boot/compressed/Makefile", "arch/x86/boot/Makefile"]


@pytest.fixture(scope="module")
def prefixes(request, tmp_path_factory):
    """[(k, commit)] for k = 1..N: gcovlab-baseline + the first k patches,
    applied one at a time in a worktree of its own."""
    tree = request.getfixturevalue("tree_repo")
    src = tmp_path_factory.mktemp("prefixes") / "linux"
    subprocess.run(["git", "-C", tree, "worktree", "add", "-q", "--detach", str(src),
                    "gcovlab-baseline"], check=True)
    try:
        out = []
        for k, patch in enumerate(PATCHES, 1):
            subprocess.run(["git"] + IDENT + ["-C", str(src), "am", "-q", patch], check=True)
            head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], text=True,
                                  capture_output=True, check=True).stdout.strip()
            out.append((k, head))
        yield str(src), out
    finally:
        subprocess.run(["git", "-C", tree, "worktree", "remove", "--force", str(src)])


def offers_profile_all(src, commit, out):
    """Kconfig of that commit, for x86_64: does CONFIG_GCOV_PROFILE_ALL=y
    stay set once asked for (with CONFIG_GCOV_PROFILE)?"""
    subprocess.run(["git", "-C", src, "checkout", "-q", "--detach", commit], check=True)
    os.makedirs(out, exist_ok=True)
    if os.path.exists(os.path.join(out, ".config")):
        os.unlink(os.path.join(out, ".config"))
    env = clean_env()
    ok(subprocess.run(MAKE + ["-C", src, "O=" + str(out), "tinyconfig"], env=env,
                      text=True, capture_output=True))
    cmd = [os.path.join(src, "scripts", "config"), "--file", os.path.join(out, ".config")]
    for opt in ["DEBUG_KERNEL", "DEBUG_FS", "GCOV_PROFILE", "GCOV_PROFILE_ALL"]:
        cmd += ["--enable", opt]
    subprocess.run(cmd, check=True)
    ok(subprocess.run(MAKE + ["-C", src, "O=" + str(out), "olddefconfig"], env=env,
                      text=True, capture_output=True))
    with open(os.path.join(out, ".config"), encoding="utf-8") as f:
        return "CONFIG_GCOV_PROFILE_ALL=y" in f.read()


def excluded(src, commit, makefile):
    """Does MAKEFILE, at that commit, say the series' GCOV := n?"""
    text = subprocess.run(["git", "-C", src, "show", "%s:%s" % (commit, makefile)],
                          text=True, capture_output=True, check=True).stdout
    return bool(re.search(r"^GCOV\s*:=\s*n\s*$", text, re.M))


def test_profile_all_offered_only_with_x86_exclusions(prefixes, tmp_path):
    src, commits = prefixes
    offered = []
    for k, commit in commits:
        # one build directory for all: Kconfig's own programs are built once
        if not offers_profile_all(src, commit, tmp_path / "kconfig"):
            continue
        offered.append(k)
        missing = [m for m in X86_EXCLUSIONS if not excluded(src, commit, m)]
        assert not missing, (
            "patches 1-%d offer CONFIG_GCOV_PROFILE_ALL on x86_64, but %s do not "
            "exclude their objects (GCOV := n): a whole-kernel build of that prefix "
            "does not link" % (k, ", ".join(missing)))
    # The whole series offers it: the test has looked at a prefix that does.
    assert offered and offered[-1] == len(commits), offered
