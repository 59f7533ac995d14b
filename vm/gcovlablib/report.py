# SPDX-License-Identifier: GPL-2.0
"""From collected .gcda files to lcov.info, an HTML report and a summary."""

import concurrent.futures
import os
import re
import shutil

from . import gcovjson
from .util import GcovlabError, Step, probe, say

# Debian's lcov 1.16 prints these Perl warnings on every run; they are its
# own and say nothing about the data.  Only lines of exactly this shape are
# dropped; anything else lcov or gcov says is shown.
def lcov_noise(line):
    return line.startswith("Subroutine ") and " redefined at " in line


# lcov 1.16 leaves the branch records (BRDA) out unless asked.
BRANCHES = ["--rc", "lcov_branch_coverage=1"]


def test_name(title):
    """lcov's --test-name takes letters, digits and _ only."""
    return re.sub(r"\W+", "_", title).strip("_")


def place_gcda(gcda_root, build_dir):
    """Copy the module's .gcda next to its .gcno in the build directory.

    In debugfs a module object's data sits at gcov/<absolute build path>/,
    so the copy below gcda/ mirrors the host path of the build directory.
    Where kbuild left a .gcda link (Lab 8 on), the link is pointed at the
    copy instead.
    """
    mirrored = os.path.join(gcda_root, build_dir.lstrip("/"))
    placed = []
    if not os.path.isdir(mirrored):
        return placed
    for dirpath, _d, filenames in os.walk(mirrored):
        for name in filenames:
            if name.endswith(".gcda"):
                src = os.path.join(dirpath, name)
                dst = os.path.join(build_dir, os.path.relpath(src, mirrored))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if os.path.islink(dst):
                    # Patch 0009's kbuild link (to debugfs, which is in the
                    # guest): point it at the copy instead, as "make
                    # gcov_links GCOV_DATA_DIR=OUT/gcda" would; never write
                    # through it.
                    os.unlink(dst)
                    os.symlink(os.path.abspath(src), dst)
                else:
                    shutil.copyfile(src, dst)
                placed.append(dst)
    return sorted(placed)


def run_filtered(cmd, log):
    proc = probe(cmd)
    kept = [line for line in (proc.stdout + "\n" + proc.stderr).split("\n")
            if line and not lcov_noise(line)]
    with open(log, "a", encoding="utf-8") as f:
        f.write("$ %s\n%s\n" % (" ".join(cmd), "\n".join(kept)))
    if proc.returncode != 0:
        raise GcovlabError("%s failed (exit %d):\n%s" % (
            os.path.basename(cmd[0]), proc.returncode, "\n".join(kept[-20:])))
    return kept


def lcov_report(out, build_dir, title):
    info = os.path.join(out, "lcov.info")
    html = os.path.join(out, "html")
    log = os.path.join(out, "lcov.log")
    if os.path.exists(log):
        os.remove(log)
    if os.path.isdir(html):
        shutil.rmtree(html)
    with Step("lcov --capture and genhtml"):
        run_filtered(["lcov", "--capture", "--no-external", "--quiet"] + BRANCHES +
                     ["--directory", build_dir, "--base-directory", build_dir,
                      "--test-name", test_name(title),
                      "--output-file", info], log)
        run_filtered(["genhtml", "--quiet", "--branch-coverage", "--title", title,
                      "--output-directory", html, info], log)
    return info, os.path.join(html, "index.html")


def ci_reports(out, build_dir):
    """The same data for CI systems, from gcovr (which runs gcov itself):
    OUT/coverage.xml (Cobertura) and OUT/coverage.json (gcovr's JSON), the
    sources below BUILD_DIR only, as lcov's --no-external."""
    xml = os.path.join(out, "coverage.xml")
    js = os.path.join(out, "coverage.json")
    for stale in (xml, js):
        if os.path.exists(stale):
            os.remove(stale)
    with Step("gcovr --cobertura and --json"):
        run_filtered(["gcovr", "--root", build_dir, "--object-directory", build_dir,
                      "--gcov-executable", "gcov", "--cobertura", xml, "--json", js,
                      build_dir], os.path.join(out, "gcovr.log"))
    return xml, js


def coverage(info):
    """{source file: (lines hit, lines instrumented, branches taken,
    branches)} from lcov's DA and BRDA records.

    lcov 1.16's --capture writes no LH/LF summary lines, so count DA; a
    BRDA's last field is how often the branch was taken, "-" when the
    code it leaves was never run.
    """
    result = {}
    current = None
    with open(info, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("SF:"):
                current = line[3:]
                result[current] = [0, 0, 0, 0]
            elif line.startswith("DA:") and current:
                count = line[3:].split(",")[1]
                result[current][1] += 1
                if int(count) > 0:
                    result[current][0] += 1
            elif line.startswith("BRDA:") and current:
                taken = line[5:].split(",")[3]
                result[current][3] += 1
                if taken != "-" and int(taken) > 0:
                    result[current][2] += 1
            elif line == "end_of_record":
                current = None
    return {k: tuple(v) for k, v in result.items()}


def percent(part, whole):
    return 100.0 * part / whole if whole else 0.0


def summary_lines(info, build_dir):
    lines = []
    for src, (hit, total, taken, branches) in sorted(coverage(info).items()):
        rel = os.path.relpath(src, build_dir)
        lines.append("%s: lines hit %d / %d (%.1f%%), branches taken %d / %d (%.1f%%)" % (
            rel, hit, total, percent(hit, total), taken, branches, percent(taken, branches)))
    return lines


def announce(out, index, info, build_dir, ci=None):
    lines = summary_lines(info, build_dir)
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    say("HTML report: %s" % index)
    if ci:
        say("for CI systems: %s (Cobertura XML), %s (gcovr JSON)" % ci)
    for line in lines:
        say("coverage, %s" % line)


def stage_kernel_data(gcda_root, build_dir, stage):
    """Copy every .gcda of the kernel build below gcda_root, with the .gcno
    of the same object, into stage (mirroring the build directory).

    Only objects whose data arrived are staged: a .gcno without data would
    make gcov warn.  Returns (the staged .gcda files, sorted; the number of
    .gcda files without a .gcno in build_dir: data of modules built
    elsewhere, left out)."""
    mirrored = os.path.join(gcda_root, build_dir.lstrip("/"))
    if os.path.isdir(stage):
        shutil.rmtree(stage)
    staged, foreign = [], 0
    for dirpath, _d, filenames in os.walk(gcda_root):
        for name in filenames:
            if not name.endswith(".gcda"):
                continue
            src = os.path.join(dirpath, name)
            if not src.startswith(mirrored + os.sep):
                foreign += 1
                continue
            rel = os.path.relpath(src, mirrored)
            gcno = os.path.join(build_dir, rel[:-len(".gcda")] + ".gcno")
            if not os.path.isfile(gcno):
                foreign += 1
                continue
            dst = os.path.join(stage, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            shutil.copyfile(gcno, dst[:-len(".gcda")] + ".gcno")
            staged.append(dst)
    return sorted(staged), foreign


# Below this many objects one geninfo does it all; above, the objects are
# shared out between one geninfo per core (at most four).  geninfo runs gcov
# once per object and parses its output in Perl, on one core: one capture
# of Lab 9's whole kernel (532 objects) took 26 s.  geninfo writes one
# record per source file of each object and never merges them (a header
# used by many objects has a record from each), so the parts, put one
# after the other, hold exactly the records of one 'lcov --capture'
# (which runs geninfo with the options it was given and adds none), and
# lcov and genhtml add up the records of a file as they always do.
# (geninfo counts every file it is handed as internal: were --no-external
# ever wanted here, it would need --base-directory as well.)
PARALLEL_FROM = 64


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def capture_parts(gcda_files, jobs=None):
    """The staged .gcda files in consecutive runs, one run per geninfo."""
    jobs = jobs or min(4, cores())
    if len(gcda_files) < PARALLEL_FROM or jobs < 2:
        return [gcda_files]
    size = -(-len(gcda_files) // jobs)
    return [gcda_files[i:i + size] for i in range(0, len(gcda_files), size)]


def capture_kernel(gcda_files, title, info, log, jobs=None):
    """geninfo over GCDA_FILES, one process per part, into INFO (the parts
    in order).  Returns what geninfo said besides lcov's Perl noise."""
    parts = capture_parts(gcda_files, jobs)
    names = ["%s.part%d" % (info, i) for i in range(len(parts))]
    cmds = [["geninfo", "--quiet"] + BRANCHES +
            ["--test-name", test_name(title), "--output-filename", name] + part
            for name, part in zip(names, parts)]
    try:
        with concurrent.futures.ThreadPoolExecutor(len(cmds)) as pool:
            procs = list(pool.map(probe, cmds))
        said = []
        # every part's output goes to the log first, a failed one's too
        for part, proc in zip(parts, procs):
            kept = [line for line in (proc.stdout + "\n" + proc.stderr).split("\n")
                    if line and not lcov_noise(line)]
            with open(log, "a", encoding="utf-8") as f:
                f.write("$ geninfo ... %s ... %s (%d .gcda files)\n%s\n" % (
                    part[0], part[-1], len(part), "\n".join(kept)))
            said.append(kept)
        for part, proc, kept in zip(parts, procs, said):
            if proc.returncode != 0:
                raise GcovlabError("geninfo failed (exit %d) on the %d .gcda files from %s "
                                   "to %s:\n%s" % (proc.returncode, len(part), part[0],
                                                    part[-1], "\n".join(kept[-20:])))
        said = [line for kept in said for line in kept]
        with open(info + ".tmp", "wb") as dst:
            for name in names:
                with open(name, "rb") as src:
                    shutil.copyfileobj(src, dst)
        os.replace(info + ".tmp", info)
    finally:
        for name in names + [info + ".tmp"]:
            if os.path.exists(name):
                os.remove(name)
    return said


# How kernel_report turns the staged data into OUT/kernel.info: "gcov",
# one gcov per core over all the objects, its JSON turned into geninfo's
# records by gcovjson.py; "geninfo", lcov's geninfo (capture_kernel), one
# gcov per object, the way before, kept for comparison (make bench,
# tests/labs/test_lab09_all.py).  Both give the same records.
CAPTURES = ("gcov", "geninfo")


def kernel_report(out, build_dir, title, capture="gcov"):
    """A tracefile and genhtml over the kernel's own objects: OUT/kernel.info
    and OUT/kernel-html/.  Returns (objects, .gcda files left out, what gcov,
    lcov or genhtml said besides lcov's known Perl noise: warnings that must
    not be there)."""
    if capture not in CAPTURES:
        raise GcovlabError("no capture %r: %s" % (capture, ", ".join(CAPTURES)))
    stage = os.path.join(out, "kernel-data")
    staged, foreign = stage_kernel_data(os.path.join(out, "gcda"), build_dir, stage)
    if not staged:
        raise GcovlabError("no .gcda of the kernel build %s in %s/gcda: was the kernel "
                           "profiled (GCOV := y somewhere, or the 'all' variant)?"
                           % (build_dir, out))
    info = os.path.join(out, "kernel.info")
    html = os.path.join(out, "kernel-html")
    log = os.path.join(out, "kernel-lcov.log")
    for stale in (log, info):
        if os.path.exists(stale):
            os.remove(stale)
    if os.path.isdir(html):
        shutil.rmtree(html)
    if capture == "gcov":
        with Step("gcov's JSON over %d kernel objects, one gcov per core" % len(staged)):
            said = gcovjson.capture(staged, test_name(title), info, log)
    else:
        with Step("lcov's geninfo over %d kernel objects" % len(staged)):
            said = capture_kernel(staged, title, info, log)
    with Step("genhtml"):
        said += run_filtered(["genhtml", "--quiet", "--branch-coverage", "--title", title,
                              "--output-directory", html, info], log)
    return len(staged), foreign, said
