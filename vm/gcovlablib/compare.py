# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab compare: a lab's .gcda files against mainline's, the oracle."""

import difflib
import os
import re
import shutil

from . import labs
from .runs import Request, cmd_run
from .util import EXIT_USAGE, GcovlabError, probe, say


def gcov_dump(path):
    proc = probe(["gcov-dump", "-l", path])
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
    status = cmd_run(work, Request(mainline=mainline, lab=lab, **common))
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


def cmd_compare(work, req):
    config = labs.kernel_config(req.lab)
    if config.is_mainline:
        raise GcovlabError("--lab %d is the mainline kernel itself; name a series lab"
                           % req.lab, EXIT_USAGE)
    variant = config.variant
    out = os.path.abspath(req.out)
    common = dict(module=req.module, workload=req.workload, out=out, tree=False,
                  random_seed=req.random_seed, timeout=req.timeout, accel=req.accel,
                  append=req.append, module_v2=None)
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
    say("lab %d" % req.lab)
    mine = run_for_compare(work, out, common, False, req.lab)
    atomic = profile_update(os.path.join(out, "build"))
    if atomic_ref != atomic:
        say("counter updates: mainline compiled the module with %s, lab %d with %s" % (
            atomic_ref or "plain (non-atomic) updates", req.lab,
            atomic or "plain (non-atomic) updates"))

    a, b = gcda_files(ref), gcda_files(mine)
    if not a:
        raise GcovlabError("no .gcda came back from the mainline run")
    bad = same = checksum_only = 0
    # The module's files are under OUT/build on both kernels.  A file only
    # one kernel has outside it is one of that kernel's own profiled
    # objects (the series' KUnit test objects, kernel/gcov/test_profiled*,
    # from patch 0008 on): the kernels differ there by design, so it is
    # named and not compared.
    module_dir = os.path.join(out, "build").lstrip("/") + "/"
    for rel in sorted(set(a) | set(b)):
        # the object's .gcda name, the path debugfs mirrors under gcov/
        name = "/" + rel
        if (rel not in b or rel not in a) and not rel.startswith(module_dir):
            print("the kernel's own, only in %s (not compared): %s" % (
                "mainline" if rel in a else "lab %d" % req.lab, name))
            continue
        if rel not in b or rel not in a:
            print("only in %s: %s" % ("mainline" if rel in a else "lab %d" % req.lab, name))
            bad += 1
            continue
        x, y = read_bytes(os.path.join(ref, rel)), read_bytes(os.path.join(mine, rel))
        if x == y:
            print("identical (%d bytes): %s" % (len(x), name))
            same += 1
            continue
        if len(x) == len(y) > 16 and x[:12] == y[:12] and x[16:] == y[16:] and \
                x[12:16] == bytes(4):
            # The header's checksum word: mainline writes 0, the series
            # (since v3) the object's, as libgcov does.
            print("identical but for the header's checksum word (%d bytes; mainline "
                  "writes 0 there): %s" % (len(x), name))
            same += 1
            checksum_only += 1
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
                  name, len(x), len(y), req.lab, "" if steady else " and counts"))
        diff = difflib.unified_diff(mx, my, "mainline", "lab %d" % req.lab,
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:40]))
    equal = len(a) - bad - same if bad <= len(a) - same else 0
    say("%d of %d .gcda file%s identical to mainline's%s%s%s" % (
        same, len(a), "" if len(a) == 1 else "s",
        " (%d but for the header's checksum word)" % checksum_only if checksum_only else "",
        ", %d with equal records once masked" % equal if equal else "",
        ", %d different" % bad if bad else ""))
    return 1 if bad else 0
