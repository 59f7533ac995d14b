# SPDX-License-Identifier: GPL-2.0
"""The kernel tree: pristine and baseline commits, git sees the kernel,
re-running is a no-op, a student's uncommitted work is never touched, and
the baseline kernel builds and boots."""

import os
import subprocess
import tarfile

from conftest import DRIVER, gcovlab, ok


def git(tree, *args):
    return subprocess.run(["git", "-C", tree] + list(args), text=True,
                          capture_output=True, check=True).stdout


def test_two_tagged_commits(tree):
    log = git(tree, "log", "--format=%s", "gcovlab-baseline")
    subjects = log.strip().split("\n")
    assert len(subjects) == 2
    assert subjects[0].startswith("baseline: remove mainline's gcov support")
    assert subjects[1].startswith("Linux 6.1.")
    assert git(tree, "rev-parse", "gcovlab-baseline~1") == git(tree, "rev-parse", "gcovlab-pristine")


def test_baseline_removes_mainline_gcov(tree):
    assert git(tree, "ls-tree", "gcovlab-pristine", "kernel/gcov/")
    assert not git(tree, "ls-tree", "gcovlab-baseline", "kernel/gcov/")
    changed = set(git(tree, "diff", "--name-only", "gcovlab-pristine", "gcovlab-baseline").split())
    for path in ("arch/Kconfig", "kernel/Makefile", "scripts/Makefile.lib", "Makefile",
                 "MAINTAINERS", "Documentation/dev-tools/gcov.rst",
                 "Documentation/admin-guide/kernel-parameters.txt"):
        assert path in changed, path
    # Nothing outside the list in docs/architecture.rst ("The baseline
    # tree") is touched.
    assert all(p.startswith(("kernel/gcov/", "Documentation/", "arch/Kconfig", "kernel/Makefile",
                             "scripts/Makefile.lib", "Makefile", "MAINTAINERS"))
               for p in changed), changed
    for rel, gone in (("arch/Kconfig", 'source "kernel/gcov/Kconfig"'),
                      ("kernel/Makefile", "CONFIG_GCOV_KERNEL"),
                      ("scripts/Makefile.lib", "GCOV_PROFILE_$(basetarget)"),
                      ("Makefile", "CFLAGS_GCOV"),
                      ("MAINTAINERS", "GCOV BASED KERNEL PROFILING"),
                      ("Documentation/admin-guide/kernel-parameters.txt", "gcov_persist=")):
        text = git(tree, "show", "gcovlab-baseline:" + rel)
        assert gone not in text, (rel, gone)
    # Shared infrastructure stays.
    assert "config CONSTRUCTORS" in git(tree, "show", "gcovlab-baseline:init/Kconfig")
    assert "seq_write(" in git(tree, "show", "gcovlab-baseline:fs/seq_file.c")


def test_git_sees_the_kernel_and_new_files(tree):
    assert int(git(tree, "ls-files", "--", "init").count("\n")) > 10
    ignore = git(tree, "show", "gcovlab-pristine:.gitignore")
    assert "/*\n" not in ignore and "!/debian/" not in ignore
    msg = git(tree, "log", "-1", "--format=%B", "gcovlab-pristine")
    assert ".gitignore" in msg
    new = os.path.join(tree, "kernel", "gcovlab_test_new_file.c")
    with open(new, "w") as f:
        f.write("/* new */\n")
    try:
        assert "?? kernel/gcovlab_test_new_file.c" in git(tree, "status", "--porcelain")
    finally:
        os.remove(new)


def test_rerun_is_a_noop(tree):
    head = git(tree, "rev-parse", "HEAD")
    proc = ok(gcovlab("tree"))
    assert "nothing to do" in proc.stdout
    assert git(tree, "rev-parse", "HEAD") == head


def test_dirty_tree_is_refused_and_left_untouched(tree):
    start = git(tree, "symbolic-ref", "--short", "HEAD").strip()
    main_c = os.path.join(tree, "init", "main.c")
    new = os.path.join(tree, "drivers", "gcovlab_student_file.c")
    git(tree, "switch", "--quiet", "-c", "student-test")
    try:
        with open(main_c, "a") as f:
            f.write("/* student edit */\n")
        with open(new, "w") as f:
            f.write("/* student's new file */\n")
        proc = gcovlab("lab", "0")
        assert proc.returncode == 125, proc.stderr
        assert "not switching" in proc.stderr
        assert "M init/main.c" in proc.stderr
        assert "drivers/gcovlab_student_file.c" in proc.stderr
        assert "git -C %s stash push --include-untracked" % tree in proc.stderr
        # Untouched: same branch, edit and new file still there.
        assert git(tree, "symbolic-ref", "--short", "HEAD").strip() == "student-test"
        with open(main_c) as f:
            assert f.read().endswith("/* student edit */\n")
        with open(new) as f:
            assert f.read() == "/* student's new file */\n"
        # Removing the work directory is refused too while work is in it.
        proc = gcovlab("clean", "--all")
        assert proc.returncode == 125 and "student-test" in proc.stderr
        assert os.path.isdir(tree)
    finally:
        git(tree, "checkout", "--quiet", "--", "init/main.c")
        if os.path.exists(new):
            os.remove(new)
        git(tree, "switch", "--quiet", start)
        git(tree, "branch", "--quiet", "-D", "student-test")


def test_clean_tree_switches_to_baseline(tree):
    git(tree, "switch", "--quiet", "-c", "student-clean")
    try:
        proc = ok(gcovlab("lab", "0"))
        assert "now on branch baseline" in proc.stdout
        assert "mainline" in proc.stdout
    finally:
        git(tree, "switch", "--quiet", "baseline")
        git(tree, "branch", "--quiet", "-D", "student-clean")


def fake_tarball(path, version, patchlevel):
    src = path.parent / "src" / ("linux-%s.%s" % (version, patchlevel))
    src.mkdir(parents=True)
    (src / "Makefile").write_text("VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = 0\n"
                                  % (version, patchlevel))
    with tarfile.open(path, "w:xz") as t:
        t.add(src, arcname=src.name)


def test_tarball_that_is_not_61_is_refused(tmp_path):
    tarball = tmp_path / "linux-source-5.10.tar.xz"
    fake_tarball(tarball, 5, 10)
    work = tmp_path / "work"
    proc = gcovlab("tree", env={"GCOVLAB_WORK": str(work), "GCOVLAB_TARBALL": str(tarball)})
    assert proc.returncode == 125
    assert "holds Linux 5.10.0, not 6.1" in proc.stderr
    assert not (work / "linux").exists() and not (work / "linux.partial").exists()


def test_missing_tarball_says_what_to_install(tmp_path):
    proc = gcovlab("tree", env={"GCOVLAB_WORK": str(tmp_path / "w"),
                                "GCOVLAB_TARBALL": str(tmp_path / "none.tar.xz")})
    assert proc.returncode == 125 and "apt-get install linux-source-6.1" in proc.stderr


def test_foreign_directory_is_not_taken_over(tmp_path):
    (tmp_path / "linux").mkdir()
    (tmp_path / "linux" / "mine.txt").write_text("keep me")
    proc = gcovlab("tree", env={"GCOVLAB_WORK": str(tmp_path)})
    assert proc.returncode == 125 and "not a kernel tree made by gcovlab" in proc.stderr
    assert (tmp_path / "linux" / "mine.txt").read_text() == "keep me"


def test_baseline_builds_and_boots(tree, lab_kernel, tmp_path):
    assert git(tree, "symbolic-ref", "--short", "HEAD").strip() == "baseline"
    assert os.path.isfile(os.path.join(lab_kernel, "arch/x86/boot/bzImage"))
    proc = ok(gcovlab("boot", "--tree", "--out", tmp_path / "boot"))
    assert "this kernel has no debugfs gcov/ directory" in proc.stdout
    with open(tmp_path / "boot" / "console.log") as f:
        console = f.read()
    assert "Linux version 6.1." in console and "Run /init as init process" in console
    assert (tmp_path / "boot" / "status").read_text() == "0\n"


def test_run_on_the_baseline_says_there_is_no_coverage_yet(lab_kernel, tmp_path):
    # (from tests/test_e2e.py, which make check runs beside the tests that
    # move the tree: this one needs it on baseline)
    out = tmp_path / "baseline"
    proc = gcovlab("run", "--tree", "--module", DRIVER,
                   "--workload", os.path.join(DRIVER, "workload-basic.sh"), "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "depth 1: 20" in proc.stdout          # the workload ran
    assert "(GCOV=y)" in proc.stdout             # the seed's variable, inert here
    assert "no .gcda came back, as expected" in proc.stdout
    assert "has no debugfs gcov export yet" in proc.stdout
    assert (out / "console.log").exists() and not (out / "lcov.info").exists()
    assert (out / "workload.log").read_text().count("depth 1: 20") == 1


def test_pristine_holds_every_file_of_the_tarball(tree):
    tarball = os.environ.get("GCOVLAB_TARBALL", "/usr/src/linux-source-6.1.tar.xz")
    listing = subprocess.run(["tar", "-tf", tarball], text=True, capture_output=True,
                             check=True).stdout.split("\n")
    in_tar = {n.split("/", 1)[1] for n in listing if "/" in n and not n.endswith("/")}
    in_tar.discard("")
    tracked = set(git(tree, "ls-tree", "-r", "--name-only", "gcovlab-pristine").split("\n"))
    tracked.discard("")
    assert in_tar - tracked == set()
    assert tracked - in_tar == set()


def test_deleted_baseline_branch_is_made_again(tree):
    git(tree, "switch", "--quiet", "-c", "student-elsewhere")
    try:
        git(tree, "branch", "--quiet", "-D", "baseline")
        proc = ok(gcovlab("lab", "0"))
        assert "making it again from tag gcovlab-baseline" in proc.stdout
        assert git(tree, "rev-parse", "baseline") == git(tree, "rev-parse", "gcovlab-baseline")
    finally:
        if subprocess.run(["git", "-C", tree, "rev-parse", "--verify", "--quiet",
                           "refs/heads/baseline"], capture_output=True).returncode:
            git(tree, "branch", "baseline", "gcovlab-baseline")
        git(tree, "switch", "--quiet", "baseline")
        git(tree, "branch", "--quiet", "-D", "student-elsewhere")
