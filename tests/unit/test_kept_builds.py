# SPDX-License-Identifier: GPL-2.0
"""kbuild.restore_or_keep: a complete build of a committed tree state is
kept when its build directory moves on, and put back by a rename when the
tree returns to that state.  Build directories are stood in for here by a
stamp, a bzImage and a symbolic link; nothing is compiled."""

import os
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "vm"))

from gcovlablib import kbuild  # noqa: E402
from gcovlablib.util import GcovlabError, Lock  # noqa: E402

CLEAN = kbuild.CLEAN_TREE


def state(commit, clean=True):
    return "%s%s config=abc make=CC=gcc" % (commit, CLEAN if clean else "+0123456789abcdef")


class FakeWork:
    def __init__(self, root):
        self.root = str(root)

    def build_dir(self, config):
        return os.path.join(self.root, "build", str(config))


def fake_build(out, built_state, payload=None):
    """A complete build directory of BUILT_STATE (None: interrupted)."""
    os.makedirs(os.path.join(out, "arch/x86/boot"), exist_ok=True)
    with open(os.path.join(out, "arch/x86/boot/bzImage"), "w") as f:
        f.write(payload or built_state or "half")
    if not os.path.lexists(os.path.join(out, "source")):
        os.symlink("/some/tree", os.path.join(out, "source"))
    stamp = os.path.join(out, ".gcovlab-built")
    if built_state is None:
        if os.path.exists(stamp):
            os.remove(stamp)
    else:
        kbuild.mark_built(out, built_state)


def image(out):
    with open(os.path.join(out, "arch/x86/boot/bzImage")) as f:
        return f.read()


def kept(work, out):
    root = kbuild.kept_root(work, out)
    return sorted(os.listdir(root)) if os.path.isdir(root) else []


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.delenv("GCOVLAB_KEEP_BUILDS", raising=False)
    work = FakeWork(tmp_path)
    out = os.path.join(str(tmp_path), "build", "lab")
    return work, out


def test_a_committed_state_is_kept_before_the_directory_moves_on(setup):
    work, out = setup
    fake_build(out, state("a"))
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    # the directory itself is left for make; a copy of state a is kept
    assert kbuild.complete_state(out) == state("a")
    copy = kbuild.kept_dir(work, out, state("a"))
    assert kbuild.complete_state(copy) == state("a") and image(copy) == state("a")
    assert os.readlink(os.path.join(copy, "source")) == "/some/tree"


def test_returning_to_a_kept_state_puts_it_back(setup):
    work, out = setup
    fake_build(out, state("a"))
    kbuild.restore_or_keep(work, out, state("b"))
    fake_build(out, state("b"))                     # make built b there
    assert kbuild.restore_or_keep(work, out, state("a")) is True
    assert kbuild.complete_state(out) == state("a") and image(out) == state("a")
    # b was moved aside (a rename, not a copy), a is no longer kept twice
    assert kept(work, out) == [os.path.basename(kbuild.kept_dir(work, out, state("b")))]
    assert kbuild.restore_or_keep(work, out, state("b")) is True
    assert image(out) == state("b")


def test_a_tree_with_uncommitted_edits_is_not_kept(setup):
    work, out = setup
    fake_build(out, state("a", clean=False))
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    assert kept(work, out) == []
    # and it makes room when a kept state is put back
    fake_build(kbuild.kept_dir(work, out, state("c")), state("c"))
    assert kbuild.restore_or_keep(work, out, state("c")) is True
    assert image(out) == state("c") and kept(work, out) == []


def test_an_interrupted_build_is_not_kept(setup):
    work, out = setup
    fake_build(out, None)
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    assert kept(work, out) == []


def test_a_kept_directory_without_its_image_is_not_put_back(setup):
    work, out = setup
    fake_build(out, state("a"))
    broken = kbuild.kept_dir(work, out, state("b"))
    fake_build(broken, state("b"))
    os.remove(os.path.join(broken, "arch/x86/boot/bzImage"))
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    assert kbuild.complete_state(out) == state("a")


def test_the_directory_already_at_the_state_is_left_alone(setup):
    work, out = setup
    fake_build(out, state("a"))
    assert kbuild.restore_or_keep(work, out, state("a")) is False
    assert kept(work, out) == []


def test_a_first_build_has_nothing_to_keep(setup):
    work, out = setup
    assert kbuild.restore_or_keep(work, out, state("a")) is False
    assert not os.path.exists(out) and kept(work, out) == []


def test_the_least_recently_used_go_first(setup, monkeypatch):
    work, out = setup
    monkeypatch.setenv("GCOVLAB_KEEP_BUILDS", "2")
    for commit in "abcd":
        fake_build(out, state(commit))
        kbuild.restore_or_keep(work, out, state(commit + "-next"))
        # mtimes a second apart: the order is not left to the clock's grain
        copy = kbuild.kept_dir(work, out, state(commit))
        when = time.time() - 100 + "abcd".index(commit)
        os.utime(copy, (when, when))
    kbuild.prune_kept(work, out, kbuild.keep_limit())
    assert kept(work, out) == sorted(os.path.basename(kbuild.kept_dir(work, out, state(c)))
                                     for c in "cd")


def test_keep_nothing(setup, monkeypatch):
    work, out = setup
    monkeypatch.setenv("GCOVLAB_KEEP_BUILDS", "0")
    fake_build(out, state("a"))
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    assert kept(work, out) == []


def test_a_bad_limit_is_named(setup, monkeypatch):
    work, out = setup
    monkeypatch.setenv("GCOVLAB_KEEP_BUILDS", "many")
    fake_build(out, state("a"))
    with pytest.raises(GcovlabError, match="GCOVLAB_KEEP_BUILDS='many' is not a number"):
        kbuild.restore_or_keep(work, out, state("b"))


def test_real_states_of_a_clean_tree_are_worth_keeping():
    # the format kbuild.state() and tree.source_state() give
    assert kbuild.worth_keeping("0123abcd%s config=x make=y" % CLEAN)
    assert not kbuild.worth_keeping("0123abcd+ffffffffffffffff config=x make=y")
    assert not kbuild.worth_keeping(None)


def test_using_a_kept_build_makes_it_the_most_recent(setup, monkeypatch):
    work, out = setup
    monkeypatch.setenv("GCOVLAB_KEEP_BUILDS", "2")
    old = time.time() - 1000
    for commit, when in (("a", old), ("b", old + 500)):
        fake_build(kbuild.kept_dir(work, out, state(commit)), state(commit))
        os.utime(kbuild.kept_dir(work, out, state(commit)), (when, when))
    fake_build(out, state("c"))
    # a, the oldest, is put back (c moves aside, used more lately than b);
    # then d is built: a is kept again and is the most recent, so b goes
    assert kbuild.restore_or_keep(work, out, state("a")) is True
    os.utime(kbuild.kept_dir(work, out, state("c")), (old + 600, old + 600))
    assert kbuild.restore_or_keep(work, out, state("d")) is False
    assert kept(work, out) == sorted(os.path.basename(kbuild.kept_dir(work, out, state(c)))
                                     for c in "ac")


def test_what_an_interrupted_keep_left_goes(setup):
    work, out = setup
    half = kbuild.kept_dir(work, out, state("x")) + ".tmp"
    fake_build(half, state("x"))
    fake_build(out, state("a"))
    kbuild.restore_or_keep(work, out, state("b"))
    assert not os.path.exists(half)
    assert kept(work, out) == [os.path.basename(kbuild.kept_dir(work, out, state("a")))]


def test_keep_nothing_frees_what_was_kept(setup, monkeypatch):
    work, out = setup
    fake_build(out, state("a"))
    kbuild.restore_or_keep(work, out, state("b"))
    assert kept(work, out)
    monkeypatch.setenv("GCOVLAB_KEEP_BUILDS", "0")
    kbuild.restore_or_keep(work, out, state("b"))
    assert not os.path.exists(kbuild.kept_root(work, out))


def test_a_copy_that_fails_is_said_and_the_build_goes_on(setup, monkeypatch, capsys):
    work, out = setup
    fake_build(out, state("a"))
    real = kbuild.probe

    def failing_cp(cmd, **kw):
        if cmd[0] == "cp":
            os.makedirs(cmd[-1])            # what a cp cut short leaves
            return real(["sh", "-c", "echo 'No space left on device' >&2; exit 1"])
        return real(cmd, **kw)
    monkeypatch.setattr(kbuild, "probe", failing_cp)
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    assert "could not keep the build" in capsys.readouterr().err
    assert kept(work, out) == []
    assert kbuild.complete_state(out) == state("a")


def test_a_removal_cut_short_leaves_no_complete_build(setup, monkeypatch):
    work, out = setup
    fake_build(out, state("a"))
    monkeypatch.setattr(kbuild.shutil, "rmtree", lambda *a, **k: None)
    kbuild.discard(out)
    assert kbuild.complete_state(out) is None


def test_a_kept_build_is_of_one_compiler(setup, monkeypatch):
    work, out = setup
    before = kbuild.kept_dir(work, out, state("a"))
    monkeypatch.setattr(kbuild, "compiler_id", lambda: "gcc (Debian 12.3.0-1) 12.3.0")
    assert kbuild.kept_dir(work, out, state("a")) != before


def test_module_objects_of_another_kernel_build_go(tmp_path):
    kout, dst = str(tmp_path / "k"), str(tmp_path / "m")
    fake_build(kout, state("a"))
    os.makedirs(dst)
    for name in ("drv.c", "Makefile", "drv.o", "drv.ko", ".drv.o.cmd", "drv.gcno"):
        (tmp_path / "m" / name).write_text("x")
    kbuild.forget_other_kernel(kout, dst)           # first build: nothing known
    assert sorted(os.listdir(dst)) == [".gcovlab-kernel", "Makefile", "drv.c"]
    (tmp_path / "m" / "drv.o").write_text("x")
    kbuild.forget_other_kernel(kout, dst)           # the same kernel: kept
    assert os.path.exists(os.path.join(dst, "drv.o"))
    fake_build(kout, state("b"))                    # another state put back
    kbuild.forget_other_kernel(kout, dst)
    assert not os.path.exists(os.path.join(dst, "drv.o"))


def test_a_build_changed_after_it_was_made_is_not_kept(setup):
    # Lab 8: make gcov_links GCOV_DATA_DIR=... points the build's .gcda
    # links into one run's folder; gcov writes .gcov files into it
    work, out = setup
    fake_build(out, state("a"))
    os.makedirs(os.path.join(out, "init"))
    os.symlink("/sys/kernel/debug/gcov/init/main.gcda", os.path.join(out, "init/main.gcda"))
    kbuild.mark_built(out, state("a"))
    assert kbuild.as_built(out)
    os.remove(os.path.join(out, "init/main.gcda"))
    os.symlink("/tmp/one-run/gcda/init/main.gcda", os.path.join(out, "init/main.gcda"))
    assert not kbuild.as_built(out)
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    assert kept(work, out) == []
    # a file written into it is a change too
    fake_build(out, state("c"))
    open(os.path.join(out, "main.c.gcov"), "w").close()
    assert kbuild.restore_or_keep(work, out, state("d")) is False
    assert kept(work, out) == []


def test_a_kept_build_changed_since_is_not_put_back(setup):
    work, out = setup
    fake_build(out, state("a"))
    kbuild.restore_or_keep(work, out, state("b"))
    copy = kbuild.kept_dir(work, out, state("a"))
    with open(os.path.join(copy, "arch/x86/boot/bzImage"), "a") as f:
        f.write("more")
    fake_build(out, state("b"))
    assert kbuild.restore_or_keep(work, out, state("a")) is False
    assert not os.path.exists(copy)
    assert kbuild.complete_state(out) == state("b")


def test_a_build_from_before_the_digest_is_not_kept(setup):
    work, out = setup
    fake_build(out, state("a"))
    os.remove(os.path.join(out, ".gcovlab-contents"))
    assert kbuild.restore_or_keep(work, out, state("b")) is False
    assert kept(work, out) == []


def test_a_build_put_back_has_notes_newer_than_the_sources(setup):
    # the checkout writes the sources after the build was kept: gcov must
    # not call the .gcno files older than their sources
    work, out = setup
    fake_build(out, state("a"))
    os.makedirs(os.path.join(out, "init"))
    for name, flags in (("main", "-fprofile-arcs -ftest-coverage"), ("version", "-Os")):
        # version.gcno: left from an earlier build with the gcov flags; its
        # object has been compiled without them since
        with open(os.path.join(out, "init", name + ".gcno"), "w") as f:
            f.write("notes")
        with open(os.path.join(out, "init", ".%s.o.cmd" % name), "w") as f:
            f.write("cmd_init/%s.o := gcc %s -c -o init/%s.o init/%s.c\n" % (
                name, flags, name, name))
        os.utime(os.path.join(out, "init", name + ".gcno"), (1000000000, 1000000000))
    kbuild.mark_built(out, state("a"))
    kbuild.restore_or_keep(work, out, state("b"))
    fake_build(out, state("b"))
    before = time.time()
    assert kbuild.restore_or_keep(work, out, state("a")) is True
    assert os.stat(os.path.join(out, "init", "main.gcno")).st_mtime >= before - 1
    # of a stale one, gcov's "source file is newer" is right
    assert os.stat(os.path.join(out, "init", "version.gcno")).st_mtime == 1000000000
    assert kbuild.as_built(out)


class LinksWork(FakeWork):
    tarball = "/nonexistent"
    ccache = "/nonexistent"


def test_a_build_over_a_changed_directory_undoes_the_changes(tmp_path, monkeypatch):
    """make builds the next state over a directory whose .gcda links a
    student pointed elsewhere: the links of the objects make does not
    compile again would pass into the new state's build, so the tree's own
    'make gcov_links' puts kbuild's links back, and .gcov files go."""
    monkeypatch.delenv("GCOVLAB_KEEP_BUILDS", raising=False)
    work = LinksWork(tmp_path)
    out = os.path.join(str(tmp_path), "build", "lab")
    src = tmp_path / "linux"
    src.mkdir()
    (src / "Makefile").write_text(
        "# a stand-in for patch 0009's target\n"
        "gcov_links:\n"
        "\tln -sfn /sys/kernel/debug/gcov$(O)/init/main.gcda $(O)/init/main.gcda\n")
    fake_build(out, state("a"))
    os.makedirs(os.path.join(out, "init"))
    link = os.path.join(out, "init", "main.gcda")
    os.symlink("/sys/kernel/debug/gcov%s/init/main.gcda" % out, link)
    kbuild.mark_built(out, state("a"))
    assert not kbuild.changed_since_built(out)
    os.remove(link)
    os.symlink("/home/student/run/gcda/init/main.gcda", link)
    open(os.path.join(out, "main.c.gcov"), "w").close()
    assert kbuild.changed_since_built(out)
    # make built state b over it (nothing in init/ compiled again)
    fake_build(out, None)
    kbuild.finish_build(work, str(src), out, "lab", state("b"), changed=True)
    assert os.readlink(link) == "/sys/kernel/debug/gcov%s/init/main.gcda" % out
    assert not os.path.exists(os.path.join(out, "main.c.gcov"))
    assert kbuild.complete_state(out) == state("b") and kbuild.as_built(out)
    # a gcov_links that fails: the build is used, but never kept
    (src / "Makefile").write_text("gcov_links:\n\tfalse\n")
    os.remove(link)
    os.symlink("/elsewhere/main.gcda", link)
    kbuild.finish_build(work, str(src), out, "lab", state("c"), changed=True)
    assert kbuild.complete_state(out) == state("c") and not kbuild.as_built(out)
    assert kbuild.restore_or_keep(work, out, state("d")) is False
    assert kept(work, out) == []


# --- a build directory in use is not changed under the user ----------------

HOLD = """
import sys
sys.path.insert(0, %r)
from gcovlablib.util import Lock
with Lock(sys.argv[1], "x", shared=True):
    print("held", flush=True)
    sys.stdin.readline()
"""


def hold_shared(path):
    """Another process reading the build directory (a boot, say), until
    release() is called."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD % os.path.join(
        os.path.dirname(__file__), "..", "..", "vm"), path],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "held\n"
    return proc


def release(proc):
    proc.stdin.write("done\n")
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


WAITING = "waiting for another gcovlab command that is using build/lab (a module " \
    "build, a boot or a report against it)"


def test_a_change_waits_for_a_command_that_uses_the_directory(setup, capsys):
    work, _out = setup
    reader = hold_shared(kbuild.use_lock(work, "lab"))
    entered = threading.Event()

    def change():
        with kbuild.changing(work, "lab"):
            entered.set()

    changer = threading.Thread(target=change)
    changer.start()
    # The changer says it waits (its non-blocking try failed), and does
    # not go in for as long as the reader holds the directory.
    said = ""
    deadline = time.monotonic() + 60
    while WAITING not in said and time.monotonic() < deadline:
        said += capsys.readouterr().out
        time.sleep(0.01)
    assert WAITING in said, said
    assert not entered.is_set()
    release(reader)
    changer.join(timeout=60)
    assert entered.is_set()


def test_readers_do_not_wait_for_each_other(setup, capsys):
    work, _out = setup
    reader = hold_shared(kbuild.use_lock(work, "lab"))
    try:
        with Lock(kbuild.use_lock(work, "lab"), "x", shared=True):
            # the non-blocking try succeeded: nothing was waited for
            assert "waiting" not in capsys.readouterr().out
    finally:
        release(reader)


def fake_builder(work, out, states):
    """build_kernel as a stand-in: builds "a"; after build number i,
    another command puts states[i] in the directory (None: nobody)."""
    calls = []

    def build_kernel(_work, _config):
        fake_build(out, state("a"))
        other = states[len(calls)] if len(calls) < len(states) else None
        calls.append(other)
        if other:
            fake_build(out, state(other))
        return state("a")
    return build_kernel, calls


def test_a_state_changed_before_the_directory_is_held_is_built_again(setup, monkeypatch,
                                                                      capsys):
    work, out = setup
    build_kernel, calls = fake_builder(work, out, ["b"])
    monkeypatch.setattr(kbuild, "build_kernel", build_kernel)
    with kbuild.built(work, "lab"):
        assert kbuild.complete_state(out) == state("a")
    assert len(calls) == 2
    assert "another gcovlab command changed build/lab meanwhile" in capsys.readouterr().out


def test_a_directory_changed_again_and_again_is_an_error(setup, monkeypatch):
    work, out = setup
    build_kernel, calls = fake_builder(work, out, ["b", "c", "d", "e"])
    monkeypatch.setattr(kbuild, "build_kernel", build_kernel)
    with pytest.raises(GcovlabError, match="keeps changing build/lab"):
        with kbuild.built(work, "lab"):
            raise AssertionError("the block ran on another state")
    assert len(calls) == 3


def test_a_build_without_a_stamp_is_used_as_it_is(setup, monkeypatch):
    # the tree changed while make ran: no stamp, and the run goes on with
    # what was built, as before (the next build runs make again)
    work, out = setup
    calls = []
    monkeypatch.setattr(kbuild, "build_kernel", lambda w, c: calls.append(c))
    ran = []
    with kbuild.built(work, "lab"):
        ran.append(True)
    assert ran == [True] and calls == ["lab"]


def test_two_commits_of_the_same_files_are_one_state(tmp_path):
    # a student's git am of a patch and the tool's lab-N commit of it
    # differ in dates and ids, not in files: one kept build serves both
    from gcovlablib import tree as treemod
    repo = tmp_path / "linux"
    repo.mkdir()

    def git(*args, date="2026-01-01T00:00:00"):
        env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date,
                   GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@x", GIT_COMMITTER_NAME="a",
                   GIT_COMMITTER_EMAIL="a@x")
        return subprocess.run(["git", "-C", str(repo)] + list(args), env=env, check=True,
                              capture_output=True, text=True).stdout.strip()
    git("init", "-q", "-b", "baseline")
    (repo / "main.c").write_text("int x;\n")
    git("add", "main.c")
    git("commit", "-q", "-m", "baseline")
    (repo / "main.c").write_text("int x = 1;\n")
    git("commit", "-q", "-a", "-m", "the tool's commit")
    work = FakeWork(tmp_path)
    work.tree = str(repo)
    tool = treemod.source_state(work, "lab")
    git("switch", "-q", "-c", "student", "HEAD~1")
    (repo / "main.c").write_text("int x = 1;\n")
    git("commit", "-q", "-a", "-m", "the student's commit", date="2026-06-01T00:00:00")
    assert git("rev-parse", "HEAD") != git("rev-parse", "baseline")
    assert treemod.source_state(work, "lab") == tool
    assert tool.endswith(CLEAN)
    # an uncommitted edit is another state
    (repo / "main.c").write_text("int x = 2;\n")
    assert treemod.source_state(work, "lab") != tool
