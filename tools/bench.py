#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/bench.py - time what a student and the tests wait for (make bench).

Each figure is measured several times (--runs) and printed as min /
median / max; with --save DIR each figure's samples also go to
DIR/<figure>.json, with the machine they were measured on, for the site's
"Performance and cost" page (docs/bench/ is what the page reads).

Figures (--only picks some; the default is all but the cold demo):

  demo         a warm 'make demo'; with --cold also one 'make demo' in a
               fresh, empty work directory (tree, builds and ccache: minutes)
  edit         edit the sample driver, get the new report (vm/gcovlab run)
  switch       vm/gcovlab lab N -> N+1 -> N (4 and 5), baseline -> lab 1 ->
               baseline, each followed by 'vm/gcovlab build --tree'
  transfer     a single-module run and a whole-kernel run (mainline, with
               and without CONFIG_GCOV_PROFILE_ALL): guest time split into
               boot, workload and sending the .gcda files, the file count,
               the bzImage size; after each whole-kernel run, its
               'vm/gcovlab kernel-report' (lcov and genhtml over the kernel)
  report       the whole-kernel report (vm/gcovlab kernel-report) of one
               mainline whole-kernel run, both ways: --capture geninfo
               (lcov's geninfo, one gcov per object: the way before) and
               the default, one gcov per core in its JSON format
               (vm/gcovlablib/gcovjson.py), each split into the capture
               and genhtml; the two kernel.info files are compared record
               by record and the two HTML trees page by page (the figure
               stops if they differ); then how each step grows with the
               number of objects: 1, 100, all, and all twice over
  kunit        vm/gcovlab kunit on mainline: the same suite again (nothing
               to build), and a new suite on the warm kunit kernel (its
               option merged, the kernel configured and rebuilt: cmdline
               and list_sort by turns), each split into configure, make,
               guest and the rest (kunit.py, lcov, genhtml, gcovr)
  atomic       Lab 10's gcovrace on two vCPUs: plain counters (patches
               1-10) against atomic ones (patch 0011): run time and the
               increments lost
  suite        the last whole 'make check' on this machine (it measures
               nothing itself: it reads the record make check leaves in
               the work directory, check-run.json): its time, each
               process's, and its ten slowest tests; saved as suite-cold
               or suite-warm, after what the work directory held when
               that run started

Nothing is asserted about speed: the tests assert behaviour, this prints
figures.  The kernel tree must be clean (the switch and atomic figures
move it, and put it back on the branch it was on).
"""

import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
GCOVLAB = os.path.join(REPO, "vm", "gcovlab")
DRIVER = os.path.join(REPO, "labs", "driver")
LAB10 = os.path.join(REPO, "labs", "lab10")
FIGURES = ("demo", "edit", "switch", "transfer", "report", "kunit", "atomic", "suite")


sys.path.insert(0, os.path.join(REPO, "vm"))
from gcovlablib import gcovjson, report  # noqa: E402


class BenchError(Exception):
    pass


def say(msg):
    print("bench: %s" % msg, flush=True)


def sh(cmd, cwd=REPO, env=None, check=True):
    """Run cmd; return (seconds, stdout+stderr).  A failure names the step."""
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, text=True, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    took = time.monotonic() - start
    if check and proc.returncode != 0:
        raise BenchError("%s failed (exit %d); its last lines:\n%s" % (
            " ".join(cmd), proc.returncode, "\n".join(proc.stdout.splitlines()[-15:])))
    return took, proc.stdout


def gcovlab(*args, env=None):
    return sh([GCOVLAB] + [str(a) for a in args], env=env)


def work_dir():
    return os.environ.get("GCOVLAB_WORK") or os.path.join(
        os.path.expanduser("~"), ".cache", "gcov-kernel-labs")


def tree_git(*args):
    _t, out = sh(["git", "-C", os.path.join(work_dir(), "linux")] + list(args))
    return out.strip()


def machine():
    """The machine the figures were measured on."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M).group(1)
    except (OSError, AttributeError):
        pass
    with open("/proc/meminfo", encoding="utf-8") as f:
        mem = int(re.search(r"^MemTotal:\s*(\d+)", f.read(), re.M).group(1)) // 1024 // 1024
    try:
        with open("/etc/debian_version", encoding="utf-8") as f:
            debian = f.read().strip()
    except OSError:
        debian = "?"

    def first_line(cmd):
        try:
            return subprocess.run(cmd, text=True, capture_output=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "?"
    return {"cpu": model, "cores": os.cpu_count(), "memory_gib": mem,
            "debian": debian, "host_kernel": platform.release(),
            "qemu": first_line(["qemu-system-x86_64", "--version"]),
            "gcc": first_line(["gcc", "--version"]), "accel": "TCG"}


class Figure:
    """Samples of one figure: label -> list of numbers (with a unit)."""

    def __init__(self, name, title):
        self.name, self.title = name, title
        self.series = {}
        self.units = {}
        self.notes = []
        # when and at which commit, where the figure was measured earlier
        # (suite: by the make check it reads); None: now, HEAD
        self.measured = self.commit = None
        # why the figure must not be saved (None: it may)
        self.refused = None

    def add(self, label, value, unit="s"):
        self.series.setdefault(label, []).append(value)
        self.units[label] = unit

    def print(self):
        print("\n%s" % self.title)
        width = max(len(k) for k in self.series) if self.series else 0
        for label, values in self.series.items():
            unit = self.units[label]
            fmt = "%.1f" if unit in ("s", "min") else "%.0f" if unit in ("bytes", "files", "calls",
                                                               "tests") \
                else "%.2f"
            print("  %-*s  min %s / median %s / max %s %s (%d run%s)" % (
                width, label, fmt % min(values), fmt % statistics.median(values),
                fmt % max(values), unit, len(values), "" if len(values) == 1 else "s"))
        for note in self.notes:
            print("  %s" % note)

    def save(self, directory, runs, command):
        os.makedirs(directory, exist_ok=True)
        data = {"figure": self.name, "title": self.title,
                "measured": self.measured or datetime.datetime.now(
                    datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "commit": self.commit or subprocess.run(
                    ["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                    text=True, capture_output=True).stdout.strip(),
                "command": command, "runs": runs, "machine": machine(),
                "series": [{"label": k, "unit": self.units[k], "values": v}
                           for k, v in self.series.items()],
                "notes": self.notes}
        path = os.path.join(directory, self.name + ".json")
        with open(path + ".new", "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(path + ".new", path)
        say("saved %s" % os.path.relpath(path, REPO))


# ---------------------------------------------------------------- figures

def phase(text):
    """A step's name as the tool printed it, without the paths of this run."""
    return re.sub(r" (at|in) /\S+", "", text)


def demo_phases(out):
    """The steps make demo timed, in its output: (what, seconds).  The tool
    prints a time under a minute as '12.3 s', a longer one as '4 min 02 s'."""
    found = []
    for line in out.splitlines():
        m = re.search(r"gcovlab: (.*?): done in (?:(\d+) min )?([\d.]+) s", line) or \
            re.search(r"gcovlab: (built the \S+ kernel) in (?:(\d+) min )?([\d.]+) s", line)
        if m:
            found.append((phase(m.group(1)), 60 * int(m.group(2) or 0) + float(m.group(3))))
    return found


def fig_demo(runs, cold):
    fig = Figure("demo", "make demo: the tree, the mainline kernel, the sample driver's report")
    if cold:
        tmp = tempfile.mkdtemp(prefix="gcovlab-cold.")
        say("cold make demo in GCOVLAB_WORK=%s (empty: no tree, no builds, no ccache) ..." % tmp)
        env = dict(os.environ, GCOVLAB_WORK=tmp)
        try:
            took, out = sh(["make", "-s", "demo"], env=env)
            fig.add("cold make demo", took)
            for what, secs in demo_phases(out):
                fig.add("cold: " + what, secs)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    sh(["make", "-s", "demo"])      # warm-up: the tree and kernel exist after it
    for i in range(runs):
        say("warm make demo, run %d of %d ..." % (i + 1, runs))
        fig.add("warm make demo", sh(["make", "-s", "demo"])[0])
    return fig


def fig_edit(runs):
    fig = Figure("edit", "Edit the sample driver -> new report (vm/gcovlab run, mainline)")
    tmp = tempfile.mkdtemp(prefix="gcovlab-edit.")
    try:
        src = os.path.join(tmp, "driver")
        os.mkdir(src)
        for name in ("gcovdemo.c", "Kbuild", "workload-basic.sh"):
            shutil.copy(os.path.join(DRIVER, name), src)
        args = ["run", "--mainline", "--module", src, "--workload",
                os.path.join(src, "workload-basic.sh"), "--out", os.path.join(tmp, "out")]
        gcovlab(*args)
        path = os.path.join(src, "gcovdemo.c")
        for i in range(runs):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            anchor = '\tpr_info("ready: /dev/%s\\n", gcovdemo_dev.name);\n'
            if anchor not in text:
                raise BenchError("the sample driver changed: no ready line to edit after")
            text = text.replace(anchor, anchor + '\tpr_info("edit %d\\n");\n' % i, 1)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            say("edit %d of %d -> new report ..." % (i + 1, runs))
            took, out = gcovlab(*args)
            with open(os.path.join(tmp, "out", "console.log"), encoding="utf-8",
                      errors="replace") as f:
                if "edit %d" % i not in f.read():
                    raise BenchError("the edited driver did not run in the guest")
            fig.add("edit -> new report", took)
            m = re.search(r"guest finished in ([\d.]+) s", out)
            if m:
                fig.add("of which the guest", float(m.group(1)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return fig


def check_tree_clean():
    if tree_git("status", "--porcelain"):
        raise BenchError("the kernel tree has uncommitted changes; the switch and atomic "
                         "figures move it.  Commit or stash them first (git -C %s "
                         "status)" % os.path.join(work_dir(), "linux"))
    return tree_git("rev-parse", "--abbrev-ref", "HEAD")


def back_to(branch):
    if branch.startswith("lab-") and branch[4:].isdigit():
        gcovlab("lab", branch[4:])
    else:
        tree_git("switch", "-q", branch)


def move(label, fig, *steps):
    """Time one lab switch: the tool's command, then the kernel build."""
    start = time.monotonic()
    for step in steps:
        gcovlab(*step)
    fig.add(label, time.monotonic() - start)


def fig_switch(runs):
    fig = Figure("switch", "Lab switch, warm: vm/gcovlab lab N, then vm/gcovlab build --tree")
    start_branch = check_tree_clean()
    try:
        for number in ("4", "5", "1"):     # warm-up: every state built once
            gcovlab("lab", number)
            gcovlab("build", "--tree")
        tree_git("switch", "-q", "baseline")
        gcovlab("build", "--tree")
        for i in range(runs):
            say("lab switch, run %d of %d ..." % (i + 1, runs))
            gcovlab("lab", "4")
            gcovlab("build", "--tree")
            move("lab 4 -> lab 5", fig, ("lab", "5"), ("build", "--tree"))
            move("lab 5 -> lab 4", fig, ("lab", "4"), ("build", "--tree"))
            tree_git("switch", "-q", "baseline")
            gcovlab("build", "--tree")
            move("baseline -> lab 1", fig, ("lab", "1"), ("build", "--tree"))
            start = time.monotonic()
            tree_git("switch", "-q", "baseline")
            gcovlab("build", "--tree")
            fig.add("lab 1 -> baseline", time.monotonic() - start)
    finally:
        back_to(start_branch)
    return fig


def guest_times(out):
    """(boot, workload, sending) in seconds, from the guest's uptime marks."""
    with open(os.path.join(out, "transfer.log"), encoding="utf-8", errors="replace") as f:
        m = re.search(r"^GCOVLAB-TIMES ([\d.]+) ([\d.]+) ([\d.]+)", f.read(), re.M)
    if not m:
        raise BenchError("%s/transfer.log has no GCOVLAB-TIMES line (an older vm/init.sh?)"
                         % out)
    started, ended, sent = (float(x) for x in m.groups())
    return started, ended - started, sent - ended


def bzimage(config):
    return os.path.join(work_dir(), "build", config, "arch", "x86", "boot", "bzImage")


def fig_transfer(runs):
    fig = Figure("transfer", "A run's guest time (mainline kernel, the sample driver's "
                 "basic workload): boot, workload, sending the .gcda files")
    tmp = tempfile.mkdtemp(prefix="gcovlab-transfer.")
    try:
        for variant, label in ((None, "single module"), ("all", "whole kernel")):
            extra = ["--variant", variant] if variant else []
            args = ["run", "--mainline", *extra, "--module", DRIVER, "--workload",
                    os.path.join(DRIVER, "workload-basic.sh"), "--out",
                    os.path.join(tmp, "out")]
            gcovlab(*args)      # builds what is missing, outside the timing
            for i in range(runs):
                say("%s run %d of %d ..." % (label, i + 1, runs))
                took, out = gcovlab(*args)
                boot, workload, sending = guest_times(os.path.join(tmp, "out"))
                files = int(re.search(r"(\d+) \.gcda files? received", out).group(1))
                guest = float(re.search(r"guest finished in ([\d.]+) s", out).group(1))
                fig.add("%s: vm/gcovlab run" % label, took)
                fig.add("%s: guest, QEMU start to exit" % label, guest)
                fig.add("%s: boot to /init's workload" % label, boot)
                fig.add("%s: workload" % label, workload)
                fig.add("%s: sending the .gcda files" % label, sending)
                fig.add("%s: .gcda files" % label, files, "files")
                if variant:
                    # what Lab 9's reader waits for next: the whole-kernel
                    # report.  It exits 1 when gcov or lcov warned: the time
                    # still counts, and the figure says so.
                    took, out = sh([GCOVLAB, "kernel-report", "--out",
                                    os.path.join(tmp, "out"), "--mainline", "--variant",
                                    variant], check=False)
                    fig.add("%s: vm/gcovlab kernel-report" % label, took)
                    if "no warning from gcov, lcov or genhtml" not in out:
                        note = ("kernel-report did not say 'no warning from gcov, lcov or "
                                "genhtml': %s" % " / ".join(out.strip().splitlines()[-3:]))
                        if note not in fig.notes:
                            fig.notes.append(note)
            config = "mainline-all" if variant else "mainline"
            fig.add("%s: bzImage" % label, os.stat(bzimage(config)).st_size, "bytes")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return fig


# genhtml's pages carry the time they were made, and its sorted views
# (index-sort-*.html, *.func-sort-c.html) order rows of equal keys as Perl's
# hashes come out: two genhtml runs on one tracefile differ there.
HTML_DATE = re.compile(r'(<td class="headerValue">)\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(</td>)')
# a row of a page's table (a coverage bar's own table stays on one line)
HTML_ROW = re.compile(r"\n    <tr>\n.*?\n    </tr>", re.S)


def html_rows(path):
    """A genhtml page as compared: the date masked; in a sorted view, its
    table rows as a sorted list (the same rows, in any order of ties)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = HTML_DATE.sub(r"\1DATE\2", f.read())
    if "-sort-" in os.path.basename(path):
        rows = HTML_ROW.findall(text)
        return [HTML_ROW.sub("\n<row>", text)] + sorted(rows)
    return [text]


def html_differences(old, new):
    """(pages compared, pages that differ) between two genhtml trees."""
    def pages(root):
        return sorted(os.path.relpath(os.path.join(d, f), root)
                      for d, _s, fs in os.walk(root) for f in fs)
    names = pages(old)
    if names != pages(new):
        return len(names), sorted(set(names) ^ set(pages(new)))
    return len(names), [n for n in names if n.endswith(".html") and
                        html_rows(os.path.join(old, n)) != html_rows(os.path.join(new, n))]


def loadavg():
    with open("/proc/loadavg", encoding="utf-8") as f:
        return float(f.read().split()[0])


def children_cpu():
    """User and system seconds of the finished children: what a command
    cost the machine, whatever else ran beside it."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report_steps(out):
    """(capture, genhtml) seconds from kernel-report's step lines."""
    steps = dict(demo_phases(out))
    capture = [v for k, v in steps.items() if " kernel objects" in k]
    if not capture or "genhtml" not in steps:
        raise BenchError("kernel-report printed no capture or genhtml step:\n%s" % out[-1500:])
    return capture[0], steps["genhtml"]


def timed(fn, *args):
    start = time.monotonic()
    fn(*args)
    return time.monotonic() - start


def fig_report(runs):
    fig = Figure("report", "The whole-kernel report (vm/gcovlab kernel-report, mainline, "
                 "CONFIG_GCOV_PROFILE_ALL): lcov's geninfo against gcov's JSON")
    tmp = tempfile.mkdtemp(prefix="gcovlab-report.")
    out = os.path.join(tmp, "out")
    kernel = ["--mainline", "--variant", "all"]
    ways = (("geninfo", "geninfo (before)"), ("gcov", "gcov JSON (now)"))
    try:
        gcovlab("run", *kernel, "--module", DRIVER, "--workload",
                os.path.join(DRIVER, "workload-basic.sh"), "--out", out, "--timeout", "600")
        for i in range(runs):
            say("kernel-report both ways, run %d of %d ..." % (i + 1, runs))
            fig.add("load average (1 min) when the run started", loadavg(), "load")
            for way, label in ways:
                cpu = children_cpu()
                took, text = gcovlab("kernel-report", "--out", out, *kernel, "--capture", way)
                fig.add("CPU time (user + sys), %s" % label, children_cpu() - cpu)
                if "no warning from gcov, lcov or genhtml" not in text:
                    raise BenchError("kernel-report --capture %s warned:\n%s" % (way, text))
                capture, genhtml = report_steps(text)
                fig.add("kernel-report, %s" % label, took)
                fig.add("%s: capture" % label, capture)
                fig.add("%s: genhtml" % label, genhtml)
                if i == 0:
                    # keep each way's results for the comparison below
                    for name in ("kernel.info", "kernel-html"):
                        os.rename(os.path.join(out, name), os.path.join(tmp, way + "-" + name))
            if i == 0:
                old = gcovjson.tracefile_records(os.path.join(tmp, "geninfo-kernel.info"))
                new = gcovjson.tracefile_records(os.path.join(tmp, "gcov-kernel.info"))
                if old != new:
                    raise BenchError("the two kernel.info files differ (kept in %s)" % tmp)
                pages, differ = html_differences(os.path.join(tmp, "geninfo-kernel-html"),
                                                 os.path.join(tmp, "gcov-kernel-html"))
                if differ:
                    raise BenchError("the two HTML reports differ: %s (kept in %s)" % (
                        ", ".join(differ[:5]), tmp))
                fig.notes.append(
                    "Same content both ways: the two kernel.info files have the same %d "
                    "records (sorted; %d TN: lines each), the two kernel-html trees the "
                    "same %d files (pages compared with genhtml's date masked, and the "
                    "rows of its sorted views as a set: genhtml orders rows of equal keys "
                    "differently from one run to the next on one tracefile)." % (
                        len(new[1]), sum(new[0].values()), pages))
                for name in os.listdir(tmp):
                    if name.startswith(("geninfo-", "gcov-")):
                        path = os.path.join(tmp, name)
                        (shutil.rmtree if os.path.isdir(path) else os.remove)(path)
            growth(fig, out, tmp)
        fig.add("kernel objects", len(staged_gcda(out)), "files")
        fig.notes.append(
            "Growth: the capture alone, called in-process on the first N staged "
            "objects (sorted by path), and genhtml on its tracefile; 'twice over' is "
            "the same objects again under a second directory, as a larger kernel "
            "would have more of them (no larger whole-kernel configuration is built "
            "here). Load average at each run's start: the machine is shared; figures "
            "measured under load are slower.")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return fig


def staged_gcda(out):
    stage = os.path.join(out, "kernel-data")
    return sorted(os.path.join(d, f) for d, _s, fs in os.walk(stage)
                  for f in fs if f.endswith(".gcda"))


def growth(fig, out, tmp):
    """Each way's capture and genhtml on 1, 100, all and twice all objects."""
    gcda = staged_gcda(out)
    twice = os.path.join(tmp, "twice")
    if not os.path.isdir(twice):
        shutil.copytree(os.path.join(out, "kernel-data"), twice)
    sets = [("1 object", gcda[:1]), ("100 objects", gcda[:100]),
            ("%d objects" % len(gcda), gcda),
            ("%d objects (all twice over)" % (2 * len(gcda)),
             gcda + [os.path.join(twice, os.path.relpath(g, os.path.join(out, "kernel-data")))
                     for g in gcda])]
    log = os.path.join(tmp, "growth.log")
    for what, files in sets:
        for way, label in (("geninfo", "geninfo"), ("gcov", "gcov JSON")):
            info = os.path.join(tmp, "growth-%s.info" % way)
            if way == "geninfo":
                took = timed(report.capture_kernel, files, "t", info, log)
            else:
                took = timed(gcovjson.capture, files, "t", info, log)
            fig.add("growth, %s: %s" % (label, what), took)
        html = os.path.join(tmp, "growth-html")
        took = timed(report.run_filtered, ["genhtml", "--quiet", "--branch-coverage",
                                           "--output-directory", html, info], log)
        shutil.rmtree(html)
        fig.add("growth, genhtml: %s" % what, took)


KUNIT_SUITES = (("cmdline", "lib/cmdline.c"), ("list_sort", "lib/list_sort.c"))


def kunit_steps(fig, kind, took, out):
    """Add a kunit run's time and its parts, as the tool printed them."""
    fig.add("%s: vm/gcovlab kunit" % kind, took)
    parts = {"configure": r"configuring mainline-kunit kernel: .*: done in ([\d.]+) s",
             "make": r"built the mainline-kunit kernel in ([\d.]+) s",
             "guest": r"guest finished in ([\d.]+) s"}
    for name, pattern in parts.items():
        m = re.search(pattern, out)
        if m:
            fig.add("%s: of which %s" % (kind, name), float(m.group(1)))
    m = re.search(r"\((\d+) files? compiled\)", out)
    if m:
        fig.add("%s: files compiled" % kind, int(m.group(1)), "files")


def fig_kunit(runs):
    fig = Figure("kunit", "vm/gcovlab kunit on mainline: the same suite again, and a new "
                 "suite on the warm kunit kernel")
    tmp = tempfile.mkdtemp(prefix="gcovlab-kunit.")
    try:
        def run(suite, cover, name):
            return gcovlab("kunit", "--mainline", "--suite", suite, "--cover", cover,
                           "--out", os.path.join(tmp, name))
        run(*KUNIT_SUITES[0], "warm")
        for i in range(runs):
            suite, cover = KUNIT_SUITES[(i + 1) % 2]
            say("kunit %d of %d: %s, a new suite for the kunit kernel ..." % (i + 1, runs, suite))
            took, out = run(suite, cover, "new-%d" % i)
            if "built the mainline-kunit kernel" not in out:
                raise BenchError("a new suite did not rebuild the kunit kernel")
            kunit_steps(fig, "new suite", took, out)
            say("kunit %d of %d: %s again ..." % (i + 1, runs, suite))
            took, out = run(suite, cover, "again-%d" % i)
            if "mainline-kunit kernel is up to date" not in out:
                raise BenchError("the same suite again rebuilt the kunit kernel")
            kunit_steps(fig, "same suite again", took, out)
        fig.notes.append("load average at the end: %s" % loadavg())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return fig


def race(out):
    with open(os.path.join(out, "console.log"), encoding="utf-8", errors="replace") as f:
        m = re.search(r"gcovrace: (\d+) CPUs x (\d+) calls = (\d+) calls", f.read())
    with open(os.path.join(out, "lcov.info"), encoding="utf-8") as f:
        fnda = re.search(r"^FNDA:(\d+),gcovrace_hit$", f.read(), re.M)
    if not m or not fnda:
        raise BenchError("gcovrace did not report its calls, or lcov has no count for "
                         "gcovrace_hit (see %s/console.log)" % out)
    return int(m.group(3)), int(fnda.group(1))


def fig_atomic(runs):
    fig = Figure("atomic", "Lab 10's gcovrace on two vCPUs (MTTCG): plain counters "
                 "(patches 1-10) against atomic ones (patch 0011)")
    start_branch = check_tree_clean()
    tmp = tempfile.mkdtemp(prefix="gcovlab-atomic.")
    patch = sorted(p for p in os.listdir(os.path.join(REPO, "patches")) if p.startswith("0011-"))
    branch = "gcovlab-bench-atomic"
    try:
        args = ["--module", LAB10, "--workload", os.path.join(LAB10, "workload.sh"),
                "--out", os.path.join(tmp, "out")]
        for kind in ("plain", "atomic"):
            if kind == "plain":
                gcovlab("lab", "10")
                run = ["run", "--lab", "10"] + args
            else:
                tree_git("switch", "-q", "-C", branch, "lab-10")
                tree_git("-c", "user.name=gcov-kernel-labs bench",
                         "-c", "user.email=bench@gcov-kernel-labs.invalid",
                         "am", "-q", os.path.join(REPO, "patches", patch[0]))
                run = ["run", "--tree", "--variant", "smp"] + args
            gcovlab(*run)       # build outside the timing
            for i in range(runs):
                say("gcovrace, %s counters, run %d of %d ..." % (kind, i + 1, runs))
                took, out = gcovlab(*run)
                calls, counted = race(os.path.join(tmp, "out"))
                guest = float(re.search(r"guest finished in ([\d.]+) s", out).group(1))
                fig.add("%s: guest time" % kind, guest)
                fig.add("%s: increments lost (share of the calls)" % kind,
                        100.0 * (calls - counted) / calls, "%")
                fig.add("%s: calls counted" % kind, counted, "calls")
            note = "calls made in each run: %d" % calls
            if note not in fig.notes:
                fig.notes.append(note)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        back_to(start_branch)
        sh(["git", "-C", os.path.join(work_dir(), "linux"), "branch", "-q", "-D", branch],
           check=False)
    return fig


def fig_suite(work=None):
    """The last whole make check's record, as a figure (None: no record).
    A run that failed, or that started from a work directory neither empty
    nor built (check.work_state), is printed but not saved."""
    work = work or work_dir()
    path = os.path.join(work, "check-run.json")
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        kind, seconds = record["work"], float(record["seconds"])
        streams, slowest = record["streams"], record["slowest"]
        passed, failed, codes = record["passed"], record["failed"], record["exit"]
    except OSError:
        say("suite: no record of a whole 'make check' in %s (check-run.json): "
            "run 'make check' first" % work)
        return None
    except (ValueError, KeyError, TypeError) as e:
        raise BenchError("%s is not a record make check wrote (%s): run 'make check' "
                         "again" % (path, e)) from None
    fig = Figure("suite-" + kind, "make check %s: %s" % (kind, {
        "cold": "from an empty work directory (tree, kernels, ccache: all made)",
        "warm": "with a work directory an earlier make check built",
        "partial": "from a work directory neither empty nor built"}.get(kind, kind)))
    fig.measured, fig.commit = record.get("started"), record.get("commit")
    fig.add("make check, both processes", seconds / 60, "min")
    for stream, what in (("tree", "the tests that move the kernel tree (first process)"),
                         ("other", "the other tests (second process)")):
        if streams.get(stream) is not None:
            fig.add(what, streams[stream] / 60, "min")
    fig.add("tests passed", passed, "tests")
    fig.add("tests failed", failed, "tests")
    for secs, test in slowest:          # check.py keeps the ten slowest
        fig.add("slowest: " + test, float(secs))
    if failed or any(codes):
        fig.refused = ("this make check failed (%d failed, exit statuses %s): its times "
                       "are not a figure of the suite" % (failed, codes))
    elif kind not in ("cold", "warm"):
        fig.refused = ("this make check started from a work directory neither empty "
                       "nor built: neither a cold nor a warm figure")
    return fig


def positive(text):
    if not text.isdigit() or int(text) == 0:
        raise argparse.ArgumentTypeError("a whole number above 0, not %r" % text)
    return int(text)


def figures(text):
    names = [x for x in text.split(",") if x]
    bad = [x for x in names if x not in FIGURES]
    if bad or not names:
        raise argparse.ArgumentTypeError("figures are %s, not %r" % (", ".join(FIGURES), text))
    return names


def main(argv=None):
    p = argparse.ArgumentParser(prog="tools/bench.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=positive, default=5,
                   help="measure each figure this many times (default 5)")
    p.add_argument("--cold", action="store_true",
                   help="also one cold 'make demo' in a fresh work directory")
    p.add_argument("--only", type=figures, default=list(FIGURES),
                   help="comma-separated figures: %s" % ",".join(FIGURES))
    p.add_argument("--save", metavar="DIR",
                   help="write each figure's samples to DIR/<figure>.json "
                        "(docs/bench is what the site shows)")
    args = p.parse_args(argv)
    command = "tools/bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    try:
        for name in args.only:
            fig = {"demo": lambda: fig_demo(args.runs, args.cold),
                   "edit": lambda: fig_edit(args.runs),
                   "switch": lambda: fig_switch(args.runs),
                   "transfer": lambda: fig_transfer(args.runs),
                   "report": lambda: fig_report(args.runs),
                   "kunit": lambda: fig_kunit(args.runs),
                   "atomic": lambda: fig_atomic(args.runs),
                   "suite": fig_suite}[name]()
            if fig is None:
                continue
            fig.print()
            if args.save and fig.refused:
                say("not saved: %s" % fig.refused)
            elif args.save and fig.name.startswith("suite-"):
                fig.save(args.save, 1, "make check, then tools/bench.py --only suite "
                         "--save %s" % args.save)
            elif args.save:
                fig.save(args.save, args.runs, command.strip())
    except BenchError as e:
        print("bench: error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
