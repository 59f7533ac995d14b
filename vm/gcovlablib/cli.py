# SPDX-License-Identifier: GPL-2.0
"""Command line of vm/gcovlab."""

import argparse
import errno
import os
import re
import shutil
import sys

from . import compare, exercise, kbuild, labs, runs
from . import kunit as kunitmod
from . import reset as resetmod
from . import tree as treemod
from .util import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, GcovlabError,
                   not_installed, run, say)
from .work import Work


DESCRIPTION = """\
The lab loop of gcov-kernel-labs: a kernel tree made from Debian's
linux-source-6.1, tiny kernels built from it, a QEMU guest that runs a
workload, and the coverage data brought back as .gcda files, lcov.info and
an HTML report.

The work directory (kernel tree, builds, ccache) is GCOVLAB_WORK, by
default ~/.cache/gcov-kernel-labs; it is never inside the checkout.

Kernels:
  --mainline   the pristine packaged tree with CONFIG_GCOV_KERNEL=y
               (Lab 0, and the oracle the series is compared with)
  --fixed      the same with mainline's own fix, patches/mainline-fix/
               (Lab 11)
  --lab N      the kernel of lab N (labs/index.toml; Lab 0 = --mainline)
  --tree       the kernel tree as it is checked out now (the baseline
               until the series moves it)
"""

EPILOG = """\
exit status: 'run' and 'boot' exit with the workload's status (also in
OUT/status).  gcovlab's own failures exit 125, a guest that outlives
--timeout 124, bad arguments 2, Ctrl-C 130.

examples:
  vm/gcovlab tree
  vm/gcovlab build --mainline
  vm/gcovlab run --mainline --module labs/driver \\
      --workload labs/driver/workload-basic.sh --out ~/lab0-basic
"""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("gcovlab: error: %s\n(see '%s --help')" % (message, self.prog),
              file=sys.stderr)
        sys.exit(EXIT_USAGE)


def lab_number(text):
    if not re.fullmatch(r"\d+", text):
        raise argparse.ArgumentTypeError("lab number must be a whole number, like 0 or 4, not %r" % text)
    return int(text)


def positive(text):
    if not re.fullmatch(r"\d+", text) or int(text) == 0:
        raise argparse.ArgumentTypeError("must be a whole number of seconds above 0, not %r" % text)
    return int(text)


def kernel_params(text):
    if text and (not re.fullmatch(r"[\x21-\x7e]+( [\x21-\x7e]+)*", text) or len(text) > 512):
        raise argparse.ArgumentTypeError(
            "kernel parameters are printable words separated by single spaces, "
            "at most 512 characters in all, not %r" % text)
    if any(w.split("=", 1)[0] in ("console", "rdinit", "panic") for w in text.split()):
        raise argparse.ArgumentTypeError(
            "console=, rdinit= and panic= are set by gcovlab (the guest needs "
            "them to run and stop); leave them out of %r" % text)
    return text


def add_kernel_choice(p, required=False):
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--lab", type=lab_number, metavar="N",
                   help="the kernel of lab N (Lab 0 is the mainline kernel)")
    g.add_argument("--mainline", action="store_true",
                   help="the pristine tree with mainline CONFIG_GCOV_KERNEL")
    g.add_argument("--fixed", action="store_true",
                   help="the same with mainline's own fix (patches/mainline-fix/)")
    g.add_argument("--tree", action="store_true",
                   help="the kernel tree as checked out now")
    p.add_argument("--variant", choices=kbuild.VARIANTS,
                   help="with --tree, --mainline or --fixed: whole-kernel profiling (all) "
                        "or two vCPUs (smp), or two vCPUs with the kernel's debug "
                        "checkers (debug), each with its own build directory; "
                        "a lab's variant comes from labs/index.toml")


def add_guest_options(p):
    p.add_argument("--timeout", type=positive, default=120, metavar="SECONDS",
                   help="stop the guest after this long (default 120)")
    p.add_argument("--accel", choices=("tcg", "kvm", "auto"), default="tcg",
                   help="tcg (default); kvm; auto: KVM only if a bounded "
                        "probe boot completes, else TCG")
    p.add_argument("--append", type=kernel_params, default="", metavar="PARAMS",
                   help="more kernel command line parameters, for example "
                        "'gcov_persist=0' (quote several: 'a=1 b=2')")
    p.add_argument("--file", action="append", default=[], metavar="FILE",
                   dest="files",
                   help="put FILE into the guest's /work, next to the workload "
                        "(a helper script or program; repeat for several)")


def parser():
    top = Parser(prog="vm/gcovlab", description=DESCRIPTION, epilog=EPILOG,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    sub.add_parser("tree", help="make the kernel tree (pristine + baseline commits), or check it",
                   description="Extract /usr/src/linux-source-6.1.tar.xz into the work "
                   "directory as a git repository with two tagged commits: "
                   "gcovlab-pristine (the tarball; its Debian-packaging .gitignore "
                   "lines removed so git sees the kernel) and gcovlab-baseline "
                   "(mainline gcov removed).  Running it again does nothing.")

    p = sub.add_parser("lab", help="move the kernel tree to lab N's starting point",
                       description="Check out the tool's branch for lab N.  A tree "
                       "with uncommitted changes or new files is refused, never "
                       "reset.  Lab 0 leaves the tree on the baseline and runs the "
                       "mainline kernel.")
    p.add_argument("number", type=lab_number, metavar="N")

    p = sub.add_parser("reset", help="back to where lab N's page starts",
                       description="Put the kernel tree on branch baseline, rename "
                       "the page's branches of yours (my-labN, my-labN-*) to "
                       "NAME.old-K and an earlier ~/labN output folder to "
                       "~/labN.old-K.  Nothing is deleted; a tree with uncommitted "
                       "changes is refused, with the commands that keep them.")
    p.add_argument("number", type=lab_number, metavar="N")

    p = sub.add_parser("exercise", help="make branch my-labN: lab N with its key pieces "
                       "left for you to write",
                       description="Make your branch my-labN from the tool's lab-N, with "
                       "the regions that labs/labNN/exercise.toml names replaced by "
                       "numbered TODO comments that say what to write.  Then edit, and "
                       "run 'vm/gcovlab check N'.  An existing my-labN is refused (reset "
                       "renames it).")
    p.add_argument("number", type=lab_number, metavar="N")
    p.add_argument("--todo", type=int, default=1, metavar="K",
                   help="start at TODO K: the TODOs before it come solved")

    p = sub.add_parser("check", help="run lab N's checks on your code",
                       description="Build and check the kernel tree as it is checked out "
                       "(your my-labN) with lab N's checks; one line per check, and for a "
                       "failed one the TODO and the chapter to read.  Exit status 0 when "
                       "all pass.")
    p.add_argument("number", type=lab_number, metavar="N")
    p.add_argument("--solution", action="store_true",
                   help="show the diff from your branch to the finished state instead")
    p.add_argument("--json", action="store_true",
                   help="the results as JSON (an instructor collects them)")

    p = sub.add_parser("build", help="build (incrementally) a kernel",
                       description="Configure (tinyconfig + vm/kernel.config + the "
                       "kernel's own fragment) and build a kernel in its own O= "
                       "directory, with ccache.  Only what changed is rebuilt.")
    add_kernel_choice(p, required=True)
    p.add_argument("--force", action="store_true", help="run make even if nothing changed")

    p = sub.add_parser("boot", help="boot a kernel, run a workload, collect .gcda (no module)",
                       description="Boot a kernel in QEMU without building a module.")
    add_kernel_choice(p, required=True)
    p.add_argument("--workload", metavar="SCRIPT",
                   help="script to run in the guest (default: vm/smoke.sh)")
    p.add_argument("--out", metavar="DIR", help="results (default: WORK/boot-<kernel>)")
    add_guest_options(p)

    p = sub.add_parser("run", help="build a module, boot, run a workload, report coverage",
                       description="Build the out-of-tree module in DIR (copied to "
                       "OUT/build; DIR is never written to) with every object "
                       "instrumented, boot the chosen kernel, run SCRIPT in the "
                       "guest next to the .ko files, and leave in OUT: gcda/ (the "
                       "debugfs gcov tree as files), console.log, transfer.log, "
                       "lcov.info, html/, summary.txt and status.  Exits with the "
                       "workload's status.  Kernel: --lab 0 (mainline) unless given.")
    p.add_argument("--module", required=True, metavar="DIR",
                   help="module source directory (with a Kbuild or Makefile)")
    p.add_argument("--workload", required=True, metavar="SCRIPT",
                   help="shell script run in the guest; it loads the module with insmod")
    p.add_argument("--out", required=True, metavar="DIR", help="where the results go")
    add_kernel_choice(p)
    add_guest_options(p)
    p.add_argument("--random-seed", metavar="SEED",
                   help="compile the module with -frandom-seed=SEED (stable stamps "
                        "and checksums, for byte comparisons)")
    p.add_argument("--module-v2", metavar="DIR",
                   help="a changed version of --module's source, built after it "
                        "in the same build path, so that its objects keep their "
                        "names; its .ko files reach the guest as NAME.v2.ko (for "
                        "trying persistence with a changed module).  The report "
                        "is made against this version's .gcno files")

    p = sub.add_parser("compare", help="compare a lab's .gcda files with mainline's",
                       description="Run the module and workload twice on the mainline "
                       "kernel (does the workload repeat itself?), then on lab N's, "
                       "from the same build path and with the same -frandom-seed "
                       "(given to the module build only), and compare every .gcda: "
                       "byte for byte first; where the bytes differ, record by record "
                       "(gcov-dump -l) with the stamp, the checksums and the function "
                       "idents masked, and the counter values too where the two "
                       "mainline runs disagreed.  OUT/gcda-mainline/, "
                       "OUT/gcda-mainline-2/ and OUT/gcda/ keep the three sets.  Exits "
                       "0 when every file is identical or has equal records, 1 when "
                       "any differs (shown as a masked gcov-dump -l diff).")
    p.add_argument("--module", required=True, metavar="DIR")
    p.add_argument("--workload", required=True, metavar="SCRIPT")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--lab", required=True, type=lab_number, metavar="N")
    p.add_argument("--random-seed", default="gcovlab", metavar="SEED",
                   help="passed as -frandom-seed to the module build (default gcovlab)")
    add_guest_options(p)

    p = sub.add_parser("kernel-report", help="whole-kernel lcov report of a run's OUT",
                       description="From the .gcda files of an earlier run or boot "
                       "(OUT/gcda), take those of the kernel's own objects, put "
                       "each next to a copy of its .gcno (OUT/kernel-data), turn "
                       "them into an lcov tracefile and run genhtml: OUT/kernel.info, "
                       "OUT/kernel-html/.  Exits 1 if gcov, lcov or genhtml warned "
                       "about anything (Debian lcov's own 'Subroutine ... redefined' "
                       "lines aside).")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--capture", choices=("gcov", "geninfo"), default="gcov",
                   help="how the tracefile is made: gcov (default), one gcov per core "
                   "over every object, in its JSON format; geninfo, lcov's geninfo, one "
                   "gcov per object (the slower way before; the same records)")
    add_kernel_choice(p, required=True)

    p = sub.add_parser("report", help="redo lcov.info and html/ for a run's OUT",
                       description="Run lcov and genhtml again on the data of an earlier run.")
    p.add_argument("--out", required=True, metavar="DIR")

    p = sub.add_parser("kunit", help="run KUnit suites in the guest, with the coverage of "
                       "the code they test",
                       description="Build the kernel's own KUnit suites into a kernel "
                       "of their own (build/<kernel>-kunit, first copied from the "
                       "kernel's usual build, then rebuilt incrementally), tristate "
                       "suites as modules, loaded after boot once the gcov counters "
                       "are zeroed; profile the --cover files; boot; parse the KTAP "
                       "output with the tree's tools/testing/kunit/kunit.py parse; "
                       "report the covered files' lines, branches and functions.  "
                       "OUT gets console.log, kunit-*.log (the KTAP), results.json "
                       "(kunit.py's JSON), lcov.info, html/, coverage.xml "
                       "(Cobertura), coverage.json (gcovr) and summary.txt.  Exit "
                       "status 0 when every test passed, 1 when one failed or a "
                       "suite did not finish, 124 when the guest hung.  Kernel: "
                       "--lab 0 (mainline) unless given; the series from Lab 7 on.")
    p.add_argument("filter_glob", nargs="?", metavar="GLOB",
                   help="as kunit.py's: SUITE_GLOB[.TEST_GLOB]; the modules whose "
                        "suites match are loaded (6.1's KUnit applies the test part "
                        "to built-in suites only)")
    p.add_argument("--kunitconfig", metavar="FILE",
                   help="a config fragment naming the suites' options (kunit.py's "
                        ".kunitconfig format)")
    p.add_argument("--suite", action="append", dest="suites", default=[], metavar="NAME",
                   help="a suite by name (as KUnit prints it: '# Subtest: NAME'); "
                        "its option is found in the tree.  Repeat for several")
    p.add_argument("--module", metavar="DIR",
                   help="an out-of-tree module (with a Kbuild or Makefile) whose KUnit "
                        "suites run instead of, or beside, the tree's: built against "
                        "the kunit kernel and loaded in the guest; --cover then names "
                        "its own .c files (every file profiled when none is named)")
    p.add_argument("--cover", nargs="+", default=[], metavar="PATH",
                   help="the .c files or directories whose coverage is reported (the "
                        "code under test), relative to the kernel tree's top (with "
                        "--module, files of the module)")
    p.add_argument("--out", required=True, metavar="DIR", help="where the results go")
    add_kernel_choice(p)
    add_guest_options(p)

    sub.add_parser("status", help="show the work directory, the tree and the builds")
    sub.add_parser("env", help="print the shell line that sets GCOVLAB_WORK: "
                   "eval \"$(vm/gcovlab env)\"",
                   description="Print 'export GCOVLAB_WORK=DIR', DIR being the work "
                   "directory this command uses (GCOVLAB_WORK if set, else "
                   "~/.cache/gcov-kernel-labs).  The lab pages name the work "
                   "directory as $GCOVLAB_WORK; 'eval \"$(vm/gcovlab env)\"' sets "
                   "it in your shell.  Nothing is created.")

    p = sub.add_parser("clean", help="remove builds, or the whole work directory",
                       description="--builds removes the build directories (the tree "
                       "stays).  --all removes the work directory, and refuses while "
                       "the tree holds uncommitted changes or branches of your own, "
                       "unless --force.")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--builds", action="store_true")
    g.add_argument("--all", action="store_true")
    p.add_argument("--force", action="store_true")
    return top


def cmd_run(work, args):
    return runs.cmd_run(work, runs.Request.from_args(args))


def cmd_boot(work, args):
    return runs.cmd_boot(work, runs.Request.from_args(args))


def cmd_report(work, args):
    return runs.cmd_report(work, runs.Request.from_args(args))


def cmd_kernel_report(work, args):
    return runs.cmd_kernel_report(work, runs.Request.from_args(args))


def cmd_compare(work, args):
    return compare.cmd_compare(work, args)


def cmd_env(work, _args):
    """The one line a shell evaluates (the path has no space: Work refuses
    one, so it needs no quoting)."""
    print("export GCOVLAB_WORK=%s" % work.root)
    return 0


def cmd_status(work, _args):
    print("work directory: %s" % work.root)
    print("tarball:        %s%s" % (work.tarball, "" if os.path.exists(work.tarball) else " (missing)"))
    if treemod.is_ours(work.tree):
        info = treemod.read_info(work)
        dirty = treemod.changes(work.tree)
        print("kernel tree:    %s, Linux %s, branch %s, %s" % (
            work.tree, info.get("version", "?"), treemod.current_branch(work.tree) or "(detached)",
            "%d uncommitted change(s)" % len(dirty) if dirty else "clean"))
        mine = treemod.student_branches(work.tree)
        print("your branches:  %s" % (", ".join(mine) or "none"))
    else:
        print("kernel tree:    not made yet (vm/gcovlab tree)")
    # Every build directory there is: a lab configuration has two, one for
    # the trees with the series and one (-baseline) for those without.
    builds = os.path.join(work.root, "build")
    names = sorted(os.listdir(builds)) if os.path.isdir(builds) else []
    for config in kbuild.CONFIGS:
        for name in [n for n in names if n in (config, config + "-baseline")] or [config]:
            img = os.path.join(builds, name, "arch/x86/boot/bzImage")
            print("%-24s %s" % ("%s kernel:" % name, img if os.path.exists(img) else "not built"))
    kept = os.path.join(builds, ".kept")
    states = 0
    for root, dirs, _files in os.walk(kept):
        if root != kept:
            states += len([d for d in dirs if not d.endswith(".tmp")])
            dirs[:] = []
    print("%-24s %d in %s (earlier tree states, put back when the tree returns to one; "
          "at most %d per directory)" % ("kept builds:", states, kept, kbuild.keep_limit()))
    return 0


def cmd_clean(work, args):
    if args.builds:
        path = os.path.join(work.root, "build")
        if os.path.isdir(path):
            shutil.rmtree(path)
        say("removed %s" % path)
        return 0
    if os.path.isdir(work.tree) and treemod.is_ours(work.tree) and not args.force:
        dirty = treemod.changes(work.tree)
        mine = treemod.student_branches(work.tree)
        if dirty or mine:
            raise GcovlabError(
                "not removing %s: the kernel tree holds %s.  Save them first "
                "(git -C %s format-patch baseline..BRANCH), or add --force to "
                "delete them." % (work.root, " and ".join(
                    (["%d uncommitted change(s)" % len(dirty)] if dirty else []) +
                    (["your branches %s" % ", ".join(mine)] if mine else [])), work.tree))
    for tree in (work.mainline, work.fixed):
        if os.path.isdir(tree):
            run(["chmod", "-R", "u+w", tree], what="chmod")
    if os.path.isdir(work.root):
        shutil.rmtree(work.root)
    say("removed %s" % work.root)
    return 0


def cmd_lab(work, args):
    lab = labs.get(args.number)
    treemod.ensure(work)
    if lab["kernel"] == "mainline":
        treemod.checkout(work.tree, treemod.BRANCH_BASELINE)
        say("Lab %d (%s) runs on the mainline kernel: vm/gcovlab build --mainline" %
            (args.number, lab["title"]))
        return 0
    treemod.lab_branch(work, args.number, labs.patches(args.number))
    if lab.get("host"):
        say("Lab %d (%s) works on the host: its steps build no kernel" %
            (args.number, lab["title"]))
    else:
        say("Lab %d (%s): build and run it with --lab %d, e.g. vm/gcovlab build --lab %d" %
            (args.number, lab["title"], args.number, args.number))
    return 0


def cmd_build(work, args):
    req = runs.Request.from_args(args)
    config, _var, _label = runs.pick_kernel(req)
    runs.prepare_tree(work, req)
    kbuild.build_kernel(work, config, force=args.force)
    return 0


COMMANDS = {"tree": lambda w, a: (treemod.ensure(w), 0)[1], "lab": cmd_lab,
            "build": cmd_build, "boot": cmd_boot, "run": cmd_run,
            "report": cmd_report, "kernel-report": cmd_kernel_report,
            "compare": cmd_compare, "status": cmd_status, "env": cmd_env,
            "kunit": lambda w, a: kunitmod.cmd_kunit(w, kunitmod.Request.from_args(a)), "clean": cmd_clean,
            "reset": lambda w, a: resetmod.reset(w, a.number),
            "exercise": lambda w, a: exercise.make(w, a.number, a.todo),
            "check": lambda w, a: exercise.check(w, a.number, a.json, a.solution)}


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if not args.command:
        p.print_help(sys.stderr)
        print("\ngcovlab: error: name a command, e.g. 'vm/gcovlab run --help'", file=sys.stderr)
        return EXIT_USAGE
    try:
        work = Work()
        return COMMANDS[args.command](work, args)
    except GcovlabError as e:
        print("gcovlab: error: %s" % e, file=sys.stderr, flush=True)
        return e.code
    except KeyboardInterrupt:
        print("gcovlab: interrupted.  Nothing finished is lost: a build or a lab "
              "branch that was cut short is made again (only what is missing) "
              "when you run the same command again.", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except OSError as e:
        print("gcovlab: error: %s" % os_error_message(e), file=sys.stderr, flush=True)
        return EXIT_FAILED


def os_error_message(e):
    """What to say about an OSError that reached the top: a program that is
    not installed, a full disk, or a file that cannot be written."""
    if e.errno == errno.ENOENT and e.filename and os.sep not in str(e.filename):
        return str(not_installed(str(e.filename)))
    where = " (%s)" % e.filename if e.filename else ""
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return ("no space left on the device%s.  Free some space (df -h shows "
                "where) and run the same command again; the work directory keeps "
                "everything that was finished." % where)
    return "%s%s" % (e.strerror or e, where)
