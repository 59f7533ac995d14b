#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fill ccache with a lab kernel's objects ahead of time, without moving the
kernel tree: build configuration CONFIG of the tree at REF (a branch or
commit of the work directory's kernel tree) in a detached worktree,
warm/linux, with its build directory warm/build/CONFIG.

The layout is the work directory's own (linux/ and build/CONFIG), and
gcovlab hashes the paths below the work directory relative to the build
directory (CCACHE_BASEDIR, vm/gcovlablib/kbuild.py): when the tests later
build build/CONFIG at the same state, every object that is not profiled
comes from the cache.  Profiled objects are compiled again (ccache hashes
their output path, which names their .gcda file).

The test suite runs this in the background, niced, while the tests that
move the tree run in front (tests/conftest.py, start_prebuild): Lab 10's
SMP kernel, 905 objects, compiled on the core the single-CPU guests leave
idle instead of in front of Lab 10's page.

Nothing is done when build/CONFIG already has a kernel (it is then built
incrementally, and the cache has what it needs), or when the warm build of
REF is already done.  The worktree is removed afterwards (1.3 GB); the
cache keeps the objects.

usage: tools/warm_ccache.py CONFIG REF
"""

import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vm"))
from gcovlablib import kbuild  # noqa: E402
from gcovlablib.tree import git  # noqa: E402
from gcovlablib.util import GcovlabError, Lock, Step, probe, say  # noqa: E402
from gcovlablib.work import Work  # noqa: E402


def warm(config, ref):
    work = Work()
    if config.startswith("mainline") or config not in kbuild.CONFIGS:
        raise GcovlabError("%r is not a lab configuration (one of %s)" % (
            config, ", ".join(c for c in kbuild.CONFIGS if not c.startswith("mainline"))))
    if not os.path.isdir(os.path.join(work.tree, ".git")):
        raise GcovlabError("no kernel tree in %s yet: run vm/gcovlab tree" % work.tree)
    commit = probe(["git", "-C", work.tree, "rev-parse", "--verify", "-q", ref + "^{commit}"])
    if commit.returncode != 0:
        raise GcovlabError("the kernel tree has no branch or commit %r" % ref)
    commit = commit.stdout.strip()
    # build/CONFIG, or build/CONFIG-baseline for a state without the
    # series' Kconfig option (Work.build_dir): named for REF, not for
    # what the tree has checked out now.
    series = probe(["git", "-C", work.tree, "grep", "-q", "-E", "^config GCOV_PROFILE$",
                    commit, "--", "*Kconfig*"]).returncode == 0
    name = config if series else config + "-baseline"
    if os.path.exists(os.path.join(work.root, "build", name, "arch/x86/boot/bzImage")):
        say("warm_ccache: build/%s already has a kernel; nothing to do" % name)
        return
    root = os.path.join(work.root, "warm")
    with Lock(kbuild.warm_lock(work, config), "filling ccache from warm/ for %s" % config):
        wwork = Work(root)
        wwork.ccache, wwork.tarball = work.ccache, work.tarball
        done = os.path.join(root, "done-%s" % config)
        try:
            with open(done, encoding="utf-8") as f:
                if f.read().strip() == commit:
                    say("warm_ccache: %s at %s is in the cache already" % (config, ref))
                    return
        except OSError:
            pass
        try:
            with Step("checking out %s (%s) in %s" % (ref, commit[:12], wwork.tree)):
                remove_worktree(work, wwork.tree)
                os.makedirs(root, exist_ok=True)
                git(work.tree, "-c", "checkout.workers=0", "worktree", "add", "--quiet",
                    "--detach", wwork.tree, commit)
            out = wwork.build_dir(config)
            kbuild.configure(wwork, config, out)
            took, compiled = kbuild.make_all(wwork, wwork.tree, out, config,
                                             os.path.join(root, "build-%s.log" % config))
            with open(done, "w", encoding="utf-8") as f:
                f.write(commit + "\n")
            say("warm_ccache: %s at %s compiled in %d s (%d files); now in the cache" % (
                config, ref, took, compiled))
        finally:
            remove_worktree(work, wwork.tree)
            shutil.rmtree(os.path.join(root, "build"), ignore_errors=True)


def remove_worktree(work, path):
    if os.path.isdir(path):
        # twice: also a worktree left locked by a checkout cut short
        probe(["git", "-C", work.tree, "worktree", "remove", "--force", "--force", path])
        shutil.rmtree(path, ignore_errors=True)
    probe(["git", "-C", work.tree, "worktree", "prune"])


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv[1:] in (["-h"], ["--help"]) else 2
    # Stopped (the test suite stops its background builds at its end): the
    # worktree goes all the same.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        warm(argv[1], argv[2])
    except GcovlabError as e:
        print("warm_ccache: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
