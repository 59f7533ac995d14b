# SPDX-License-Identifier: GPL-2.0
"""Where things live: the checkout, and the work directory outside it."""

import os
from .config import Config
from .util import GcovlabError, probe

# vm/gcovlablib/work.py -> the checkout root
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VM = os.path.join(REPO, "vm")

TARBALL_DEFAULT = "/usr/src/linux-source-6.1.tar.xz"


class Work:
    """The work directory: the kernel tree, builds and caches.

    Default ~/.cache/gcov-kernel-labs; GCOVLAB_WORK moves it.  It must be
    outside the checkout: the kernel tree never enters the repository.
    """

    def __init__(self, root=None):
        root = root or os.environ.get("GCOVLAB_WORK") or os.path.join(
            os.path.expanduser("~"), ".cache", "gcov-kernel-labs")
        # The real path: objects record the path they were compiled in (the
        # .gcda names, the debugfs tree), so a work directory reached
        # through a symbolic link (~/.cache on another disk) must give the
        # same paths whichever way it is reached.
        root = os.path.realpath(root)
        if os.path.exists(root) and not os.path.isdir(root):
            raise GcovlabError("GCOVLAB_WORK=%s is not a directory; point it "
                               "at a directory (it is created if missing)" % root)
        if any(c.isspace() or c == ":" for c in root):
            raise GcovlabError("the work directory %r contains a space or ':', which "
                               "kbuild cannot build in; set GCOVLAB_WORK to a path "
                               "without them" % root)
        if root == REPO or root.startswith(REPO + os.sep):
            raise GcovlabError("the work directory %s is inside the checkout %s; "
                               "the kernel tree must live outside it: set "
                               "GCOVLAB_WORK to another place" % (root, REPO))
        self.root = root
        self.tree = os.path.join(root, "linux")
        self.mainline = os.path.join(root, "mainline")
        self.fixed = os.path.join(root, "mainline-fixed")
        self.ccache = os.path.join(root, "ccache")
        self.tarball = os.environ.get("GCOVLAB_TARBALL", TARBALL_DEFAULT)

    def build_dir(self, config):
        """build/<config>; a lab configuration on a tree without the series
        (the baseline, a branch before Lab 1's option) has build/<config>-baseline.

        The first patch changes objtool's arguments for every object (the
        option that turns off its unreachable-code check is renamed), so a
        shared directory recompiled all 600 objects at every switch between
        the baseline and a lab (2 min warm, a whole cold compile when the lab's
        configuration was new).  Apart, each switch rebuilds what changed.
        """
        name = str(config)
        if not Config.parse(name).is_mainline and not self.has_series_kconfig():
            name += "-baseline"
        return os.path.join(self.root, "build", name)

    def has_series_kconfig(self):
        """Whether the tree's Kconfig defines the series' first option,
        CONFIG_GCOV_PROFILE (committed or not: a student writing it in Lab 1
        has it from the next command on)."""
        return os.path.isdir(self.tree) and kconfig_defines(self.tree, "GCOV_PROFILE")


def kconfig_defines(src, option):
    """Whether a Kconfig file of the tree SRC, as on disk (committed or
    not) when the command first asked or since git last changed the tree,
    defines OPTION (a 'config' or 'menuconfig' line, not a mention)."""
    return option in kconfig_options(src)


# kconfig_options' answers in this process: {tree: (index_key, options)}.
_KCONFIG = {}


def index_key(src):
    """What changes whenever git changes the files of the tree SRC: the
    commit checked out and the index file (git rewrites it, a new inode,
    at every checkout, am, commit, add, reset or stash).  An edit of a
    file that git did not make leaves it alone: a key for answers kept
    within one command, not across commands."""
    top = probe(["git", "-C", src, "rev-parse", "--absolute-git-dir", "HEAD"])
    if top.returncode != 0:
        return None
    gitdir, head = (top.stdout.split("\n") + ["", ""])[:2]
    try:
        st = os.stat(os.path.join(gitdir, "index"))
    except OSError:
        return None
    return (head, st.st_ino, st.st_mtime_ns, st.st_size)


def kconfig_options(src):
    """The set of options that the Kconfig files of the tree SRC define,
    as on disk (committed, changed or untracked) when first asked.

    One 'git grep' for every option at once: asking for each option in
    turn walked the tree's 78,000 files once per option (40 walks, about
    20 s, for each configuration a lab build checked).  Kept for the rest
    of the command while index_key(SRC) stays the same."""
    key = index_key(src)
    hit = _KCONFIG.get(src)
    if key is not None and hit is not None and hit[0] == key:
        return hit[1]
    # as Kconfig's lexer reads an entry: blanks around it, a comment after
    r = probe(["git", "-C", src, "grep", "-h", "--untracked", "-E",
               "^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+[[:space:]]*(#.*)?$",
               "--", "*Kconfig*"])
    if r.returncode not in (0, 1):
        raise GcovlabError("git grep in %s failed (is it the kernel tree?):\n%s"
                           % (src, r.stderr.strip()))
    options = frozenset(line.split()[1] for line in r.stdout.split("\n") if line.strip())
    _KCONFIG[src] = (key, options)
    return options
