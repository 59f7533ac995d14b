# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab reset N: back to the state a lab page starts from.

A lab starts with the kernel tree on branch baseline, clean, with none of
the branches the page asks the student to make (my-labN, my-labN-...) and
no ~/labN output folder.  Resetting loses nothing: uncommitted changes
are refused (with the commands that keep them), and the student's
branches and output folders are renamed, not deleted.
"""

import os
import re

from . import labs
from . import tree as treemod
from .util import OUT_MARKER, GcovlabError, say



def spare_name(exists, name):
    """name.old-1, name.old-2, ...: the first that exists() says is free."""
    k = 1
    while exists("%s.old-%d" % (name, k)):
        k += 1
    return "%s.old-%d" % (name, k)


def lab_branches(tree, number):
    mine = re.compile(r"^my-lab%d(?:-[\w.-]+)?$" % number)
    return [b for b in treemod.student_branches(tree)
            if mine.match(b) and ".old-" not in b]


def made_by_gcovlab(path):
    """An output folder of vm/gcovlab runs: marker files one or two levels down."""
    for dirpath, dirnames, filenames in os.walk(path):
        if OUT_MARKER in filenames:
            return True
        if dirpath.count(os.sep) - path.count(os.sep) >= 1:
            dirnames[:] = []
    return False


def reset(work, number, home=None):
    labs.get(number)
    treemod.ensure(work)
    tree = work.tree
    treemod.refuse_if_dirty(tree, "resetting for Lab %d" % number)
    treemod.checkout(tree, treemod.BRANCH_BASELINE)
    for branch in lab_branches(tree, number):
        new = spare_name(lambda b: treemod.branch_tip(tree, b) is not None, branch)
        treemod.git(tree, "branch", "-m", branch, new)
        say("your branch %s is now %s (delete it with: git -C %s branch -D %s)" % (
            branch, new, tree, new))
    home = home or os.path.expanduser("~")
    out = os.path.join(home, "lab%d" % number)
    if os.path.lexists(out):
        if os.path.islink(out) or not made_by_gcovlab(out):
            raise GcovlabError("%s exists and holds no vm/gcovlab output: the lab's "
                               "commands write there.  Move it away (mv %s %s.mine) "
                               "and run the command again." % (out, out, out))
        new = spare_name(os.path.lexists, out)
        os.rename(out, new)
        say("the lab's earlier output %s is now %s (remove it with: rm -rf %s)" % (
            out, new, new))
    say("Lab %d can start: kernel tree on baseline, no my-lab%d branch, no %s" % (
        number, number, out))
    return 0
