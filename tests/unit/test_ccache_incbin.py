# SPDX-License-Identifier: GPL-2.0
"""ccache and the assembler's .incbin (kbuild.CCACHE_MODE).

arch/x86/boot/compressed/piggy.S takes the compressed kernel in with
.incbin.  In ccache's depend mode a changed included file went unseen, and
a bzImage booted an older kernel than its vmlinux.  These tests compile a
file of that shape with ccache, in the environment the lab kernels' builds
get (kbuild.make_env), and check the object holds the bytes of the last
version of the included file; and that a cache and a build directory from
the depend-mode days are put right once.
"""

import os
import subprocess
import types

from gcovlablib import kbuild  # noqa: E402  (conftest puts vm/ on the path)

SOURCE = '.section .rodata\n.incbin "blob"\n'


def compile_with(env, tmp, content):
    (tmp / "blob").write_bytes(content)
    proc = subprocess.run(["ccache", "gcc", "-MD", "-c", "t.S", "-o", "t.o"], cwd=tmp, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return subprocess.run(["objcopy", "-O", "binary", "-j", ".rodata", "t.o", "/dev/stdout"],
                          cwd=tmp, capture_output=True, check=True).stdout


def test_a_changed_incbin_file_is_compiled_again(tmp_path):
    work = types.SimpleNamespace(ccache=str(tmp_path / "cache"))
    (tmp_path / "t.S").write_text(SOURCE)
    env = kbuild.make_env(work)
    assert compile_with(env, tmp_path, b"first kernel") == b"first kernel"
    assert compile_with(env, tmp_path, b"other kernel") == b"other kernel"


def test_the_environment_drops_a_users_depend_mode(monkeypatch, tmp_path):
    monkeypatch.setenv("CCACHE_DEPEND", "1")
    work = types.SimpleNamespace(ccache=str(tmp_path / "cache"))
    (tmp_path / "t.S").write_text(SOURCE)
    env = kbuild.make_env(work)
    assert "CCACHE_DEPEND" not in env
    compile_with(env, tmp_path, b"first kernel")
    assert compile_with(env, tmp_path, b"other kernel") == b"other kernel"


def test_a_cache_and_a_build_of_the_depend_mode_days_are_put_right(tmp_path):
    work = types.SimpleNamespace(ccache=str(tmp_path / "cache"))
    (tmp_path / "t.S").write_text(SOURCE)
    env = kbuild.make_env(work)
    # what depend mode stored: found again in the default mode, stale
    old = dict(env, CCACHE_DEPEND="1")
    compile_with(old, tmp_path, b"first kernel")
    assert compile_with(env, tmp_path, b"other kernel") == b"first kernel"
    out = tmp_path / "build"
    piggy = out / "arch/x86/boot/compressed/piggy.o"
    piggy.parent.mkdir(parents=True)
    piggy.write_bytes(b"old")
    (out / ".gcovlab-built").write_text("a state\n")
    assert not kbuild.ccache_mode_ok(str(out))
    kbuild.retire_depend_mode(work, str(out))
    assert compile_with(env, tmp_path, b"other kernel") == b"other kernel"
    assert not piggy.exists() and not (out / ".gcovlab-built").exists()
    assert kbuild.ccache_mode_ok(str(out))
    # once: a second directory does not empty the cache again
    compile_with(env, tmp_path, b"third kernel")
    stats = subprocess.run(["ccache", "-s"], env=env, capture_output=True, text=True).stdout
    kbuild.retire_depend_mode(work, str(tmp_path / "build2"))
    assert subprocess.run(["ccache", "-s"], env=env, capture_output=True,
                          text=True).stdout == stats
