#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/bench-kunit-uml.py - the kernel's own way to KUnit coverage,
measured beside vm/gcovlab kunit (make bench-kunit-uml).

The 6.1 tree documents one way to get the coverage of KUnit suites
(Documentation/dev-tools/kunit/running_tips.rst): kunit.py run on
user-mode Linux with tools/testing/kunit/configs/coverage_uml.config
(CONFIG_GCOV: the whole UML kernel compiled with -fprofile-arcs, its
.gcda files to be written by GCC's libgcov, linked into the program,
when the process exits),
then lcov over the build directory.  This script does exactly that, for
the four suites tests/test_kunit.py runs, on two trees:

  mainline   the packaged tree (tag gcovlab-pristine of the kernel repo)
  series     the baseline (tag gcovlab-baseline) + patches/*.patch
  mainline-renamed  mainline with the kernel's mangle_path() renamed: GCC
             12's libgcov.a defines a function of that name too, and the
             UML kernel does not link; this one shows what comes after

Each tree is a detached worktree of its own under
$GCOVLAB_WORK/kunit-uml/ (the shared tree ~/.cache/gcov-kernel-labs/linux
is never switched or edited), with a build directory beside it.  For each:
a cold kunit.py run (empty build directory, and ccache stores but does
not use earlier results: a first build's time),
the .gcda files it left, lcov over the build directory as the docs say
and the lines of each code-under-test file, then a warm run (nothing to
rebuild, the .gcda files removed first).  Then vm/gcovlab kunit
--mainline on the same suites (QEMU, x86_64; it does not move the shared
tree), twice, for the comparison row.  The series' vm/gcovlab row is not
run (--lab and --tree switch the shared tree): the table takes
mainline's line counts, which tests/test_kunit_series.py asserts equal.

Every kunit.py run is under 'timeout'; the UML kernel is an ordinary
host process (kunit.py's own --timeout too).  Nothing is loaded into this
machine's kernel.  --save FILE writes the figures as JSON
(docs/bench/kunit-uml.json is what the site's table reads).
"""

import argparse
import ast
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "vm"))
import bench  # noqa: E402  (machine(), work_dir())
from gcovlablib import report  # noqa: E402  (lcov.info -> lines hit / lines)



def kunit_test_suites():
    """suite -> (its option, the file of the code it tests): the SUITES of
    tests/test_kunit.py, the one list of the chapter's four suites, read
    without importing the test module."""
    with open(os.path.join(REPO, "tests", "test_kunit.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    return next(ast.literal_eval(node.value) for node in tree.body
                if isinstance(node, ast.Assign) and
                getattr(node.targets[0], "id", None) == "SUITES")


SUITES = kunit_test_suites()
# Built in: arch/um's CONFIG_GCOV depends on !MODULES.  TEST_LIST_SORT
# sits behind the "Runtime Testing" menu.
KUNITCONFIG = ["CONFIG_KUNIT=y", "CONFIG_RUNTIME_TESTING_MENU=y"] + [
    "%s=y" % option for option, _file in SUITES.values()]
COVERAGE_CONFIG = "tools/testing/kunit/configs/coverage_uml.config"
TREES = ("mainline", "series", "mainline-renamed")
# GCC 12's libgcov.a defines a global mangle_path() (nm: "T mangle_path" in
# _gcov.o), and so does the kernel (fs/seq_file.c): the UML kernel with
# CONFIG_GCOV does not link.  "mainline-renamed" is mainline with the
# kernel's function renamed in its own worktree, to see what happens past
# the link.
RENAMED = ("fs/seq_file.c", "include/linux/seq_file.h", "lib/seq_buf.c")
IDENT = ["-c", "user.name=gcovlab-bench", "-c", "user.email=bench@gcov-kernel-labs.invalid"]
ELAPSED = re.compile(r"Elapsed time: ([\d.]+)s total, ([\d.]+)s configuring, "
                     r"([\d.]+)s building, ([\d.]+)s running")
# What is worth quoting from a run's output: compiler, linker, libgcov
# ("profiling:...") and kunit.py's own complaints.
TROUBLE = re.compile(r"error|undefined reference|multiple definition|profiling:|"
                     r"cannot open|\bcrash|not ok|timed out|Traceback|(?-i:WARNING)", re.I)


def say(msg):
    print("bench-kunit-uml: %s" % msg, flush=True)


def sh(cmd, cwd=None, env=None, limit=None):
    """Run CMD (under 'timeout LIMIT' when given): (exit status, seconds,
    stdout and stderr together)."""
    if limit:
        cmd = ["timeout", "--kill-after=30", str(limit)] + cmd
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, text=True, errors="replace",
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    return proc.returncode, round(time.monotonic() - start, 1), proc.stdout


def must(cmd, **kw):
    status, _took, out = sh(cmd, **kw)
    if status != 0:
        sys.exit("bench-kunit-uml: %s failed (%d):\n%s" % (" ".join(cmd), status, out[-3000:]))
    return out


# ------------------------------------------------------------ the trees

def patches():
    d = os.path.join(REPO, "patches")
    return sorted(os.path.join(d, p) for p in os.listdir(d) if p.endswith(".patch"))


def series_version():
    """The subject prefix of the series' patches ("PATCH v3")."""
    with open(patches()[0], encoding="utf-8", errors="replace") as f:
        m = re.search(r"^Subject: \[(PATCH[^\]]*?)\s*\d+/\d+\]", f.read(), re.M)
    return m.group(1) if m else "PATCH"


def remove_worktree(repo, src):
    if os.path.exists(src):
        subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", src],
                       capture_output=True)
        shutil.rmtree(src, ignore_errors=True)
    subprocess.run(["git", "-C", repo, "worktree", "prune"], check=True)


def make_tree(repo, tree, src):
    """A detached worktree of REPO at SRC: the packaged tree, or the
    baseline with the series applied."""
    remove_worktree(repo, src)
    start = "gcovlab-baseline" if tree == "series" else "gcovlab-pristine"
    must(["git", "-C", repo, "worktree", "add", "-q", "--detach", src, start])
    if tree == "series":
        must(["git"] + IDENT + ["-C", src, "am", "-q"] + patches())
    if tree == "mainline-renamed":
        for rel in RENAMED:
            path = os.path.join(src, rel)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(re.sub(r"\bmangle_path\b", "seq_mangle_path", text))
    return must(["make", "-s", "-C", src, "kernelversion"]).strip()


# ------------------------------------------------------------ kunit.py

def kunit_run(src, build, limit, run_timeout, env):
    """One 'kunit.py run' on UML with coverage_uml.config: its exit status,
    wall time, kunit.py's own split of it, the verdict and quoted errors."""
    kunitconfig = os.path.join(os.path.dirname(build), "suites.kunitconfig")
    with open(kunitconfig, "w", encoding="utf-8") as f:
        f.write("\n".join(KUNITCONFIG) + "\n")
    results = os.path.join(build, "results.json")
    if os.path.exists(results):
        os.unlink(results)
    cmd = [sys.executable, "tools/testing/kunit/kunit.py", "run", "--arch=um",
           "--build_dir=" + build, "--kunitconfig=" + kunitconfig,
           "--kunitconfig=" + COVERAGE_CONFIG, "--jobs=2", "--timeout=%d" % run_timeout,
           "--make_options=CC=ccache gcc", "--json=" + results]
    status, took, out = sh(cmd, cwd=src, env=env, limit=limit)
    with open(os.path.join(os.path.dirname(build), "kunit-%d.log" % time.time()), "w") as f:
        f.write(out)
    got = {"exit": status, "wall_s": took, "verdict": verdict(out, results),
           "errors": trouble(out)}
    m = ELAPSED.search(out)
    if m:
        got.update(zip(("total_s", "config_s", "build_s", "run_s"),
                       (float(x) for x in m.groups())))
    return got


def verdict(out, results):
    """'10 passed' (kunit.py's closing count), or what went wrong."""
    m = re.search(r"Testing complete\. Ran (\d+) tests?: (.*)$", out, re.M)
    if m:
        return "%s tests: %s" % (m.group(1), m.group(2).strip())
    if "timed out" in out.lower():
        return "timed out"
    if os.path.isfile(results):
        return "no summary line (results.json written)"
    return "did not run the tests"


def suites_passed(results):
    """{suite: 'PASS'|'FAIL'|...} from kunit.py's JSON."""
    try:
        with open(results, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    got = {}
    for group in data.get("sub_groups", []):
        cases = group.get("test_cases", [])
        got[group["name"]] = "PASS" if cases and all(
            c.get("status") == "PASS" for c in cases) else "FAIL"
    return got


def trouble(out, most=12):
    """The lines of OUT worth quoting, without repeats, at most MOST."""
    seen = []
    for line in out.splitlines():
        line = re.sub(r"^\[\d\d:\d\d:\d\d\] ", "", line.strip())
        if TROUBLE.search(line) and line not in seen:
            seen.append(line)
    return seen[:most]


def gcda_files(build):
    return sorted(os.path.join(d, f) for d, _s, files in os.walk(build)
                  for f in files if f.endswith(".gcda"))


def lcov_lines(src, build, env):
    """lcov over the build directory as running_tips.rst does it, then the
    code-under-test files: ({file: [hit, lines]}, seconds, quoted errors)."""
    info = os.path.join(build, "coverage.info")
    status, took, out = sh(["lcov", "-q", "-t", "kunit_uml", "-o", info, "-c", "-d", build],
                           env=env, limit=1800)
    if status != 0:
        return {}, took, ["lcov -c failed (%d)" % status] + trouble(out)
    wanted = os.path.join(build, "wanted.info")
    patterns = ["*/" + c for _o, c in SUITES.values()]
    status, _t, out2 = sh(["lcov", "-q", "-e", info] + patterns + ["-o", wanted], limit=600)
    if status != 0:
        return {}, took, ["lcov -e failed (%d)" % status] + trouble(out2)
    files = {}
    for path, counts in report.coverage(wanted).items():
        files[os.path.relpath(os.path.realpath(path), os.path.realpath(src))] = counts[:2]
    return files, took, trouble(out)


def measure_tree(repo, tree, base, args):
    src = os.path.join(base, tree, "linux")
    build = os.path.join(base, tree, "build")
    os.makedirs(os.path.dirname(src), exist_ok=True)
    say("%s: a worktree of its own at %s" % (tree, src))
    version = make_tree(repo, tree, src)
    env = dict(os.environ, CCACHE_DIR=os.path.join(bench.work_dir(), "ccache"))
    # The cold figure is a first build's: ccache stores its results but
    # uses none of an earlier run's (--reuse-ccache: it may, for a quick try)
    cold_env = env if args.reuse_ccache else dict(env, CCACHE_RECACHE="1")
    row = {"tree": tree, "kernel": version, "how": "kunit.py run --arch=um"}
    if tree == "mainline-renamed":
        row["change"] = ("the kernel's mangle_path() renamed seq_mangle_path() in %s" %
                         ", ".join(RENAMED))
    try:
        shutil.rmtree(build, ignore_errors=True)
        os.makedirs(build)
        say("%s: cold kunit.py run (configure, build the UML kernel with -j2, run; "
            "at most %d s) ..." % (tree, args.build_timeout))
        cold = kunit_run(src, build, args.build_timeout, args.run_timeout, cold_env)
        cold["ccache"] = "reused" if args.reuse_ccache else "not used (CCACHE_RECACHE)"
        cold["suites"] = suites_passed(os.path.join(build, "results.json"))
        gcda = gcda_files(build)
        cold["gcda"] = len(gcda)
        cold["linked"] = os.path.isfile(os.path.join(build, "linux"))
        cold["gcda_of_covered"] = sorted(
            c for _o, c in SUITES.values()
            if os.path.join(build, c[:-2] + ".gcda") in gcda)
        say("%s: cold run: exit %d in %.0f s, %s; %d .gcda files" % (
            tree, cold["exit"], cold["wall_s"], cold["verdict"], len(gcda)))
        row["cold"] = cold
        if gcda:
            say("%s: lcov -c -d over the build directory ..." % tree)
            try:
                row["files"], row["lcov_s"], row["lcov_errors"] = lcov_lines(src, build, env)
            except (OSError, ValueError, KeyError) as e:
                row["lcov_errors"] = ["reading lcov's output failed: %s" % e]
            for f, (hit, lines) in sorted(row["files"].items()):
                say("%s: %s: lines %d / %d" % (tree, f, hit, lines))
        for g in gcda:
            os.unlink(g)
        say("%s: warm kunit.py run (nothing to rebuild) ..." % tree)
        warm = kunit_run(src, build, args.run_timeout + 600, args.run_timeout, env)
        warm["gcda"] = len(gcda_files(build))
        warm["linked"] = os.path.isfile(os.path.join(build, "linux"))
        say("%s: warm run: exit %d in %.0f s, %s; %d .gcda files" % (
            tree, warm["exit"], warm["wall_s"], warm["verdict"], warm["gcda"]))
        row["warm"] = warm
    finally:
        if not args.keep:
            remove_worktree(repo, src)
            shutil.rmtree(build, ignore_errors=True)
    return row


# ------------------------------------------------------------ vm/gcovlab

def gcovlab_row(base, runs=2):
    """vm/gcovlab kunit --mainline on the same suites: the last run's time
    (the first may build), the lines of each covered file."""
    out = os.path.join(base, "gcovlab-out")
    cmd = [os.path.join(REPO, "vm", "gcovlab"), "kunit", "--mainline"]
    for suite in SUITES:
        cmd += ["--suite", suite]
    cmd += ["--cover"] + [c for _o, c in SUITES.values()] + ["--out", out]
    row = {"tree": "mainline", "how": "vm/gcovlab kunit --mainline"}
    for n in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        say("vm/gcovlab kunit --mainline, run %d of %d ..." % (n + 1, runs))
        status, took, text = sh(cmd, limit=3600)
        row["runs_s"] = row.get("runs_s", []) + [took]
        row.update(exit=status, wall_s=took, verdict=verdict(text, ""), errors=trouble(text))
    top = os.path.join(bench.work_dir(), "mainline")
    if os.path.isfile(os.path.join(out, "lcov.info")):
        row["files"] = {os.path.relpath(k, top): v[:2]
                        for k, v in report.coverage(os.path.join(out, "lcov.info")).items()}
    row["suites"] = suites_passed(os.path.join(out, "results.json"))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--save", metavar="FILE", help="write the figures as JSON to FILE")
    ap.add_argument("--trees", default=",".join(TREES),
                    help="which trees, of mainline,series,mainline-renamed (default all)")
    ap.add_argument("--no-gcovlab", action="store_true",
                    help="leave out the vm/gcovlab kunit comparison row")
    ap.add_argument("--build-timeout", type=int, default=5400,
                    help="limit of a cold kunit.py run, seconds (default 5400)")
    ap.add_argument("--run-timeout", type=int, default=300,
                    help="kunit.py's own --timeout for the UML run (default 300)")
    ap.add_argument("--reuse-ccache", action="store_true",
                    help="let the cold build use ccache's earlier results (a quick try; "
                         "the cold figure is then no first build's)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the worktrees and build directories")
    args = ap.parse_args()
    trees = [t for t in args.trees.split(",") if t]
    if not trees or set(trees) - set(TREES):
        ap.error("--trees takes mainline, series, mainline-renamed, comma-separated")
    repo = os.path.join(bench.work_dir(), "linux")
    base = os.path.join(bench.work_dir(), "kunit-uml")
    for tag in ("gcovlab-pristine", "gcovlab-baseline"):
        if subprocess.run(["git", "-C", repo, "rev-parse", "-q", "--verify", tag],
                          capture_output=True).returncode != 0:
            sys.exit("bench-kunit-uml: no tag %s in %s: make the tree first "
                     "(vm/gcovlab tree)" % (tag, repo))
    started = time.monotonic()
    rows = []
    for t in trees:
        rows.append(measure_tree(repo, t, base, args))
        save(args.save, figures(rows, started))
    if not args.no_gcovlab:
        rows.append(gcovlab_row(base))
        rows.append({"tree": "series", "how": "vm/gcovlab kunit --lab 10",
                     "from": "vm/gcovlab kunit --mainline",
                     "note": "not run (it switches the shared tree); "
                             "tests/test_kunit_series.py asserts the series instruments "
                             "the same lines as mainline, so mainline's row stands for it"})
    data = figures(rows, started)
    print(json.dumps(data, indent=1))
    save(args.save, data)


def figures(rows, started):
    return {"figure": "kunit-uml",
            "title": "KUnit coverage: kunit.py on user-mode Linux beside vm/gcovlab kunit",
            "measured": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M UTC"),
            "commit": subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                     text=True, capture_output=True).stdout.strip(),
            "command": "tools/bench-kunit-uml.py --save docs/bench/kunit-uml.json",
            "machine": bench.machine(), "series_version": series_version(),
            "suites": {s: c for s, (_o, c) in SUITES.items()},
            "kunitconfig": KUNITCONFIG, "coverage_config": COVERAGE_CONFIG,
            "script_s": round(time.monotonic() - started), "rows": rows}


def save(path, data):
    """Write DATA to PATH (nothing without --save), after every tree: a
    run cut short keeps what it measured."""
    if not path:
        return
    with open(path + ".new", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".new", path)
    say("saved %s" % path)


if __name__ == "__main__":
    main()
