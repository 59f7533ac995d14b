# SPDX-License-Identifier: GPL-2.0
"""Where things live: the checkout, and the work directory outside it."""

import os
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
        if not name.startswith("mainline") and not self.has_series_kconfig():
            name += "-baseline"
        return os.path.join(self.root, "build", name)

    def has_series_kconfig(self):
        """Whether the tree's Kconfig defines the series' first option,
        CONFIG_GCOV_PROFILE (committed or not: a student writing it in Lab 1
        has it as soon as the file says so)."""
        return os.path.isdir(self.tree) and kconfig_defines(self.tree, "GCOV_PROFILE")


def kconfig_defines(src, option):
    """Whether a Kconfig file of the tree SRC, as on disk (committed or
    not), defines OPTION (a 'config' or 'menuconfig' line, not a mention)."""
    r = probe(["git", "-C", src, "grep", "-q", "--untracked", "-E",
               "^(menu)?config %s$" % option, "--", "*Kconfig*"])
    return r.returncode == 0
