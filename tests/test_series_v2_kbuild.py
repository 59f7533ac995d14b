# SPDX-License-Identifier: GPL-2.0
"""Series v2: the Kconfig and kbuild bugs a review found in v1, checked on
the host in a worktree of the kernel tree with the whole series applied
(no kernel is built; configuring and one object take seconds).

- bug 4: CONFIG_GCOV_PROFILE is offered only with GCC 12 (another GCC or
  clang hit the compiler guard's #error in v1); CONFIG_GCOV_PROFILE_ALL
  only on x86 and not with COMPILE_TEST;
- bug 5: the .gcda link rule runs only with CONFIG_GCOV_PROFILE (UML's
  own CONFIG_GCOV adds -ftest-coverage too, and its objects got dangling
  links), and "make gcov_links" with a relative M= names the module's
  real path (v1 made ".../gcov../mod/x.gcda").
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, ok, gcovlab, other_compiler, work_root

sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib import checks  # noqa: E402

PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
IDENT = ["-c", "user.name=gcovlab-test", "-c", "user.email=test@gcov-kernel-labs.invalid"]
MAKE = ["make", "-s", "ARCH=x86_64"]


@pytest.fixture(scope="module")
def series(tree_repo, tmp_path_factory):
    """A detached worktree at gcovlab-baseline + every patch."""
    tree = tree_repo
    src = tmp_path_factory.mktemp("v2") / "linux"
    subprocess.run(["git", "-C", tree, "worktree", "add", "-q", "--detach", str(src),
                    "gcovlab-baseline"], check=True)
    try:
        subprocess.run(["git"] + IDENT + ["-C", str(src), "am", "-q"] + PATCHES, check=True)
        yield str(src)
    finally:
        subprocess.run(["git", "-C", tree, "worktree", "remove", "--force", str(src)])


def configure(src, out, cc="gcc", enable=(), extra=()):
    """tinyconfig + DEBUG_FS + the given options; return the .config text."""
    os.makedirs(out, exist_ok=True)
    subprocess.run(MAKE + ["-C", src, "O=" + str(out), "CC=" + cc, "tinyconfig"],
                   check=True, capture_output=True)
    opts = ["DEBUG_KERNEL", "DEBUG_FS"] + list(enable)
    cmd = [os.path.join(src, "scripts", "config"), "--file", str(out / ".config")]
    for o in opts:
        cmd += ["--enable", o]
    subprocess.run(cmd + list(extra), check=True)
    subprocess.run(MAKE + ["-C", src, "O=" + str(out), "CC=" + cc, "olddefconfig"],
                   check=True, capture_output=True)
    with open(out / ".config", encoding="utf-8") as f:
        return f.read()


def fake_gcc(tmp_path, version):
    """A gcc that reports another version to Kconfig's compiler probe: the
    one Lab 1's exercise check uses (vm/gcovlablib/checks.py)."""
    path = tmp_path / ("gcc-%d.%d" % version)
    path.write_text(checks.FAKE_GCC % version)
    path.chmod(0o755)
    return str(path)


def test_profile_offered_with_gcc_12(series, tmp_path):
    config = configure(series, tmp_path / "b", enable=["GCOV_PROFILE", "GCOV_PROFILE_ALL"])
    assert "CONFIG_GCOV_PROFILE=y" in config
    assert "CONFIG_GCOV_PROFILE_ALL=y" in config


@pytest.mark.parametrize("version", [(11, 3), (13, 1)])
def test_profile_not_offered_with_other_gcc(series, tmp_path, version):
    cc = fake_gcc(tmp_path, version)
    config = configure(series, tmp_path / "b", cc=cc, enable=["GCOV_PROFILE"])
    assert "CONFIG_GCC_VERSION=%d%02d00" % version in config, "the fake compiler was not seen"
    assert "CONFIG_GCOV_PROFILE=y" not in config


def test_profile_not_offered_with_real_gcc_11(series, tmp_path):
    # Debian 12's gcc-11 (./setup.sh installs it), not a fake: the Kconfig
    # gate hides the option.
    other_compiler("gcc-11")
    config = configure(series, tmp_path / "b", cc="gcc-11", enable=["GCOV_PROFILE"])
    assert re.search(r"^CONFIG_GCC_VERSION=110\d00$", config, re.M), "gcc-11 was not seen"
    assert "CONFIG_GCOV_PROFILE=y" not in config


def test_profile_all_not_with_compile_test(series, tmp_path):
    config = configure(series, tmp_path / "b",
                       enable=["COMPILE_TEST", "GCOV_PROFILE", "GCOV_PROFILE_ALL"])
    assert "CONFIG_GCOV_PROFILE=y" in config
    assert "CONFIG_GCOV_PROFILE_ALL=y" not in config


def test_profile_all_only_on_x86(series):
    with open(os.path.join(series, "kernel", "gcov", "Kconfig"), encoding="utf-8") as f:
        text = f.read()
    block = text.split("config GCOV_PROFILE_ALL", 1)[1].split("\nconfig ", 1)[0]
    assert "depends on ARCH_HAS_GCOV_PROFILE_ALL && X86" in block


@pytest.fixture(scope="module")
def prepared(series, tmp_path_factory):
    """An x86_64 build directory without CONFIG_GCOV_PROFILE, prepared for
    single objects."""
    out = tmp_path_factory.mktemp("nogcov") / "b"
    config = configure(series, out)
    assert "CONFIG_GCOV_PROFILE=y" not in config
    subprocess.run(MAKE + ["-C", series, "O=" + str(out), "-j2", "prepare"], check=True,
                   capture_output=True)
    return out


def test_no_link_without_gcov_profile(series, prepared):
    """An object compiled with -ftest-coverage by other means (as UML's
    CONFIG_GCOV does) gets no .gcda link when CONFIG_GCOV_PROFILE is off."""
    proc = subprocess.run(MAKE + ["-C", series, "O=" + str(prepared), "lib/ctype.o",
                                  "CFLAGS_ctype.o=-fprofile-arcs -ftest-coverage"],
                          text=True, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert os.path.exists(prepared / "lib" / "ctype.gcno"), "the object was not profiled"
    assert not os.path.lexists(prepared / "lib" / "ctype.gcda")


@pytest.fixture(scope="module")
def prepared_gcov(series, tmp_path_factory):
    """An x86_64 build directory with CONFIG_GCOV_PROFILE (make gcov_links
    does nothing without it, since v3), prepared."""
    out = tmp_path_factory.mktemp("gcov") / "b"
    config = configure(series, out, enable=["GCOV_PROFILE"])
    assert "CONFIG_GCOV_PROFILE=y" in config
    subprocess.run(MAKE + ["-C", series, "O=" + str(out), "-j2", "prepare"], check=True,
                   capture_output=True)
    return out


def test_gcov_links_with_relative_module_dir(series, prepared_gcov, tmp_path):
    """make gcov_links M=<relative dir>: the link names the module's real
    directory under GCOV_DATA_DIR."""
    prepared = prepared_gcov
    mod = tmp_path / "relmod"
    mod.mkdir()
    (mod / "x.gcno").write_bytes(b"oncg")
    (mod / ".x.o.cmd").write_text("savedcmd_x.o := gcc -fprofile-arcs -ftest-coverage -c x.c\n")
    rel = os.path.relpath(mod, prepared)
    proc = subprocess.run(MAKE + ["-C", str(prepared), "M=" + rel, "gcov_links",
                                  "GCOV_DATA_DIR=/data"], text=True, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert os.readlink(mod / "x.gcda") == "/data%s/x.gcda" % os.path.realpath(mod)
