# SPDX-License-Identifier: GPL-2.0
"""The kernel tree: extracted from the Debian tarball, kept as a git repo.

Two commits, each tagged:
  gcovlab-pristine  the tarball as Debian ships it, except for the two
                    Debian-packaging lines of the top-level .gitignore
                    (see fix_gitignore)
  gcovlab-baseline  mainline's gcov support removed (see baseline.py)
The branch "baseline" is checked out; lab branches come with the series.
Branches other than the tool's are the student's and are never touched.
"""

import hashlib
import json
import os
import re
import shutil
import time

from . import baseline
from .config import Config
from .work import REPO
from .util import GcovlabError, Lock, Step, output, probe, run, say, warn

TAG_PRISTINE = "gcovlab-pristine"
TAG_BASELINE = "gcovlab-baseline"
BRANCH_BASELINE = "baseline"

# Bumped whenever create() commits something different, so that a tree
# made by an older gcovlab is recognised (its commit ids differ from the
# ones the lab pages show).
TREE_FORMAT = 2
TOOL_BRANCH = re.compile(r"^(baseline|lab-\d+)$")

AUTHOR = "gcov-kernel-labs"
EMAIL = "maintainers@gcov-kernel-labs.invalid"

# The identity of a student's own commits in the tree when git has none
# (a fresh account: the pages' first "git commit" would fail and leave the
# tree dirty).  Set in the tree's repository only, and marked, so that it
# goes as soon as the student sets one of their own.
STUDENT_NAME = "gcov-kernel-labs student"
STUDENT_EMAIL = "student@gcov-kernel-labs.invalid"
IDENTITY_MARK = "gcovlab.identity"

# The end of the Debian tarball's top-level .gitignore.  "/*" ignores every
# top-level entry of the kernel tree, so "git add -A" would commit nothing
# and a student's new files would never show in "git status".
DEBIAN_IGNORE = ("#\n"
                 "# Debian packaging: ignore everything at the top level, since it isn't\n"
                 "# included in our repository\n"
                 "#\n"
                 "/*\n"
                 "!/debian/\n")


def git_env(date=None):
    env = dict(os.environ)
    env.update(GIT_AUTHOR_NAME=AUTHOR, GIT_AUTHOR_EMAIL=EMAIL,
               GIT_COMMITTER_NAME=AUTHOR, GIT_COMMITTER_EMAIL=EMAIL)
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return env


def am_env(tree, base):
    """The environment of the tool's git am on top of the tag BASE: the
    tool as committer, at BASE's commit date, so that the commits have the
    same ids on every machine; git am keeps each patch's own author and
    date."""
    env = git_env(date=git(tree, "log", "-1", "--format=%cI", base).strip())
    for name in ("GIT_AUTHOR_DATE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"):
        env.pop(name)
    return env


def git(tree, *args, capture=True, env=None):
    cmd = ["git", "-C", tree] + list(args)
    if capture:
        return output(cmd, env=env)
    return run(cmd, env=env, what="git " + args[0])


def kernel_version(tree):
    """Return 'VERSION.PATCHLEVEL.SUBLEVEL' from a tree's Makefile."""
    fields = {}
    try:
        with open(os.path.join(tree, "Makefile"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)\s*$", line)
                if m:
                    fields[m.group(1)] = m.group(2)
                if len(fields) == 3:
                    break
    except OSError:
        pass
    if len(fields) != 3:
        return None
    return "%s.%s.%s" % (fields["VERSION"], fields["PATCHLEVEL"], fields["SUBLEVEL"])


def fix_gitignore(tree):
    """Drop the Debian packaging lines so git tracks and sees the kernel."""
    path = os.path.join(tree, ".gitignore")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if DEBIAN_IGNORE not in text:
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(DEBIAN_IGNORE, "", 1).rstrip("\n") + "\n")
    return True


def is_ours(tree):
    if not os.path.isdir(os.path.join(tree, ".git")):
        return False
    tags = probe(["git", "-C", tree, "tag", "--list", "gcovlab-*"]).stdout.split()
    return TAG_PRISTINE in tags and TAG_BASELINE in tags


def info_path(work):
    return os.path.join(work.root, "tree.json")


def read_info(work):
    try:
        with open(info_path(work), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def tarball_id(path):
    st = os.stat(path)
    return {"tarball": path, "size": st.st_size, "mtime": int(st.st_mtime)}


def ensure(work):
    """Create the tree if it is missing; otherwise check it and do nothing."""
    with Lock(os.path.join(work.root, "locks", "tree"), "making the kernel tree"):
        return _ensure(work)


def _ensure(work):
    if os.path.exists(work.tree):
        if not is_ours(work.tree):
            raise GcovlabError(
                "%s exists but is not a kernel tree made by gcovlab (no %s and "
                "%s tags).  Move it away, or set GCOVLAB_WORK to another "
                "directory, and run 'vm/gcovlab tree' again." %
                (work.tree, TAG_PRISTINE, TAG_BASELINE))
        if config_get(work.tree, "core.untrackedCache") != "false":
            git(work.tree, "config", "core.untrackedCache", "false")
        info = read_info(work)
        say("kernel tree ready: Linux %s at %s (nothing to do)" %
            (info.get("version", kernel_version(work.tree)), work.tree))
        student_identity(work.tree)
        if info.get("format") != TREE_FORMAT:
            warn("this tree was made by an older gcovlab: it works, but its commit "
                 "ids differ from the ones the lab pages show.  To remake it, keep "
                 "your branches elsewhere (git format-patch) and run "
                 "'vm/gcovlab clean --all' then 'vm/gcovlab tree'.")
        if os.path.exists(work.tarball) and info.get("size") and \
                tarball_id(work.tarball)["size"] != info.get("size"):
            warn("%s has changed since the tree was made from it; the tree "
                 "stays as it is.  To start again from the new tarball, keep "
                 "your branches elsewhere and run 'vm/gcovlab clean --all'."
                 % work.tarball)
        return False
    create(work)
    return True


def create(work):
    tarball = work.tarball
    if not os.path.isfile(tarball):
        raise GcovlabError("%s not found: install Debian's kernel source with "
                           "'sudo apt-get install linux-source-6.1' (./setup.sh "
                           "does this)" % tarball)
    os.makedirs(work.root, exist_ok=True)
    partial = work.tree + ".partial"
    if os.path.exists(partial):
        say("removing %s, left by an interrupted run" % partial)
        shutil.rmtree(partial)
    os.makedirs(partial)

    with Step("extracting %s" % tarball):
        run(["tar", "-xf", tarball, "-C", partial, "--strip-components=1"],
            what="tar")
    version = kernel_version(partial)
    if not version or not version.startswith("6.1."):
        shutil.rmtree(partial)
        raise GcovlabError(
            "%s holds Linux %s, not 6.1: the series is written for Debian 12's "
            "linux-source-6.1.  Install it (apt-get install linux-source-6.1) "
            "or point GCOVLAB_TARBALL at its tarball." % (tarball, version or "(no version found)"))

    with Step("committing the pristine tree to git (about 80,000 files)"):
        fixed = fix_gitignore(partial)
        git(partial, "init", "--quiet", "--initial-branch", BRANCH_BASELINE)
        git(partial, "config", "feature.manyFiles", "true")
        git(partial, "config", "core.untrackedCache", "false")
        git(partial, "config", "gc.auto", "0")
        git(partial, "add", "--all")
        # The tree's own ignore rules hide some files the tarball ships
        # (Debian's .gitignore lacks mainline's "!.gitignore"-style
        # exceptions): add those by name, so the commit is the tarball.
        hidden = [p for p in git(partial, "ls-files", "-z", "--others", "--ignored",
                                 "--exclude-standard").split("\0") if p]
        for i in range(0, len(hidden), 500):
            git(partial, "add", "--force", "--", *hidden[i:i + 500])
        date = time.strftime("%Y-%m-%dT%H:%M:%S+0000",
                             time.gmtime(os.stat(tarball).st_mtime))
        msg = ("Linux %s as Debian's linux-source-6.1 ships it\n\n"
               "Extracted from %s.\n" % (version, os.path.basename(tarball)))
        if fixed:
            msg += ("\nOne change from the tarball: the top-level .gitignore ended in\n"
                    "Debian packaging lines ('/*' and '!/debian/') that ignore every\n"
                    "top-level entry of the kernel tree.  With them, git would track\n"
                    "nothing and new files would never show in 'git status'; they are\n"
                    "removed here.  Everything else is the tarball's content.\n")
        if hidden:
            msg += ("\n%d files of the tarball match the tree's own ignore rules (the\n"
                    "%d .gitignore files, dotfiles such as .clang-format and .mailmap,\n"
                    "and others); they were added by name so that this commit holds\n"
                    "every file of the tarball:\n\n" % (
                        len(hidden), sum(p.endswith(".gitignore") for p in hidden)))
            msg += "".join("  %s\n" % p for p in hidden if not p.endswith(".gitignore"))
        git(partial, "commit", "--quiet", "--no-verify", "-m", msg, env=git_env(date))
        git(partial, "tag", TAG_PRISTINE)

    with Step("making the baseline (mainline gcov removed)"):
        baseline.apply(partial)
        git(partial, "add", "--all")
        msg = ("baseline: remove mainline's gcov support\n\n"
               "Linux 6.1 already has the descendant of the 2008 gcov series.  The\n"
               "labs rebuild it, so this commit takes out what the series adds\n"
               "again and keeps the shared infrastructure other code uses\n"
               "(CONFIG_CONSTRUCTORS, seq_write(), mainline's GCOV_PROFILE := n\n"
               "lines, which are inert here).\n\n" + baseline.describe() + "\n")
        git(partial, "commit", "--quiet", "--no-verify", "-m", msg, env=git_env(date))
        git(partial, "tag", TAG_BASELINE)

    os.rename(partial, work.tree)
    info = tarball_id(tarball)
    info["version"] = version
    info["format"] = TREE_FORMAT
    with open(info_path(work), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
    say("kernel tree ready: Linux %s at %s, branch %s" % (version, work.tree, BRANCH_BASELINE))
    student_identity(work.tree)


def has_identity(scope):
    """Whether git's configuration file SCOPE (--global, --system) names
    both user.name and user.email."""
    return all(probe(["git", "config", scope, "--get", key]).stdout.strip()
               for key in ("user.name", "user.email"))


def student_identity(tree):
    """Give the tree's repository an identity for the student's commits
    when git has none, and take it away once the account that needed it
    has one of its own (in ~/.gitconfig or /etc/gitconfig): a local one
    would hide it.  The mark names that account's HOME, so that another
    account using the same work directory (an instructor's, a test
    runner's) never takes it away under the student's feet."""
    home = os.path.expanduser("~")
    mark = config_get(tree, IDENTITY_MARK)
    outside = has_identity("--global") or has_identity("--system")
    if mark and mark.startswith("auto"):
        if mark == "auto " + home and outside:
            for key in ("user.name", "user.email", IDENTITY_MARK):
                git(tree, "config", "--unset", key)
            say("your commits in the kernel tree now use your own git identity "
                "(git config --global); gcovlab's stand-in for it is gone")
    elif not (config_get(tree, "user.name") and config_get(tree, "user.email")):
        git(tree, "config", "user.name", STUDENT_NAME)
        git(tree, "config", "user.email", STUDENT_EMAIL)
        git(tree, "config", IDENTITY_MARK, "auto " + home)
        say("git has no identity for your commits: the kernel tree's own "
            "repository uses '%s <%s>' until you set yours (git config --global "
            "user.name 'Your Name'; git config --global user.email you@example.org)"
            % (STUDENT_NAME, STUDENT_EMAIL))


def changes(tree):
    """Uncommitted changes and untracked files, as 'git status --short' lines.

    Without the untracked cache: this git compares directory times in whole
    seconds, so a file created and removed within one second could still be
    reported (or a new one missed).  On this tree it costs nothing measurable.
    """
    out = git(tree, "-c", "core.untrackedCache=false", "status", "--porcelain=v1")
    return [line for line in out.split("\n") if line.strip()]


def refuse_if_dirty(tree, doing):
    lines = changes(tree)
    if not lines:
        return
    shown = lines[:20] + (["... and %d more" % (len(lines) - 20)] if len(lines) > 20 else [])
    raise GcovlabError(
        "not %s: the kernel tree %s has changes that are not committed:\n    %s\n"
        "gcovlab never resets or overwrites your work.  Keep it on a branch of "
        "your own:\n"
        "    git -C %s switch -c my-work && git -C %s add -A && git -C %s commit -m 'my work'\n"
        "or put it aside:  git -C %s stash push --include-untracked\n"
        "or, to drop it for good:  git -C %s reset --hard && git -C %s clean -fd\n"
        "Then run the command again." %
        (doing, tree, "\n    ".join(shown), tree, tree, tree, tree, tree, tree))


def current_branch(tree):
    out = probe(["git", "-C", tree, "symbolic-ref", "--short", "-q", "HEAD"]).stdout.strip()
    return out or None


def student_branches(tree):
    out = git(tree, "for-each-ref", "--format=%(refname:short)", "refs/heads/")
    return [b for b in out.split() if not TOOL_BRANCH.match(b)]


def checkout(tree, branch):
    """Move the tree to a tool-owned branch; refuses a dirty tree."""
    if current_branch(tree) == branch:
        say("kernel tree already on branch %s" % branch)
        return
    refuse_if_dirty(tree, "switching to %s" % branch)
    exists = branch_tip(tree, branch) is not None
    if not exists and branch == BRANCH_BASELINE:
        say("branch %s was deleted; making it again from tag %s" % (branch, TAG_BASELINE))
        git(tree, "branch", branch, TAG_BASELINE)
    git(tree, "checkout", "--quiet", branch, capture=False)
    say("kernel tree now on branch %s" % branch)


def ensure_mainline(work):
    """A read-only worktree of the pristine commit, for the mainline build.

    Two builds may ask at once (the test suite builds the mainline kernels
    in the background): the tree's lock makes one of them wait.  A checkout
    cut short (Ctrl-C) leaves no ready mark and is made again.
    """
    ready = os.path.join(work.root, "mainline.ready")
    if os.path.isdir(work.mainline) and os.path.exists(ready):
        return
    with Lock(os.path.join(work.root, "locks", "tree"), "checking out the mainline tree"):
        _ensure_mainline(work, ready)


def _ensure_mainline(work, ready):
    if os.path.isdir(work.mainline):
        if os.path.exists(ready):
            return
        # A work directory older than the mark, or a checkout cut short:
        # a complete one has every file of the commit and nothing else.
        status = probe(["git", "-C", work.mainline, "status", "--porcelain"])
        if status.returncode == 0 and not status.stdout.strip():
            with open(ready, "w", encoding="utf-8") as f:
                f.write(TAG_PRISTINE + "\n")
            return
        say("the mainline worktree %s is incomplete (a checkout cut short?); "
            "making it again" % work.mainline)
        run(["chmod", "-R", "u+w", work.mainline], what="chmod")
        shutil.rmtree(work.mainline)
    with Step("checking out the pristine tree for mainline builds at %s" % work.mainline):
        git(work.tree, "worktree", "prune")
        # checkout.workers=0: write the 78,000 files with one worker per core.
        git(work.tree, "-c", "checkout.workers=0", "worktree", "add", "--quiet",
            "--detach", work.mainline, TAG_PRISTINE, capture=False)
        # Read-only: mainline is the oracle, nobody edits it by accident.
        run(["chmod", "-R", "a-w", work.mainline], what="chmod")
    with open(ready, "w", encoding="utf-8") as f:
        f.write(TAG_PRISTINE + "\n")


FIX_DIR = os.path.join(REPO, "patches", "mainline-fix")


def fix_patches():
    """patches/mainline-fix/*.patch in order, without the cover letter."""
    names = sorted(n for n in os.listdir(FIX_DIR)
                   if n.endswith(".patch") and not n.startswith("0000-"))
    return [os.path.join(FIX_DIR, n) for n in names]


def ensure_fixed(work):
    """A read-only worktree of the pristine commit with mainline's fix
    (patches/mainline-fix/) applied by git am, made again when the patches
    change; its commits have fixed committer and dates, as lab branches."""
    patches = fix_patches()
    key = series_key(patches)
    ready = os.path.join(work.root, "mainline-fixed.ready")

    def made():
        try:
            with open(ready, encoding="utf-8") as f:
                return os.path.isdir(work.fixed) and f.read().strip() == key
        except OSError:
            return False
    if made():
        return
    with Lock(os.path.join(work.root, "locks", "tree"), "checking out mainline with its fix"):
        if made():
            return
        if os.path.exists(ready):
            os.remove(ready)
        if os.path.isdir(work.fixed):
            run(["chmod", "-R", "u+w", work.fixed], what="chmod")
            shutil.rmtree(work.fixed)
        with Step("checking out mainline with patches/mainline-fix (%d patch%s) at %s" % (
                len(patches), "" if len(patches) == 1 else "es", work.fixed)):
            git(work.tree, "worktree", "prune")
            git(work.tree, "-c", "checkout.workers=0", "worktree", "add", "--quiet",
                "--detach", work.fixed, TAG_PRISTINE, capture=False)
            env = am_env(work.tree, TAG_PRISTINE)
            for path in patches:
                r = probe(["git", "-C", work.fixed, "am", "--quiet", path], env=env)
                if r.returncode != 0:
                    raise GcovlabError("patches/mainline-fix/%s does not apply to the "
                                       "pristine tree with git am:\n%s" % (
                                           os.path.basename(path),
                                           (r.stdout + r.stderr).strip()))
            run(["chmod", "-R", "a-w", work.fixed], what="chmod")
        with open(ready, "w", encoding="utf-8") as f:
            f.write(key + "\n")


def source_state(work, config):
    """A string that changes whenever the source of a build changes: the
    tree object of HEAD (its content, not the commit: a student's commit
    of a patch and the tool's commit of the same patch are one state, and
    share a kept build), then a digest of what is not committed."""
    if Config.parse(config).is_mainline:
        return git(Config.parse(config).source(work), "rev-parse", "HEAD").strip()
    head = git(work.tree, "rev-parse", "HEAD^{tree}").strip()
    diff = probe(["git", "-C", work.tree, "diff", "HEAD"], text=False).stdout
    untracked = git(work.tree, "ls-files", "--others", "--exclude-standard")
    h = hashlib.sha256(diff)
    for rel in untracked.split("\n"):
        if rel:
            try:
                with open(os.path.join(work.tree, rel), "rb") as f:
                    h.update(rel.encode() + b"\0" + f.read())
            except OSError:
                pass
    return "%s+%s" % (head, h.hexdigest()[:16])


def series_key(patches):
    """A digest of the patch files a lab branch is made of (names and text)."""
    h = hashlib.sha256()
    for path in patches:
        with open(path, "rb") as f:
            h.update(os.path.basename(path).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def config_get(tree, key):
    return probe(["git", "-C", tree, "config", "--get", key]).stdout.strip() or None


def branch_tip(tree, branch):
    r = probe(["git", "-C", tree, "rev-parse", "--verify", "--quiet", "refs/heads/" + branch])
    return r.stdout.strip() if r.returncode == 0 else None


def twin_branch(tree, key, branch):
    """A tool-made lab branch, other than `branch`, made of the same patches."""
    out = probe(["git", "-C", tree, "config", "--get-regexp",
                 r"^gcovlab\.lab-[0-9]+\.key$"]).stdout
    for line in out.splitlines():
        name, _, value = line.partition(" ")
        other = name[len("gcovlab."):-len(".key")]
        if value == key and other != branch:
            tip = branch_tip(tree, other)
            if tip and tip == config_get(tree, "gcovlab.%s.tip" % other):
                return tip
    return None


def put_back(tree, back):
    """After a git am that failed or was interrupted on the tool's detached
    HEAD: no am in progress, no half-applied file (a git am killed by Ctrl-C
    can leave files changed and no am state to abort), the tree on `back`.
    Nothing of the user's is lost: the tree was clean before (a dirty one
    is refused) and HEAD holds only the tool's commits."""
    probe(["git", "-C", tree, "am", "--abort"])
    probe(["git", "-C", tree, "reset", "--hard", "--quiet"])
    # A file the cut-short am had written but not yet added (a patch's new
    # kernel/gcov/fs.c, once) is untracked now, and reset leaves it.  The
    # tree had no untracked file before (a dirty tree is refused), so
    # whatever is untracked now came from the am.
    probe(["git", "-C", tree, "clean", "-f", "-d", "--quiet"])
    probe(["git", "-C", tree, "checkout", "--quiet", back])


def apply_patches(tree, patches, names, env, back):
    """git am each patch on the detached HEAD; on a failure, back to `back`."""
    for path, name in zip(patches, names):
        r = probe(["git", "-C", tree, "am", "--quiet", path], env=env)
        if r.returncode != 0:
            put_back(tree, back)
            raise GcovlabError("patches/%s does not apply to %s with git am:\n%s\n"
                               "The tree is back on %s.  Is patches/ from this "
                               "checkout, and the tarball Linux 6.1 as Debian 12 "
                               "ships it?" % (name, TAG_BASELINE,
                                              (r.stdout + r.stderr).strip(), back))


def lab_branch(work, number, patches):
    """Make sure branch lab-N is baseline + `patches` (git am), check it out.

    The tool owns lab-N: it remakes the branch when patches/ changed.  A
    lab-N with commits the tool did not make, or a dirty tree, is refused
    with the commands that keep the work.
    """
    with Lock(os.path.join(work.root, "locks", "tree"), "changing the kernel tree"):
        _lab_branch(work, number, patches)


def _lab_branch(work, number, patches):
    tree = work.tree
    branch = "lab-%d" % number
    key = series_key(patches)
    tip = branch_tip(tree, branch)
    made = config_get(tree, "gcovlab.%s.tip" % branch)
    mine = "my-lab%d" % number      # the name the lab pages use
    if tip and made != tip:
        raise GcovlabError(
            "branch %s of %s has commits gcovlab did not make (gcovlab made %s, the "
            "branch is at %s).  Lab branches belong to gcovlab; keep your commits on "
            "a branch of your own and let gcovlab make %s again:\n"
            "    git -C %s branch %s %s && git -C %s checkout %s && git -C %s branch -D %s\n"
            "Then run the command again." %
            (branch, tree, (made or "none")[:12], tip[:12], branch, tree, mine, branch,
             tree, mine, tree, branch))
    if tip and config_get(tree, "gcovlab.%s.key" % branch) == key:
        checkout(tree, branch)
        return
    refuse_if_dirty(tree, "making branch %s" % branch)
    names = [os.path.basename(p) for p in patches]
    twin = twin_branch(tree, key, branch)
    if twin:
        # Another lab with the same patches (labs 2-4 share one state):
        # same commit, so switching between them touches no file.
        git(tree, "branch", "--force", branch, twin)
        git(tree, "config", "gcovlab.%s.tip" % branch, branch_tip(tree, branch))
        git(tree, "config", "gcovlab.%s.key" % branch, key)
        checkout(tree, branch)
        return
    with Step("making branch %s: %s + %d patch%s (git am)" % (
            branch, TAG_BASELINE, len(patches), "" if len(patches) == 1 else "es")):
        back = current_branch(tree) or git(tree, "rev-parse", "HEAD").strip()
        env = am_env(tree, TAG_BASELINE)
        try:
            git(tree, "checkout", "--quiet", "--detach", TAG_BASELINE, capture=False)
            apply_patches(tree, patches, names, env, back)
        except KeyboardInterrupt:
            # Ctrl-C during the checkout or the git am runs: put the tree
            # back where it was, so that the same command starts afresh.
            put_back(tree, back)
            raise
        git(tree, "branch", "--force", branch, "HEAD")
        git(tree, "checkout", "--quiet", branch, capture=False)
        new_tip = branch_tip(tree, branch)
        git(tree, "config", "gcovlab.%s.tip" % branch, new_tip)
        git(tree, "config", "gcovlab.%s.key" % branch, key)
    say("kernel tree now on branch %s (%s)" % (branch, ", ".join(names) or "no patches"))
