#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/mutation-check.py - put each bug that series v2 and v3 fixed back
into the series, one at a time, and show that the test written for it fails.

  tools/mutation-check.py [--list] [NAME...]

For each mutation: a throw-away worktree of this repository at HEAD (under
/tmp), one added line of one patch in its patches/ replaced by the buggy
line, and the named test run there with pytest, against the same work
directory (the tool remakes the lab branches from the mutated patches, and
from the real ones on the next normal run).  A mutation is "caught" when
the test fails.  Prints one line per mutation and a summary; exit status 1
if any mutation survived or could not be applied.

Bug 1 (debugfs removal under gcov_lock) is not a one-line change: the
Lab 11 page and tests/debug put it back with labs/lab11/v1-remove-under-
lock.patch.  Bug 8 (three copies of the image per open) is measured against
v1 itself, not mutated.  Bugs 11 and up are v3's (issue 30): 11 is its item
1 (UML: registration before the allocator), 13 its item 3 (KUnit on the
data GCC built), 14 to 16 its items 4 to 6
(kbuild: a symlinked tree with a relative M=, gcov_links' gating and
regular .gcda files, the command-line GCOV and lpfc), 17 its item 7 (the
smaller findings); the UML kernel itself runs in "make check-debug"
(tests/debug/test_series_uml.py).
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (bug, patch prefix, line added by that patch, its buggy version,
#        the test that must catch it)
MUTATIONS = {
    "stale-write": (
        2, "0006", "\tif (gf->removed)\n", "\tif (0)\n",
        "tests/labs/test_lab07_debugfs.py::test_stale_fd_cannot_reach_a_new_file"),
    "late-notifier": (
        3, "0005", "core_initcall(gcov_watch_modules);\n",
        "late_initcall(gcov_watch_modules);\n",
        "tests/labs/test_lab05_registry.py::test_foreign_version_refused_by_name"),
    "any-gcc": (
        4, "0001",
        "\tdepends on CC_IS_GCC && GCC_VERSION >= 120000 && GCC_VERSION < 130000\n",
        "\tdepends on CC_IS_GCC\n",
        "tests/test_series_v2_kbuild.py::test_profile_not_offered_with_other_gcc"),
    "compile-test": (
        4, "0010", "\tdepends on !COMPILE_TEST\n", "\tdepends on !COMPILE_TEST || y\n",
        "tests/test_series_v2_kbuild.py::test_profile_all_not_with_compile_test"),
    "link-always": (
        5, "0009", "ifdef CONFIG_GCOV_PROFILE\n", "ifeq (,)\n",
        "tests/test_series_v2_kbuild.py::test_no_link_without_gcov_profile"),
    "dotdot": (
        6, "0006", '\t\tif (n == 2 && !memcmp(p, "..", 2)) {\n', "\t\tif (0) {\n",
        "tests/labs/test_lab07_debugfs.py::test_dot_and_dotdot_components_exported"),
    "first-version": (
        7, "0005", "\tif (gcov_version_major(version) != __GNUC__) {\n", "\tif (0) {\n",
        "tests/labs/test_lab05_registry.py::test_foreign_version_refused_by_name"),
    "reset-unreadable": (
        9, "0006", "\t.read = gcov_reset_read,\n", "\t/* no .read */\n",
        "tests/labs/test_lab07_debugfs.py::test_same_name_objects_are_summed_and_tree_copies"),
    "ctor-allocates": (
        11, "0005", "\tif (gcov_ready) {\n", "\tif (1) {\n",
        "tests/unit/test_host_mistakes.py::test_the_series_passes"),
    "checksum-zero": (
        17, "0004", "\tput_u32(&w, info->checksum);\n", "\tput_u32(&w, 0);\n",
        "tests/test_format_host.py::test_never_run_function_is_written_in_full"),
    "silent-nomem": (
        17, "0005", '\t\tpr_warn("%s: out of memory: not registered\\n",\n',
        '\t\tpr_debug("%s: out of memory: not registered\\n",\n',
        "tests/unit/test_host_mistakes.py::test_the_series_passes"),
    # item 3: a wrong gcov_info layout (one counter type too many): the
    # KUnit cases on made-up objects still pass, those that read the
    # object GCC built (kernel/gcov/test_profiled.o) do not
    "counters-9": (
        13, "0004", "#define GCOV_COUNTERS\t\t8\n", "#define GCOV_COUNTERS\t\t9\n",
        "tests/labs/test_lab07_debugfs.py::test_kunit_suite_passes"),
    # item 4: the link's directory came from the shell's "cd", which dash
    # does on the logical path: a relative M= through a symlinked tree
    # gave "can't cd" and a link to $(GCOV_DATA_DIR)/x.gcda
    "link-cd": (
        14, "0009",
        '\t\tln -sfn "$(call gcov-data-name,$(gcov-gcda))" $(gcov-gcda); \\\n',
        '\t\tln -sfn "$(GCOV_DATA_DIR)$$(cd $(@D) && pwd)/$(@F:.o=.gcda)" $(gcov-gcda); \\\n',
        "tests/test_series_v3_kbuild.py::test_link_of_module_built_through_symlink"),
    "links-cd": (
        14, "0009",
        '\t\t\tln -sfn "$$data$${gcda\\#"$(gcov-links-dir)"}" "$$gcda"; \\\n',
        '\t\t\tln -sfn "$(GCOV_DATA_DIR)$$(cd "$${gcda%/*}" && pwd)/$${gcda\\#\\#*/}" "$$gcda"; \\\n',
        "tests/test_series_v3_kbuild.py::test_gcov_links_of_module_through_symlink"),
    # make's $(CURDIR) (or $(shell pwd), which make runs without a shell:
    # /bin/pwd prints the physical directory) is not what GCC prefixes
    "physical-cwd": (
        14, "0009", 'KBUILD_GCOV_CWD := $(shell echo "$$PWD")\n',
        "KBUILD_GCOV_CWD := $(CURDIR)\n",
        "tests/test_series_v3_kbuild.py::test_link_of_kernel_object_through_symlink"),
    # item 5: gcov_links ran without CONFIG_GCOV_PROFILE (UML's CONFIG_GCOV
    # objects got links over libgcov's files) ...
    "links-ungated": (
        15, "0009", "ifneq ($(CONFIG_GCOV_PROFILE),y)\n", "ifneq (,)\n",
        "tests/test_series_v3_kbuild.py::test_gcov_links_without_gcov_profile"),
    # ... and "ln -sfn" replaced a regular .gcda, in the build ...
    "build-replaces-file": (
        15, "0009", "\tif [ -L $(gcov-gcda) ] || [ ! -e $(gcov-gcda) ]; then \\\n",
        "\tif true; then \\\n",
        "tests/test_series_v3_kbuild.py::test_rebuild_keeps_regular_gcda"),
    # ... and in make gcov_links
    "links-replace-file": (
        15, "0009", '\t\telif [ -L "$$gcda" ] || [ ! -e "$$gcda" ]; then \\\n',
        "\t\telif true; then \\\n",
        "tests/test_series_v3_kbuild.py::test_gcov_links_keeps_regular_gcda"),
    # item 6: a command-line GCOV reached the sub-makes as a command-line
    # value and beat their GCOV := n ...
    "cmdline-wins": (
        16, "0003", "MAKEOVERRIDES := $(filter-out GCOV=%, $(MAKEOVERRIDES))\n",
        "MAKEOVERRIDES := $(MAKEOVERRIDES)\n",
        "tests/test_series_v3_kbuild.py::test_command_line_gcov_keeps_module_exclusions"),
    # ... or, still exported, as an environment value
    "cmdline-exported": (
        16, "0003", "unexport GCOV\n", "export GCOV\n",
        "tests/test_series_v3_kbuild.py::test_command_line_gcov_does_not_reach_sub_makes"),
    # the default read before the directory's setting
    "default-first": (
        16, "0003",
        "gcov-dir = $(if $(filter environment%,$(origin GCOV)),,$(GCOV))$(KBUILD_GCOV)\n",
        "gcov-dir = $(KBUILD_GCOV)$(if $(filter environment%,$(origin GCOV)),,$(GCOV))\n",
        "tests/test_series_v3_kbuild.py::test_command_line_gcov_keeps_module_exclusions"),
    # lpfc's private switch left on kbuild's name
    "lpfc-gcov": (
        16, "0003", "ccflags-$(LPFC_GCOV) += -O0\n", "ccflags-$(GCOV) += -O0\n",
        "tests/test_series_v3_kbuild.py::test_lpfc_ignores_environment_gcov"),
}


def mutate(checkout, prefix, old, new):
    """Replace the added line `old` of patch `prefix` by `new`; the hunk's
    line counts stay as they are."""
    found = glob.glob(os.path.join(checkout, "patches", prefix + "-*.patch"))
    if len(found) != 1:
        return "no single patch %s-*.patch" % prefix
    with open(found[0], encoding="utf-8") as f:
        text = f.read()
    if text.count("\n+" + old) != 1:
        return "the line %r is not added exactly once by %s" % (
            old.strip(), os.path.basename(found[0]))
    with open(found[0], "w", encoding="utf-8") as f:
        f.write(text.replace("\n+" + old, "\n+" + new))
    return None


def check(name):
    bug, prefix, old, new, test = MUTATIONS[name]
    checkout = "/tmp/gcovlab-mutation-" + name
    if os.path.exists(checkout):
        subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", checkout],
                       capture_output=True)
        shutil.rmtree(checkout, ignore_errors=True)
    subprocess.run(["git", "-C", REPO, "worktree", "add", "--quiet", "--detach", checkout,
                    "HEAD"], check=True)
    try:
        problem = mutate(checkout, prefix, old, new)
        if problem:
            return "NOT APPLIED", problem, 0
        print("mutation-check: %s (bug %d): patch %s, running %s ..." % (
            name, bug, prefix, test), flush=True)
        start = time.monotonic()
        proc = subprocess.run(["/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider",
                               "-x", "-q", test], cwd=checkout, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        took = time.monotonic() - start
        failed = [line for line in proc.stdout.splitlines()
                  if line.startswith(("FAILED", "ERROR", "E  "))][:3]
        if proc.returncode == 0:
            return "SURVIVED", "the test passed with the bug in", took
        return "caught", "; ".join(line.strip() for line in failed)[:160], took
    finally:
        subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", checkout],
                       capture_output=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--list", action="store_true", help="list the mutations and stop")
    p.add_argument("names", nargs="*", metavar="NAME", help="mutations to run (default: all)")
    args = p.parse_args()
    if args.list:
        for name, (bug, prefix, _o, new, test) in MUTATIONS.items():
            print("%-17s bug %d, patch %s: %r; %s" % (name, bug, prefix, new.strip(), test))
        return 0
    unknown = [n for n in args.names if n not in MUTATIONS]
    if unknown:
        print("mutation-check: no mutation %s; --list shows them" % ", ".join(unknown),
              file=sys.stderr)
        return 2
    results = []
    for name in args.names or MUTATIONS:
        verdict, detail, took = check(name)
        results.append(verdict)
        print("mutation-check: %-17s bug %d: %s in %.0f s: %s" % (
            name, MUTATIONS[name][0], verdict, took, detail), flush=True)
    caught = results.count("caught")
    print("mutation-check: %d of %d mutations caught" % (caught, len(results)))
    # The last mutated run left the kernel tree on baseline (the tests end
    # there); the next normal run makes the lab branches from patches/ again.
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
