# SPDX-License-Identifier: GPL-2.0
"""Command line of vm/gcovlab."""

import argparse
import difflib
import errno
import json
import os
import re
import shutil
import subprocess
import sys

from . import guest, kbuild, labs, report
from . import reset as resetmod
from . import tree as treemod
from .config import Config
from .util import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, GcovlabError,
                   not_installed, run, say, warn, OUT_MARKER)
from .work import VM, Work


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
    g.add_argument("--tree", action="store_true",
                   help="the kernel tree as checked out now")
    p.add_argument("--variant", choices=kbuild.VARIANTS,
                   help="with --tree or --mainline: whole-kernel profiling (all) "
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
                       "each next to a copy of its .gcno (OUT/kernel-data), and run "
                       "lcov and genhtml: OUT/kernel.info, OUT/kernel-html/.  "
                       "Exits 1 if gcov, lcov or genhtml warned about anything "
                       "(Debian lcov's own 'Subroutine ... redefined' lines aside).")
    p.add_argument("--out", required=True, metavar="DIR")
    add_kernel_choice(p, required=True)

    p = sub.add_parser("report", help="redo lcov.info and html/ for a run's OUT",
                       description="Run lcov and genhtml again on the data of an earlier run.")
    p.add_argument("--out", required=True, metavar="DIR")

    sub.add_parser("status", help="show the work directory, the tree and the builds")

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


def pick_kernel(args):
    """(configuration, gcov variable for module builds, label)."""
    variant = getattr(args, "variant", None)
    suffix = " (%s)" % variant if variant else ""
    if args.mainline:
        config = Config("mainline", variant)
        return config, config.profile_var, "mainline" + suffix
    if args.tree:
        config = Config("lab", variant)
        return config, config.profile_var, "the current tree" + suffix
    if variant:
        raise GcovlabError("--variant goes with --tree or --mainline; a lab's variant "
                           "is set in labs/index.toml", EXIT_USAGE)
    number = 0 if args.lab is None else args.lab
    config = labs.kernel_config(number)
    return config, config.profile_var, "lab %d" % number


def prepare_tree(work, args):
    """Make the tree, and for a series lab move it to that lab's branch."""
    treemod.ensure(work)
    if getattr(args, "lab", None) is not None and not args.mainline and not args.tree:
        if not labs.kernel_config(args.lab).is_mainline:
            treemod.lab_branch(work, args.lab, labs.patches(args.lab))


def check_file(path, what):
    if not os.path.exists(path):
        raise GcovlabError("%s %s does not exist" % (what, path), EXIT_USAGE)
    if not os.path.isfile(path):
        raise GcovlabError("%s %s is not a regular file" % (what, path), EXIT_USAGE)


def check_out(out, module=None):
    out = os.path.abspath(out)
    if re.search(r"[\s:]", out):
        raise GcovlabError("--out %r contains a space or ':'; kbuild cannot build "
                           "a module there.  Choose a path without them." % out, EXIT_USAGE)
    if os.path.exists(out):
        if not os.path.isdir(out):
            raise GcovlabError("--out %s exists and is not a directory" % out, EXIT_USAGE)
        if os.listdir(out) and not os.path.exists(os.path.join(out, OUT_MARKER)):
            raise GcovlabError("--out %s is not empty and was not made by gcovlab; "
                               "nothing was changed.  Choose a new or empty "
                               "directory." % out, EXIT_USAGE)
    if module:
        for a, b in ((out, module), (module, out)):
            if a == b or a.startswith(b + os.sep):
                raise GcovlabError("--out and --module must not contain each other "
                                   "(%s, %s)" % (out, module), EXIT_USAGE)
    return out


def check_module(path):
    path = os.path.abspath(path)
    if not os.path.isdir(path):
        raise GcovlabError("--module %s is not a directory" % path, EXIT_USAGE)
    if not any(os.path.isfile(os.path.join(path, n)) for n in ("Kbuild", "Makefile")):
        raise GcovlabError("--module %s has neither a Kbuild nor a Makefile; "
                           "point it at a kernel module's source directory" % path, EXIT_USAGE)
    return path


def extra_files(args):
    """--file arguments: regular files, each name once, none named like
    the workload or a .ko file the guest gets anyway."""
    files = [os.path.abspath(f) for f in getattr(args, "files", [])]
    names = set()
    for path in files:
        check_file(path, "--file")
        name = os.path.basename(path)
        if name in names or name == "workload.sh" or name.endswith(".ko"):
            raise GcovlabError("--file %s: the guest's /work already has a file "
                               "named %s; rename it" % (path, name), EXIT_USAGE)
        names.add(name)
    return files


def choose_accel(work, args, kernel):
    if args.accel != "auto":
        return args.accel
    probe = os.path.join(work.root, "kvm-probe")
    os.makedirs(probe, exist_ok=True)
    initrd = os.path.join(probe, "initramfs.cpio")
    guest.initramfs(initrd, os.path.join(VM, "smoke.sh"), [])
    return guest.probe_kvm(kernel, initrd, probe, os.path.join(probe, "result.json"))


def workload_output(console):
    text = guest.read_text(console)
    start = text.find("gcovlab: workload start")
    end = text.find("gcovlab: workload end")
    if start < 0:
        return ""
    body = text[start:end if end > start else len(text)].split("\n")[1:]
    return "\n".join(line.rstrip("\r") for line in body).strip("\n")


def boot_and_collect(work, args, config, out, workload, kos):
    initrd = os.path.join(out, "initramfs.cpio")
    guest.initramfs(initrd, workload, kos, extra_files(args))
    kernel = kbuild.bzimage(work, config)
    accel = choose_accel(work, args, kernel)
    status, files = guest.boot(kernel, initrd, out, accel=accel, timeout=args.timeout,
                               append=getattr(args, "append", ""),
                               cpus=kbuild.vcpus(config))
    gcda = os.path.join(out, "gcda")
    if os.path.isdir(gcda):
        shutil.rmtree(gcda)
    os.makedirs(gcda)
    for rel, data in files.items():
        path = os.path.join(gcda, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    with open(os.path.join(out, "status"), "w", encoding="utf-8") as f:
        f.write("%d\n" % status)
    text = workload_output(os.path.join(out, "console.log"))
    with open(os.path.join(out, "workload.log"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    if text:
        print("---- workload output (with kernel messages) ----\n%s\n"
              "---- end of workload output ----" % text, flush=True)
    say("workload exit status %d; %d .gcda file%s received, sizes and sha256 checked" % (
        status, len(files), "" if len(files) == 1 else "s"))
    return status


def read_marker(out):
    try:
        # A marker is a few hundred bytes; never read more than 64 KiB of
        # whatever sits under its name.
        with open(os.path.join(out, OUT_MARKER), encoding="utf-8") as f:
            meta = json.loads(f.read(65536))
        return meta if isinstance(meta, dict) else {}
    except (OSError, ValueError):
        return {}


def mark_out(out, **meta):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, OUT_MARKER), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)


def cmd_run(work, args):
    module = check_module(args.module)
    module_v2 = getattr(args, "module_v2", None)
    if module_v2:
        module_v2 = check_module(module_v2)
        if module_v2 == module:
            raise GcovlabError("--module-v2 is the same directory as --module; give "
                               "it the changed copy", EXIT_USAGE)
    check_file(args.workload, "--workload")
    workload = os.path.abspath(args.workload)
    extra_files(args)
    out = check_out(args.out, module)
    config, var, label = pick_kernel(args)
    build_dir = os.path.join(out, "build")
    previous = read_marker(out)
    if os.path.isdir(build_dir) and (previous.get("module") != module or
                                     previous.get("kernel") != config):
        # Another module or kernel built here before: start the copy afresh.
        shutil.rmtree(build_dir)
    mark_out(out, module=module, build=build_dir, kernel=config)
    for stale in ("lcov.info", "summary.txt", "status"):
        if os.path.exists(os.path.join(out, stale)):
            os.remove(os.path.join(out, stale))

    prepare_tree(work, args)
    kbuild.build_kernel(work, config)
    extra = ["KCFLAGS=-frandom-seed=%s" % args.random_seed] if getattr(
        args, "random_seed", None) else []
    kos = kbuild.build_module(work, config, module, build_dir, var, extra)
    names = [os.path.basename(k) for k in kos]
    if len(set(names)) != len(names):
        raise GcovlabError("two .ko files share a name: %s" % ", ".join(kos))
    if module_v2:
        kos = second_version(work, config, module_v2, out, build_dir, var, extra, kos)
    title = "%s on %s" % (" ".join(n[:-3] for n in names), label)
    mark_out(out, module=module, build=build_dir, kernel=config, title=title)
    status = boot_and_collect(work, args, config, out, workload, kos)

    if not make_report(out, build_dir, title):
        export = os.path.exists(os.path.join(kbuild.source_dir(work, config),
                                             "kernel", "gcov", "fs.c"))
        if not Config.parse(config).is_mainline and not export:
            say("no .gcda came back, as expected: %s has no debugfs gcov export yet "
                "(the series adds it in Lab 7).  The workload ran; its output is in "
                "%s/workload.log and the kernel's in %s/console.log.  No report made."
                % (label, out, out))
        else:
            warn("no .gcda file for the module came back, though %s exports gcov "
                 "data in debugfs: did the workload load the module with insmod, "
                 "and did it leave the module loaded or its data kept "
                 "(gcov_persist=1, no write to gcov/reset)?  See %s/workload.log.  "
                 "No report made." % (label, out))
    return status


def second_version(work, config, module_v2, out, build_dir, var, extra, kos):
    """Keep the first build's .ko files, then build the changed source in the
    same place: its objects get the same names (and paths) as the first."""
    keep = os.path.join(out, "modules")
    if os.path.isdir(keep):
        shutil.rmtree(keep)
    os.makedirs(keep)
    first = []
    for ko in kos:
        shutil.copy2(ko, keep)
        first.append(os.path.join(keep, os.path.basename(ko)))
    second = []
    for ko in kbuild.build_module(work, config, module_v2, build_dir, var, extra):
        dst = os.path.join(keep, os.path.basename(ko)[:-3] + ".v2.ko")
        shutil.copy2(ko, dst)
        second.append(dst)
    say("the guest gets %s" % ", ".join(os.path.basename(k) for k in first + second))
    return first + second


def gcov_dump(path):
    proc = subprocess.run(["gcov-dump", "-l", path], capture_output=True, text=True)
    return [line.split(":", 1)[1] if ":" in line else line
            for line in (proc.stdout + proc.stderr).splitlines()]


# What a gcov-dump -l line may legitimately differ in between two kernels'
# builds of one module: the stamp, the header checksum, and each function's
# ident and checksums (a function from a kernel header emitted out of line
# hashes the kernel tree's path into them).
MASKS = [(re.compile(r"^stamp \d+$"), "stamp *"),
         (re.compile(r"^checksum \S+$"), "checksum *"),
         (re.compile(r"ident=\d+"), "ident=*"),
         (re.compile(r"lineno_checksum=0x[0-9a-f]+"), "lineno_checksum=*"),
         (re.compile(r"cfg_checksum=0x[0-9a-f]+"), "cfg_checksum=*")]
COUNTS = re.compile(r"^(\s+\d+:)((?: -?\d+)+) ?$")


def masked_dump(path, counts=True):
    """gcov-dump -l of path with MASKS applied; counter values too unless counts."""
    lines = []
    for line in gcov_dump(path):
        for pattern, repl in MASKS:
            line = pattern.sub(repl, line)
        if not counts:
            m = COUNTS.match(line)
            if m:
                line = m.group(1) + " #" * len(m.group(2).split())
        lines.append(line)
    return lines


def gcda_files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _s, fs in os.walk(root) for f in fs if f.endswith(".gcda"))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def run_for_compare(work, out, common, mainline, lab):
    status = cmd_run(work, argparse.Namespace(mainline=mainline, lab=lab, **common))
    if status:
        raise GcovlabError("the workload failed on %s (status %d)" % (
            "the mainline kernel" if mainline else "lab %d" % lab, status))
    return os.path.join(out, "gcda")


def keep_as(out, name):
    dst = os.path.join(out, name)
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    os.rename(os.path.join(out, "gcda"), dst)
    return dst


def profile_update(build_dir):
    """The -fprofile-update= option the module's objects were compiled with
    (from kbuild's .<obj>.o.cmd files), or None."""
    found = set()
    for name in os.listdir(build_dir):
        if name.startswith(".") and name.endswith(".o.cmd") and ".mod." not in name:
            with open(os.path.join(build_dir, name), encoding="utf-8",
                      errors="replace") as f:
                found.update(re.findall(r"-fprofile-update=[\w-]+", f.readline()))
    return " ".join(sorted(found)) or None


def repeats(ref, again):
    """Files of two mainline runs whose bytes differ (the workload's counts
    do not repeat themselves), and files only one run has."""
    a, b = gcda_files(ref), gcda_files(again)
    if a != b:
        return sorted(set(a) ^ set(b))
    return [rel for rel in a if read_bytes(os.path.join(ref, rel)) !=
            read_bytes(os.path.join(again, rel))]


def cmd_compare(work, args):
    config = labs.kernel_config(args.lab)
    if config.is_mainline:
        raise GcovlabError("--lab %d is the mainline kernel itself; name a series lab"
                           % args.lab, EXIT_USAGE)
    variant = config.variant
    out = os.path.abspath(args.out)
    common = dict(module=args.module, workload=args.workload, out=out, tree=False,
                  random_seed=args.random_seed, timeout=args.timeout, accel=args.accel,
                  append=args.append, module_v2=None)
    mainline_common = dict(common, variant=variant)
    say("mainline, first run")
    run_for_compare(work, out, mainline_common, True, None)
    ref = keep_as(out, "gcda-mainline")
    atomic_ref = profile_update(os.path.join(out, "build"))
    say("mainline, second run: does the workload repeat itself?")
    run_for_compare(work, out, mainline_common, True, None)
    again = keep_as(out, "gcda-mainline-2")
    unsteady = repeats(ref, again)
    if unsteady:
        say("the workload does not repeat itself on mainline: %d file%s differ%s between "
            "two runs (%s).  Counter values are not compared for %s, only the records' "
            "structure." % (len(unsteady), "" if len(unsteady) == 1 else "s",
                            "s" if len(unsteady) == 1 else "", ", ".join(unsteady[:5]),
                            "them" if len(unsteady) > 1 else "it"))
    else:
        say("it does: both mainline runs gave the same bytes")
    say("lab %d" % args.lab)
    mine = run_for_compare(work, out, common, False, args.lab)
    atomic = profile_update(os.path.join(out, "build"))
    if atomic_ref != atomic:
        say("counter updates: mainline compiled the module with %s, lab %d with %s" % (
            atomic_ref or "plain (non-atomic) updates", args.lab,
            atomic or "plain (non-atomic) updates"))

    a, b = gcda_files(ref), gcda_files(mine)
    if not a:
        raise GcovlabError("no .gcda came back from the mainline run")
    bad = same = 0
    for rel in sorted(set(a) | set(b)):
        # the object's .gcda name, the path debugfs mirrors under gcov/
        name = "/" + rel
        if rel not in b or rel not in a:
            print("only in %s: %s" % ("mainline" if rel in a else "lab %d" % args.lab, name))
            bad += 1
            continue
        x, y = read_bytes(os.path.join(ref, rel)), read_bytes(os.path.join(mine, rel))
        if x == y:
            print("identical (%d bytes): %s" % (len(x), name))
            same += 1
            continue
        steady = rel not in unsteady
        mx = masked_dump(os.path.join(ref, rel), counts=steady)
        my = masked_dump(os.path.join(mine, rel), counts=steady)
        if mx == my:
            print("equal records (%d bytes; stamp, checksums and ident masked%s): %s" % (
                len(x), "" if steady else ", counts not compared", name))
            continue
        bad += 1
        print("DIFFERENT: %s (%d bytes on mainline, %d on lab %d; gcov-dump -l with "
              "stamp, checksums and ident masked%s)" % (
                  name, len(x), len(y), args.lab, "" if steady else " and counts"))
        diff = difflib.unified_diff(mx, my, "mainline", "lab %d" % args.lab,
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:40]))
    equal = len(a) - bad - same if bad <= len(a) - same else 0
    say("%d of %d .gcda file%s identical to mainline's%s%s" % (
        same, len(a), "" if len(a) == 1 else "s",
        ", %d with equal records once masked" % equal if equal else "",
        ", %d different" % bad if bad else ""))
    return 1 if bad else 0


def make_report(out, build_dir, title):
    """Place the module's .gcda next to its .gcno, run lcov and genhtml.
    Returns False, and makes nothing, when no .gcda came back."""
    if not report.place_gcda(os.path.join(out, "gcda"), build_dir):
        return False
    info, index = report.lcov_report(out, build_dir, title)
    report.announce(out, index, info, build_dir)
    return True


def cmd_boot(work, args):
    config, _var, label = pick_kernel(args)
    workload = os.path.abspath(args.workload or os.path.join(VM, "smoke.sh"))
    check_file(workload, "--workload")
    out = check_out(args.out or os.path.join(work.root, "boot-" + config))
    mark_out(out, kernel=config, title="boot of %s" % label)
    prepare_tree(work, args)
    kbuild.build_kernel(work, config)
    return boot_and_collect(work, args, config, out, workload, [])


def cmd_report(work, args):
    out = os.path.abspath(args.out)
    meta = read_marker(out)
    if not meta:
        raise GcovlabError("%s is not the --out of a gcovlab run" % out, EXIT_USAGE)
    if "title" not in meta:
        raise GcovlabError("%s holds no finished module build: nothing to report" % out,
                           EXIT_USAGE)
    if not make_report(out, meta["build"], meta["title"]):
        raise GcovlabError("no .gcda for the module under %s/gcda" % out)
    return 0


def cmd_kernel_report(work, args):
    out = os.path.abspath(args.out)
    if not os.path.isdir(os.path.join(out, "gcda")):
        raise GcovlabError("%s has no gcda/ directory: give the --out of a "
                           "'vm/gcovlab run' or 'boot'" % out, EXIT_USAGE)
    config, _var, label = pick_kernel(args)
    build_dir = work.build_dir(config)
    staged, foreign, said = report.kernel_report(out, build_dir, "kernel on %s" % label)
    say("%d kernel objects with data; %d other .gcda files (modules) left out" % (
        staged, foreign))
    say("HTML report: %s" % os.path.join(out, "kernel-html", "index.html"))
    if said:
        print("\n".join(said))
        warn("lcov or gcov said the %d line%s above: the report may be incomplete" % (
            len(said), "" if len(said) == 1 else "s"))
        return 1
    say("no warning from gcov, lcov or genhtml")
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
    for config in kbuild.CONFIGS:
        img = kbuild.bzimage(work, config)
        print("%-15s %s" % ("%s kernel:" % config, img if os.path.exists(img) else "not built"))
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
    if os.path.isdir(work.mainline):
        run(["chmod", "-R", "u+w", work.mainline], what="chmod")
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
    config, _var, _label = pick_kernel(args)
    prepare_tree(work, args)
    kbuild.build_kernel(work, config, force=args.force)
    return 0


COMMANDS = {"tree": lambda w, a: (treemod.ensure(w), 0)[1], "lab": cmd_lab,
            "build": cmd_build, "boot": cmd_boot, "run": cmd_run,
            "report": cmd_report, "kernel-report": cmd_kernel_report,
            "compare": cmd_compare, "status": cmd_status, "clean": cmd_clean,
            "reset": lambda w, a: resetmod.reset(w, a.number)}


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
