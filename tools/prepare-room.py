#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Prepare a room's machine the day before a workshop: afterwards every lab
runs without the network and without a cold build.

  tools/prepare-room.py [--list]      (make room)

In order: the Debian packages (./setup.sh), the kernel tree, then for
every lab of labs/index.toml its kernel state built once (the tool's lab
branch, the configuration and variant the lab runs on, so that the
compiler cache holds every object a student's build will ask for), the
mainline kernels (plain and the debug variant of Lab 11), and each
exercise's skeleton made and checked against the series.  It prints the
time of each step, the total, and the disk the work directory takes, and
leaves the tree on baseline.  --list prints the steps only.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import exercise, labs  # noqa: E402
from gcovlablib.work import Work  # noqa: E402


def steps():
    out = [("Debian packages", ["./setup.sh"]),
           ("kernel tree", ["vm/gcovlab", "tree"]),
           ("mainline kernel", ["vm/gcovlab", "build", "--mainline"]),
           ("mainline debug kernel (Lab 11)",
            ["vm/gcovlab", "build", "--mainline", "--variant", "debug"])]
    seen = set()
    for number, lab in sorted(labs.load().items()):
        if lab["kernel"] != "series":
            continue
        key = (lab.get("patches"), lab.get("lab_patch"), lab.get("variant"))
        if key in seen:
            continue        # labs 2-4 share one state
        seen.add(key)
        out.append(("Lab %d kernel (%s)%s" % (
            number, labs.kernel_config(number),
            ", fails at the link as the page says" if lab.get("build_fails") else ""),
            ["vm/gcovlab", "build", "--lab", str(number)]))
        if lab.get("build_fails"):
            # The failing build stops early; the page then fixes the tree
            # and builds the whole kernel on the next lab's patches (Lab 9:
            # patch 0010, run --tree --variant all).  Build that once too,
            # or the student's first full build of it is a cold one.
            out.append(("Lab %d kernel after its fixes: Lab %d's patches" % (
                number, number + 1), ["vm/gcovlab", "lab", str(number + 1)]))
            out.append(("Lab %d kernel after its fixes: the build" % number,
                        ["vm/gcovlab", "build", "--tree"] +
                        (["--variant", lab["variant"]] if lab.get("variant") else [])))
    out.append(("back to the baseline", ["vm/gcovlab", "lab", "0"]))
    # Lab 1 builds the baseline first, in build/lab-baseline
    out.append(("baseline kernel (Lab 1's first build)", ["vm/gcovlab", "build", "--tree"]))
    return out


def disk(path):
    proc = subprocess.run(["du", "-sh", path], capture_output=True, text=True)
    return proc.stdout.split("\t")[0] if proc.returncode == 0 else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print the steps only")
    args = ap.parse_args()
    plan = steps()
    if args.list:
        for name, cmd in plan:
            print("%-40s %s" % (name, " ".join(cmd)))
        print("%-40s labs %s" % ("exercise skeletons", ", ".join(
            str(n) for n in exercise.available())))
        return 0
    start = time.monotonic()
    for name, cmd in plan:
        t = time.monotonic()
        print("prepare-room: %s: %s" % (name, " ".join(cmd)), flush=True)
        proc = subprocess.run(cmd, cwd=REPO)
        if proc.returncode == 125 and name.endswith("as the page says"):
            print("prepare-room: %s: the build stopped where Lab 9 says; its objects "
                  "are in the compiler cache" % name, flush=True)
        elif proc.returncode:
            print("prepare-room: %s failed (exit %d); fix what it says and run "
                  "tools/prepare-room.py again: the steps done are not redone "
                  "(builds are incremental)" % (name, proc.returncode), file=sys.stderr)
            return proc.returncode
        print("prepare-room: %s: %d s" % (name, time.monotonic() - t), flush=True)
    work = Work()
    for number in exercise.available():
        ex = exercise.load(number)
        for todo in ex["todo"]:
            todo["lab"] = number
        # makes branch lab-N if no build made it (Lab 6 builds no kernel)
        subprocess.run(["vm/gcovlab", "lab", str(number)], cwd=REPO, check=True,
                       capture_output=True)
        exercise.skeleton(exercise.finished_files(work, number, ex), ex["todo"])
        print("prepare-room: Lab %d's exercise skeleton: %d TODOs, made from the series" % (
            number, len(ex["todo"])))
    subprocess.run(["vm/gcovlab", "lab", "0"], cwd=REPO, check=True, capture_output=True)
    print("prepare-room: done in %d min %d s; the work directory %s takes %s "
          "(free on its disk: %d GiB)" % (
              (time.monotonic() - start) // 60, (time.monotonic() - start) % 60,
              work.root, disk(work.root), shutil.disk_usage(work.root).free // 2**30))
    return 0


if __name__ == "__main__":
    sys.exit(main())
