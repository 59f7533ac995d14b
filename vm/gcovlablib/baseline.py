# SPDX-License-Identifier: GPL-2.0
"""The baseline step: take mainline's gcov support out of the packaged tree.

Linux 6.1 already carries the descendant of the 2008 series.  To let the
labs rebuild it, the baseline removes exactly what the series adds again
(see docs/architecture.rst, "The baseline tree") and keeps the shared
infrastructure other subsystems use (CONFIG_CONSTRUCTORS, seq_write(),
compiler macros, mainline's inert GCOV_PROFILE := n lines).

Each edit names the exact text it removes.  If a future 6.1.y changes that
text, the step stops and says which file and which block it could not
find, instead of producing a half-edited tree.
"""

import os
import shutil

from .util import GcovlabError

# Whole files and directories the series writes anew.
REMOVED_PATHS = [
    "kernel/gcov",
    "Documentation/dev-tools/gcov.rst",
    "Documentation/translations/zh_CN/dev-tools/gcov.rst",
]

# (file, exact text to delete, why)
REMOVED_BLOCKS = [
    ("arch/Kconfig",
     'source "kernel/gcov/Kconfig"\n\n',
     "the gcov menu (CONFIG_GCOV_KERNEL and friends)"),
    ("kernel/Makefile",
     "obj-$(CONFIG_GCOV_KERNEL) += gcov/\n",
     "descending into kernel/gcov/"),
    ("scripts/Makefile.lib",
     "#\n"
     "# Enable gcov profiling flags for a file, directory or for all files depending\n"
     "# on variables GCOV_PROFILE_obj.o, GCOV_PROFILE and CONFIG_GCOV_PROFILE_ALL\n"
     "# (in this order)\n"
     "#\n"
     "ifeq ($(CONFIG_GCOV_KERNEL),y)\n"
     "_c_flags += $(if $(patsubst n%,, \\\n"
     "\t\t$(GCOV_PROFILE_$(basetarget).o)$(GCOV_PROFILE)$(CONFIG_GCOV_PROFILE_ALL)), \\\n"
     "\t\t$(CFLAGS_GCOV))\n"
     "endif\n\n",
     "the per-object/per-directory/whole-kernel profiling flags"),
    ("Makefile",
     "CFLAGS_GCOV\t:= -fprofile-arcs -ftest-coverage\n"
     "ifdef CONFIG_CC_IS_GCC\n"
     "CFLAGS_GCOV\t+= -fno-tree-loop-im\n"
     "# Use atomic counter updates to avoid concurrent-access crashes in GCOV.\n"
     "# Only enable if -fprofile-update=prefer-atomic does not introduce new\n"
     "# undefined symbols (e.g. libatomic calls that the kernel cannot link).\n"
     "CFLAGS_GCOV\t+= $(call try-run,\\\n"
     "\techo 'long long x; void f(void){x++;}' | \\\n"
     "\t$(CC) $(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) -w -fprofile-arcs \\\n"
     "\t-ftest-coverage -x c - -c -o \"$$TMP.base\" && \\\n"
     "\techo 'long long x; void f(void){x++;}' | \\\n"
     "\t$(CC) $(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) -w -fprofile-arcs \\\n"
     "\t-ftest-coverage -fprofile-update=prefer-atomic \\\n"
     "\t-x c - -c -o \"$$TMP\" && \\\n"
     "\t$(NM) \"$$TMP.base\" | grep ' U ' > \"$$TMP.ubase\" || true ; \\\n"
     "\t$(NM) \"$$TMP\" | grep ' U ' > \"$$TMP.utest\" || true ; \\\n"
     "\tcmp -s \"$$TMP.ubase\" \"$$TMP.utest\",\\\n"
     "\t-fprofile-update=prefer-atomic)\n"
     "endif\n"
     "export CFLAGS_GCOV\n\n",
     "the compiler flags for profiled objects"),
    ("Documentation/dev-tools/index.rst",
     "   kcov\n   gcov\n",
     "the index entry of the removed gcov page"),
    ("Documentation/translations/zh_CN/dev-tools/index.rst",
     "   sparse\n   gcov\n",
     "the index entry of the removed translation"),
    ("Documentation/admin-guide/kernel-parameters.txt",
     "\tgcov_persist=\t[GCOV] When non-zero (default), profiling data for\n"
     "\t\t\tkernel modules is saved and remains accessible via\n"
     "\t\t\tdebugfs, even when the module is unloaded/reloaded.\n"
     "\t\t\tWhen zero, profiling data is discarded and associated\n"
     "\t\t\tdebugfs files are removed at module unload time.\n\n",
     "the gcov_persist= boot parameter"),
    ("MAINTAINERS",
     "GCOV BASED KERNEL PROFILING\n"
     "M:\tPeter Oberparleiter <oberpar@linux.ibm.com>\n"
     "S:\tMaintained\n"
     "F:\tDocumentation/dev-tools/gcov.rst\n"
     "F:\tkernel/gcov/\n\n",
     "the maintainers entry"),
]

# Lines kept on purpose, re-pointed by the series later (issue "part 1"):
# the index edits above keep "kcov" and "sparse" in place.
KEEP_AFTER = {
    "Documentation/dev-tools/index.rst": "   kcov\n",
    "Documentation/translations/zh_CN/dev-tools/index.rst": "   sparse\n",
}


class BaselineError(GcovlabError):
    """The baseline step cannot be made: reported like every gcovlab
    failure (a message naming the cause and the fix, exit 125)."""


def check(tree):
    """Return a list of problems that would stop apply() (empty: fine)."""
    problems = []
    for rel in REMOVED_PATHS:
        if not os.path.exists(os.path.join(tree, rel)):
            problems.append("%s: not found" % rel)
    for rel, block, _why in REMOVED_BLOCKS:
        path = os.path.join(tree, rel)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            problems.append("%s: %s" % (rel, e.strerror))
            continue
        n = text.count(block)
        if n != 1:
            first = block.splitlines()[0]
            problems.append("%s: expected the block starting %r once, found it %d times"
                            % (rel, first, n))
    return problems


def apply(tree):
    """Edit the tree in place.  Checks everything before changing anything."""
    problems = check(tree)
    if problems:
        raise BaselineError(
            "the packaged tree does not look like the 6.1 tree this step was "
            "written for:\n  " + "\n  ".join(problems) +
            "\nReport this with the output of 'vm/gcovlab status'.")
    for rel in REMOVED_PATHS:
        path = os.path.join(tree, rel)
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    for rel, block, _why in REMOVED_BLOCKS:
        path = os.path.join(tree, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = text.replace(block, KEEP_AFTER.get(rel, ""), 1)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def describe():
    """The commit message body: what was removed and why."""
    lines = ["Removed files and directories:"]
    lines += ["  %s" % p for p in REMOVED_PATHS]
    lines.append("")
    lines.append("Removed blocks:")
    lines += ["  %s: %s" % (rel, why) for rel, _b, why in REMOVED_BLOCKS]
    return "\n".join(lines)
