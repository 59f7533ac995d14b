#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compile a lab kernel into ccache ahead of time, without moving the
kernel tree: configuration CONFIG at the state of Lab LAB (the baseline
plus the lab's patches, as 'vm/gcovlab lab LAB' makes it).

The objects must be compiled at the paths the real build will use
(WORK/linux, WORK/build/CONFIG): the compiler writes them into the
objects (the .gcda name of a profiled object, the .gcno's source names),
so ccache keys its entries on them.  So the state is checked out in a
worktree of its own, WORK/warm/linux, and built in a private mount
namespace (unshare(1); root, or an unprivileged user namespace) in which
that worktree is mounted over WORK/linux and WORK/warm/build over
WORK/build/CONFIG.  Nobody else sees those mounts: the tests go on
moving the real tree meanwhile.  The later build of build/CONFIG at
that state takes every object from the cache, profiled ones included.

The test suite runs it in the background, niced (tests/conftest.py,
PREBUILD_FOR): the lab kernels of Labs 9 and 10 (lab-all, lab-smp) are
compiled on the core the single-CPU guests leave idle, instead of in
front of their pages.  A build of the same configuration that starts
meanwhile stops it (vm/gcovlablib/kbuild.py, stop_warm_up): what it
compiled so far is in the cache.

Nothing is done when build/CONFIG already has a kernel (it is then built
incrementally), when the same state was warmed before, or when this
machine allows no mount namespace (said, exit status 0).  The worktree
is removed afterwards (1.3 GB); the cache keeps the objects.

usage: tools/warm_ccache.py CONFIG LAB
"""

import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vm"))
from gcovlablib import kbuild, labs  # noqa: E402
from gcovlablib import tree as treemod  # noqa: E402
from gcovlablib.util import GcovlabError, Lock, Step, probe, say  # noqa: E402
from gcovlablib.work import Work  # noqa: E402

ME = os.path.abspath(__file__)


def unshare():
    """The unshare(1) command that gives a private mount namespace here, or
    None (a container without CAP_SYS_ADMIN and without user namespaces)."""
    base = ["unshare", "--mount", "--propagation", "private"]
    for cmd in ([base] if os.geteuid() == 0 else []) + [base + ["--map-root-user"]]:
        try:
            if subprocess.run(cmd + ["true"], capture_output=True).returncode == 0:
                return cmd
        except FileNotFoundError:
            return None
    return None


def warm(config, number):
    work = Work()
    if config.startswith("mainline") or config not in kbuild.CONFIGS:
        raise GcovlabError("%r is not a lab configuration (one of %s)" % (
            config, ", ".join(c for c in kbuild.CONFIGS if not c.startswith("mainline"))))
    if not treemod.is_ours(work.tree):
        raise GcovlabError("no kernel tree in %s yet: run vm/gcovlab tree" % work.tree)
    patches = labs.patches(number)
    if not patches:
        raise GcovlabError("Lab %d has no patches: its kernel is built as it is" % number)
    real = os.path.join(work.root, "build", config)
    if os.path.exists(os.path.join(real, "arch/x86/boot/bzImage")):
        say("warm_ccache: build/%s already has a kernel; nothing to do" % config)
        return
    cmd = unshare()
    if cmd is None:
        say("warm_ccache: no private mount namespace on this machine (unshare --mount "
            "failed as root and with --map-root-user); the %s kernel will compile "
            "in front of its test instead" % config)
        return
    root = os.path.join(work.root, "warm")
    key = "%s %s" % (config, treemod.series_key(patches))
    done = os.path.join(root, "done-%s" % config)
    with Lock(os.path.join(work.root, "locks", "warm"), "using WORK/warm"), \
            Lock(kbuild.warm_lock(work, config), "filling ccache for %s" % config):
        with open(kbuild.warm_lock(work, config) + ".pid", "w", encoding="utf-8") as f:
            f.write("%d\n" % os.getpid())
        try:
            with open(done, encoding="utf-8") as f:
                if f.read().strip() == key:
                    say("warm_ccache: %s at Lab %d is in the cache already" % (config, number))
                    return
        except OSError:
            pass
        src = os.path.join(root, "linux")
        try:
            checkout(work, src, patches)
            for d in (os.path.join(root, "build"), os.path.join(root, "real"), real):
                os.makedirs(d, exist_ok=True)
            inner = subprocess.Popen(cmd + [sys.executable, ME, "--inside", config],
                                     process_group=0)

            def stop(*_):
                os.killpg(inner.pid, signal.SIGTERM)
                sys.exit(143)
            signal.signal(signal.SIGTERM, stop)
            signal.signal(signal.SIGINT, stop)
            inner.wait()
            if inner.returncode == 0:
                with open(done, "w", encoding="utf-8") as f:
                    f.write(key + "\n")
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            remove_worktree(work, src)
            shutil.rmtree(os.path.join(root, "build"), ignore_errors=True)


def checkout(work, src, patches):
    """WORK/warm/linux: a detached worktree at the baseline plus PATCHES,
    committed as vm/gcovlab commits a lab branch (the same committer and
    date, so the same commit), whose .git names the real repository by
    the path the namespace shows it at (WORK/warm/real)."""
    remove_worktree(work, src)
    os.makedirs(os.path.dirname(src), exist_ok=True)
    with Step("checking out the baseline + %d patches in %s" % (len(patches), src)):
        treemod.git(work.tree, "-c", "checkout.workers=0", "worktree", "add", "--quiet",
                    "--detach", src, treemod.TAG_BASELINE)
        env = treemod.git_env(date=treemod.git(work.tree, "log", "-1", "--format=%cI",
                                               treemod.TAG_BASELINE).strip())
        for var in ("GIT_AUTHOR_DATE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"):
            env.pop(var)
        treemod.git(src, "am", "--quiet", *patches, env=env)
    dotgit = os.path.join(src, ".git")
    with open(dotgit, encoding="utf-8") as f:
        text = f.read()
    real_git = os.path.join(work.tree, ".git") + "/"
    if real_git not in text:
        raise GcovlabError("unexpected worktree link in %s: %s" % (dotgit, text.strip()))
    with open(dotgit, "w", encoding="utf-8") as f:
        f.write(text.replace(real_git, os.path.join(work.root, "warm", "real", ".git") + "/"))


def remove_worktree(work, path):
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    # the worktree's entry goes once its directory is gone (also one left
    # locked by a checkout cut short)
    for name in os.listdir(os.path.join(work.tree, ".git", "worktrees")) \
            if os.path.isdir(os.path.join(work.tree, ".git", "worktrees")) else []:
        admin = os.path.join(work.tree, ".git", "worktrees", name)
        try:
            with open(os.path.join(admin, "gitdir"), encoding="utf-8") as f:
                if f.read().strip() == os.path.join(path, ".git"):
                    shutil.rmtree(admin, ignore_errors=True)
        except OSError:
            pass
    probe(["git", "-C", work.tree, "worktree", "prune"])


def inside(config):
    """In the private mount namespace: the state over WORK/linux, the
    scratch build directory over WORK/build/CONFIG, then configure and
    make as vm/gcovlab would (make -k: Lab 9's kernel does not link, and
    everything that compiles is wanted)."""
    work = Work()
    root = os.path.join(work.root, "warm")
    real = os.path.join(work.root, "build", config)
    for what, where in ((work.tree, os.path.join(root, "real")),
                        (os.path.join(root, "linux"), work.tree),
                        (os.path.join(root, "build"), real)):
        subprocess.run(["mount", "--bind", what, where], check=True)
    kbuild.configure(work, config, real)
    try:
        took, compiled = kbuild.make_all(work, work.tree, real, config,
                                         os.path.join(root, "build-%s.log" % config),
                                         keep_going=True)
        say("warm_ccache: %s compiled in %d s (%d files); in the cache now" % (
            config, took, compiled))
    except GcovlabError as e:
        say("warm_ccache: the %s kernel did not build to the end (%s); what "
            "compiled is in the cache" % (config, str(e).split("\n")[0]))


def main(argv):
    args = argv[1:]
    if args[:1] == ["--inside"] and len(args) == 2:
        inside(args[1])
        return 0
    if len(args) != 2 or not args[1].isdigit():
        print(__doc__.strip())
        return 0 if args in (["-h"], ["--help"]) else 2
    try:
        warm(args[0], int(args[1]))
    except GcovlabError as e:
        print("warm_ccache: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
