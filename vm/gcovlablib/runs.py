# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab run, boot, report and kernel-report: the work behind them.

Each takes a Request: what the command line asked for, as a value that
other commands (compare runs the module on two kernels) make directly.
"""

import dataclasses
import json
import os
import re
import shutil

from . import guest, kbuild, labs, report
from . import tree as treemod
from .config import Config
from .util import EXIT_USAGE, GcovlabError, OUT_MARKER, say, warn
from .work import VM


@dataclasses.dataclass
class Request:
    """A run, boot or report, as vm/gcovlab's options describe it."""
    module: str = None
    module_v2: str = None
    workload: str = None
    out: str = None
    files: list = dataclasses.field(default_factory=list)
    mainline: bool = False
    fixed: bool = False
    tree: bool = False
    lab: int = None
    variant: str = None
    random_seed: str = None
    timeout: int = 120
    accel: str = "tcg"
    append: str = ""
    capture: str = "gcov"

    @classmethod
    def from_args(cls, args):
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in vars(args).items() if k in names})


def pick_kernel(req):
    """(configuration, gcov variable for module builds, label)."""
    variant = getattr(req, "variant", None)
    suffix = " (%s)" % variant if variant else ""
    if req.mainline or req.fixed:
        config = Config("fixed" if req.fixed else "mainline", variant)
        return config, config.profile_var, (
            "mainline with its fix" if req.fixed else "mainline") + suffix
    if req.tree:
        config = Config("lab", variant)
        return config, config.profile_var, "the current tree" + suffix
    if variant:
        raise GcovlabError("--variant goes with --tree, --mainline or --fixed; a lab's variant "
                           "is set in labs/index.toml", EXIT_USAGE)
    number = 0 if req.lab is None else req.lab
    config = labs.kernel_config(number)
    return config, config.profile_var, "lab %d" % number


def prepare_tree(work, req):
    """Make the tree, and for a series lab move it to that lab's branch."""
    treemod.ensure(work)
    if getattr(req, "lab", None) is not None and not req.mainline and not req.tree:
        if not labs.kernel_config(req.lab).is_mainline:
            treemod.lab_branch(work, req.lab, labs.patches(req.lab))


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


def extra_files(req):
    """--file arguments: regular files, each name once, none named like
    the workload or a .ko file the guest gets anyway."""
    files = [os.path.abspath(f) for f in getattr(req, "files", [])]
    names = set()
    for path in files:
        check_file(path, "--file")
        name = os.path.basename(path)
        if name in names or name == "workload.sh" or name.endswith(".ko"):
            raise GcovlabError("--file %s: the guest's /work already has a file "
                               "named %s; rename it" % (path, name), EXIT_USAGE)
        names.add(name)
    return files


def choose_accel(work, req, kernel):
    if req.accel != "auto":
        return req.accel
    probe = os.path.join(work.root, "kvm-probe")
    os.makedirs(probe, exist_ok=True)
    initrd = os.path.join(probe, "initramfs.cpio")
    guest.initramfs(initrd, os.path.join(VM, "smoke.sh"), [])
    return guest.probe_kvm(kernel, initrd, probe, os.path.join(probe, "result.json"))


# A kernel message written to the console between the "\r" and the "\n"
# that the tty puts at the end of a workload line (a busy host under TCG:
# "0000016 01000001 ...\r[ 1.2] TSC found unstable ...\r\n\n0000032 ...").
# Left as it is, the workload line ends in a carriage return that hides it
# on a terminal, and an empty line follows the message.
CR_SPLIT = re.compile(r"\r((?:\[ *\d+\.\d+\] [^\r\n]*\r?\n)+)\n")


def workload_output(console):
    try:
        with open(console, encoding="utf-8", errors="replace", newline="") as f:
            text = f.read()
    except OSError:
        return ""
    text = CR_SPLIT.sub(lambda m: "\r\n" + m.group(1), text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    start = text.find("gcovlab: workload start")
    end = text.find("gcovlab: workload end")
    if start < 0:
        return ""
    body = text[start:end if end > start else len(text)].split("\n")[1:]
    return "\n".join(line.rstrip("\r") for line in body).strip("\n")


def boot_and_collect(work, req, config, out, workload, kos):
    initrd = os.path.join(out, "initramfs.cpio")
    guest.initramfs(initrd, workload, kos, extra_files(req))
    kernel = kbuild.bzimage(work, config)
    accel = choose_accel(work, req, kernel)
    status, files = guest.boot(kernel, initrd, out, accel=accel, timeout=req.timeout,
                               append=getattr(req, "append", ""),
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


def cmd_run(work, req):
    module = check_module(req.module)
    module_v2 = getattr(req, "module_v2", None)
    if module_v2:
        module_v2 = check_module(module_v2)
        if module_v2 == module:
            raise GcovlabError("--module-v2 is the same directory as --module; give "
                               "it the changed copy", EXIT_USAGE)
    check_file(req.workload, "--workload")
    workload = os.path.abspath(req.workload)
    extra_files(req)
    out = check_out(req.out, module)
    config, var, label = pick_kernel(req)
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

    prepare_tree(work, req)
    with kbuild.built(work, config):
        return _run_built(work, req, config, var, label, out, build_dir, module, module_v2,
                          workload)


def _run_built(work, req, config, var, label, out, build_dir, module, module_v2, workload):
    """cmd_run once the kernel is built, its build directory held."""
    extra = ["KCFLAGS=-frandom-seed=%s" % req.random_seed] if getattr(
        req, "random_seed", None) else []
    kos = kbuild.build_module(work, config, module, build_dir, var, extra)
    names = [os.path.basename(k) for k in kos]
    if len(set(names)) != len(names):
        raise GcovlabError("two .ko files share a name: %s" % ", ".join(kos))
    if module_v2:
        kos = second_version(work, config, module_v2, out, build_dir, var, extra, kos)
    title = "%s on %s" % (" ".join(n[:-3] for n in names), label)
    mark_out(out, module=module, build=build_dir, kernel=config, title=title)
    status = boot_and_collect(work, req, config, out, workload, kos)

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



def make_report(out, build_dir, title):
    """Place the module's .gcda next to its .gcno, run lcov and genhtml.
    Returns False, and makes nothing, when no .gcda came back."""
    if not report.place_gcda(os.path.join(out, "gcda"), build_dir):
        return False
    info, index = report.lcov_report(out, build_dir, title)
    ci = report.ci_reports(out, build_dir)
    report.announce(out, index, info, build_dir, ci)
    return True


def cmd_boot(work, req):
    config, _var, label = pick_kernel(req)
    workload = os.path.abspath(req.workload or os.path.join(VM, "smoke.sh"))
    check_file(workload, "--workload")
    out = check_out(req.out or os.path.join(work.root, "boot-" + config))
    mark_out(out, kernel=config, title="boot of %s" % label)
    prepare_tree(work, req)
    with kbuild.built(work, config):
        return boot_and_collect(work, req, config, out, workload, [])


def cmd_report(work, req):
    out = os.path.abspath(req.out)
    meta = read_marker(out)
    if not meta:
        raise GcovlabError("%s is not the --out of a gcovlab run" % out, EXIT_USAGE)
    if "title" not in meta:
        raise GcovlabError("%s holds no finished module build: nothing to report" % out,
                           EXIT_USAGE)
    if not make_report(out, meta["build"], meta["title"]):
        raise GcovlabError("no .gcda for the module under %s/gcda" % out)
    return 0


def cmd_kernel_report(work, req):
    out = os.path.abspath(req.out)
    if not os.path.isdir(os.path.join(out, "gcda")):
        raise GcovlabError("%s has no gcda/ directory: give the --out of a "
                           "'vm/gcovlab run' or 'boot'" % out, EXIT_USAGE)
    config, _var, label = pick_kernel(req)
    build_dir = work.build_dir(config)
    with kbuild.using(work, config):
        staged, foreign, said = report.kernel_report(out, build_dir, "kernel on %s" % label,
                                                     capture=req.capture)
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
