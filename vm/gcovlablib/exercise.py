# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab exercise N and check N: the student writes the series' pieces.

labs/labNN/exercise.toml lists a lab's TODOs: regions of the lab's
finished files (the series in patches/, applied on branch lab-N), each
from one exact line to another.  `exercise N` makes the student's branch
my-labN from lab-N with those regions replaced by numbered TODO comments;
`check N` runs the lab's checks on the tree as it is checked out and
prints one line per check, with the TODO and the chapter to read when it
fails; `check N --solution` shows the diff to the finished state.
"""

import dataclasses
import json
import os
import re
import shutil
import subprocess
import tempfile
import tomllib

from . import labs
from . import tree as treemod
from .util import EXIT_FAILED, EXIT_USAGE, GcovlabError, say
from .work import REPO

BRANCH = "my-lab%d"


def exercise_file(number):
    return os.path.join(REPO, "labs", "lab%02d" % number, "exercise.toml")


def available():
    return sorted(n for n in labs.load() if os.path.isfile(exercise_file(n)))


def load(number):
    labs.get(number)
    path = exercise_file(number)
    if not os.path.isfile(path):
        have = ", ".join(str(n) for n in available()) or "none yet"
        raise GcovlabError("Lab %d has no exercise (labs with one: %s)" % (number, have),
                           EXIT_USAGE)
    with open(path, "rb") as f:
        data = tomllib.load(f)
    todos = sorted(data.get("todo", []), key=lambda t: t["number"])
    if [t["number"] for t in todos] != list(range(1, len(todos) + 1)):
        raise GcovlabError("%s: TODOs must be numbered 1, 2, 3, ..." % path)
    data["todo"] = todos
    return data


# --- the skeleton ----------------------------------------------------------

def comment(todo, indent):
    """The TODO comment that takes a region's place, kernel style."""
    words = ("TODO %d: %s (Read %s.)" % (todo["number"], " ".join(todo["text"].split()),
                                          todo["chapter"])).split()
    lines, line = [], ""
    width = 72 - len(indent.expandtabs(8))
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    lines.append(line)
    out = [indent + "/*"] + [indent + " * " + s for s in lines] + [indent + " */"]
    return out


def hollow(text, todos, path="the file"):
    """TEXT with each TODO's region replaced by its comment.  A region that
    is not found means the series changed under the exercise: refuse."""
    lines = text.split("\n")
    for todo in todos:
        try:
            start = lines.index(todo["from"])
            end = lines.index(todo["to"], start)
        except ValueError:
            raise GcovlabError(
                "TODO %d of %s: the lines it replaces (from %r to %r) are not in %s. "
                "patches/ changed and the exercise did not follow: update labs/lab%02d/"
                "exercise.toml." % (todo["number"], todo["file"], todo["from"],
                                    todo["to"], path, todo.get("lab", 0)))
        indent = re.match(r"\s*", lines[start]).group(0)
        lines[start:end + 1] = comment(todo, indent)
    return "\n".join(lines)


def skeleton(files, todos, first=1):
    """{path: text} of the finished files -> {path: skeleton text}; TODOs
    before FIRST stay solved."""
    out = {}
    for path, text in files.items():
        mine = [t for t in todos if t["file"] == path and t["number"] >= first]
        out[path] = hollow(text, mine, path) if mine else text
    return out


def make(work, number, first=1):
    """vm/gcovlab exercise N [--todo K]: branch my-labN with the skeleton."""
    ex = load(number)
    for todo in ex["todo"]:
        todo["lab"] = number
    if not 1 <= first <= len(ex["todo"]):
        raise GcovlabError("--todo %d: Lab %d has TODOs 1 to %d" % (
            first, number, len(ex["todo"])), EXIT_USAGE)
    treemod.ensure(work)
    tree = work.tree
    treemod.refuse_if_dirty(tree, "making the exercise of Lab %d" % number)
    branch = BRANCH % number
    if treemod.branch_tip(tree, branch):
        raise GcovlabError(
            "branch %s exists: an earlier attempt, kept.  To start again, "
            "'vm/gcovlab reset %d' renames it (nothing is deleted); to go on with it, "
            "'git -C %s switch %s' and 'vm/gcovlab check %d'." % (
                branch, number, tree, branch, number), EXIT_USAGE)
    treemod.lab_branch(work, number, labs.patches(number))
    paths = sorted({t["file"] for t in ex["todo"]})
    files = {}
    for rel in paths:
        with open(os.path.join(tree, rel), encoding="utf-8") as f:
            files[rel] = f.read()
    made = skeleton(files, ex["todo"], first)
    treemod.git(tree, "switch", "--quiet", "-c", branch, "lab-%d" % number)
    for rel, text in made.items():
        with open(os.path.join(tree, rel), "w", encoding="utf-8") as f:
            f.write(text)
    env = treemod.git_env()
    subprocess.run(["git", "-C", tree, "commit", "--quiet", "-a", "-m",
                    "Lab %d exercise: the skeleton (TODO %d to %d)" % (
                        number, first, len(ex["todo"]))],
                   env=env, check=True, capture_output=True)
    say("kernel tree now on your branch %s: lab-%d with %d TODO%s to write" % (
        branch, number, len(ex["todo"]) - first + 1,
        "" if len(ex["todo"]) - first == 0 else "s"))
    for todo in ex["todo"]:
        if todo["number"] >= first:
            print("  TODO %d in %s" % (todo["number"], todo["file"]))
    say("edit %s, then: vm/gcovlab check %d" % (
        " and ".join(os.path.join(tree, p) for p in paths), number))
    return 0


# --- the checks ------------------------------------------------------------

@dataclasses.dataclass
class Check:
    name: str
    passed: bool
    todo: int = None        # the TODO a failure points at
    detail: str = ""


def words(data):
    n = len(data) // 4
    return [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(n)]


TAG_FUNCTION = 0x01000000


def known_tag(tag):
    """A FUNCTION record, or the COUNTER record of a counter type (GCC 12's
    tags, gcc/gcov-io.h: 0x01a10000 + type << 17)."""
    return tag == TAG_FUNCTION or (tag & 0xfff1ffff) == 0x01a10000


def records(data):
    """[(tag, payload words)] after the 4-word header; or (error, the tag of
    the record to blame: a record whose length sends the walk off into
    words that are no record is to blame, not what follows it)."""
    w = words(data)
    out, i = [], 4
    while i < len(w):
        prev = out[-1][0] if out else None
        if i + 2 > len(w):
            return ("a record header is cut off at byte %d" % (4 * i), prev)
        tag, length = w[i], w[i + 1]
        if not known_tag(tag):
            return ("byte %d holds 0x%08x, which is no record tag: the record before "
                    "it%s has the wrong length" % (
                        4 * i, tag, " (tag 0x%08x)" % prev if prev is not None else ""),
                    prev if prev is not None else TAG_FUNCTION)
        if length % 4:
            return ("the record at byte %d (tag 0x%08x) has a length of %d bytes, "
                    "not a whole number of words" % (4 * i, tag, length), tag)
        end = i + 2 + length // 4
        if end > len(w):
            return ("the record at byte %d (tag 0x%08x) claims %d bytes, but the file "
                    "ends %d bytes later" % (4 * i, tag, length, 4 * (len(w) - i - 2)), tag)
        out.append((tag, w[i + 2:end]))
        i = end
    return out


def compare_gcda(mine, want):
    """The checks of Lab 6, on two files: the student's and libgcov's in the
    kernel's form."""
    def shown(ws):
        return " ".join("%08x" % x for x in ws) or "none (the file is empty)"

    checks = [Check("file header (magic, version, stamp, checksum 0)",
                    words(mine)[:4] == words(want)[:4], 1,
                    "first 4 words: %s; expected %s" % (
                        shown(words(mine)[:4]), shown(words(want)[:4])))]
    got, exp = records(mine), records(want)
    if isinstance(got, tuple):
        error, culprit = got
        checks.append(Check("the records after the header parse", False,
                            2 if culprit == TAG_FUNCTION else 3, error))
        return checks
    fn_got = [r for r in got if r[0] == TAG_FUNCTION]
    fn_exp = [r for r in exp if r[0] == TAG_FUNCTION]
    detail = ""
    if len(fn_got) != len(fn_exp):
        detail = "%d FUNCTION records, expected %d" % (len(fn_got), len(fn_exp))
    else:
        for k, (a, b) in enumerate(zip(fn_got, fn_exp)):
            if a != b:
                detail = "function %d: %s, expected %s" % (
                    k, " ".join("%08x" % x for x in a[1]), " ".join("%08x" % x for x in b[1]))
                break
    checks.append(Check("FUNCTION records (ident, checksums)", not detail, 2, detail))
    ct_got = [r for r in got if r[0] != TAG_FUNCTION]
    ct_exp = [r for r in exp if r[0] != TAG_FUNCTION]
    detail = ""
    if len(ct_got) != len(ct_exp):
        detail = "%d COUNTER records, expected %d" % (len(ct_got), len(ct_exp))
    else:
        for k, (a, b) in enumerate(zip(ct_got, ct_exp)):
            if a != b:
                detail = "counter record %d: tag 0x%08x with %d words, expected tag " \
                         "0x%08x with %d words%s" % (
                             k, a[0], len(a[1]), b[0], len(b[1]),
                             "" if (a[0], len(a[1])) != (b[0], len(b[1])) else
                             " (the values differ)")
                break
    checks.append(Check("COUNTER records (tags, lengths, values)", not detail, 3, detail))
    checks.append(Check("the whole file equals libgcov's, normalised", mine == want,
                        None, "%d bytes, expected %d" % (len(mine), len(want))))
    return checks


INPUTS = [b"the cat sat\non the mat\n", b"", b"one\n\ntwo  words\n"]


def run(cmd, cwd, stdin=None, env=None):
    return subprocess.run(cmd, cwd=cwd, input=stdin, env=env, capture_output=True)


def check_lab6(gcov_dir, harness, program, normalise):
    """Build wc.c with the student's gcc_12.c and with libgcov; compare."""
    # -frandom-seed: the same stamp at every check, so that what a check
    # prints can be compared from one run to the next
    cflags = ["-fprofile-arcs", "-ftest-coverage", "-fno-tree-loop-im",
              "-frandom-seed=gcovlab-check"]
    with tempfile.TemporaryDirectory(prefix="gcovlab-check6.") as tmp:
        shutil.copy(program, os.path.join(tmp, "wc.c"))
        proc = run(["gcc", "-O2", "-Wall", "-I", os.path.join(harness, "shim"), "-I",
                    gcov_dir, "-c", os.path.join(gcov_dir, "gcc_12.c"), "-o", "gcc_12.o"], tmp)
        if proc.returncode:
            return [Check("kernel/gcov/gcc_12.c compiles", False, None,
                          proc.stderr.decode(errors="replace")[-1500:])]
        steps = [["gcc", "-O2"] + cflags + ["-c", "wc.c", "-o", "wc.o"],
                 ["gcc", "-O2", "-Wall", "-I", os.path.join(harness, "shim"), "-I", gcov_dir,
                  "-c", os.path.join(harness, "harness.c"), "-o", "harness.o"],
                 ["gcc", "wc.o", "harness.o", "gcc_12.o", "-o", "wc-series"],
                 ["gcc", "-fprofile-arcs", "wc.o", "-o", "wc-libgcov"]]
        for cmd in steps:
            proc = run(cmd, tmp)
            if proc.returncode:
                raise GcovlabError("%s failed:\n%s" % (" ".join(cmd), proc.stderr.decode()))
        checks = [Check("kernel/gcov/gcc_12.c compiles", True)]
        gcda = os.path.join(tmp, "wc.gcda")
        for k, text in enumerate(INPUTS):
            env = dict(os.environ, GCOVLAB_SUFFIX=".series")
            for stale in (gcda, gcda + ".series"):
                if os.path.exists(stale):
                    os.remove(stale)
            proc = run(["./wc-series"], tmp, text, env)
            if not os.path.exists(gcda + ".series"):
                checks.append(Check("input %d: the writer made a file" % (k + 1), False, None,
                                    "wc-series exited %d and wrote no wc.gcda.series: %s" % (
                                        proc.returncode, proc.stderr.decode()[-500:])))
                return checks
            run(["./wc-libgcov"], tmp, text)
            norm = run(["/usr/bin/python3", normalise, gcda, gcda + ".norm", "--gcno",
                        os.path.join(tmp, "wc.gcno")], tmp)
            if norm.returncode:
                raise GcovlabError("gcda_normalise.py failed: %s" % norm.stderr.decode())
            with open(gcda + ".series", "rb") as f:
                mine = f.read()
            with open(gcda + ".norm", "rb") as f:
                want = f.read()
            for c in compare_gcda(mine, want):
                c.name = "input %d: %s" % (k + 1, c.name)
                checks.append(c)
        return checks


def checks_for(work, number):
    if number == 6:
        return check_lab6(os.path.join(work.tree, "kernel", "gcov"),
                          os.path.join(REPO, "labs", "lab06", "harness"),
                          os.path.join(REPO, "labs", "lab06", "wc.c"),
                          os.path.join(REPO, "tools", "gcda_normalise.py"))
    raise GcovlabError("Lab %d's exercise has no checks yet" % number)


def report(number, ex, checks, branch, as_json):
    todos = {t["number"]: t for t in ex["todo"]}
    if as_json:
        print(json.dumps({"lab": number, "branch": branch,
                          "passed": all(c.passed for c in checks),
                          "checks": [dict(dataclasses.asdict(c),
                                          hint=hint(todos, c)) for c in checks]}, indent=1))
        return
    for c in checks:
        if c.passed:
            print("ok    %s" % c.name)
        else:
            print("FAIL  %s" % c.name)
            if c.detail:
                print("      " + c.detail.strip().replace("\n", "\n      "))
            if hint(todos, c):
                print("      hint: " + hint(todos, c))


def hint(todos, c):
    if c.passed or c.todo is None or c.todo not in todos:
        return ""
    t = todos[c.todo]
    return "TODO %d in %s; read %s" % (c.todo, t["file"], t["chapter"])


def check(work, number, as_json=False, solution=False):
    ex = load(number)
    tree = work.tree
    treemod.ensure(work)
    branch = treemod.current_branch(tree) or "(detached)"
    if solution:
        mine = BRANCH % number
        if not treemod.branch_tip(tree, mine):
            raise GcovlabError("no branch %s: start with 'vm/gcovlab exercise %d'" % (
                mine, number), EXIT_USAGE)
        if not treemod.branch_tip(tree, "lab-%d" % number):
            raise GcovlabError("no branch lab-%d, the finished state: 'vm/gcovlab exercise "
                               "%d' makes it" % (number, number), EXIT_USAGE)
        files = sorted({t["file"] for t in ex["todo"]})
        print(treemod.git(tree, "diff", mine, "lab-%d" % number, "--", *files), end="")
        return 0
    if branch != BRANCH % number and not as_json:
        say("checking the tree as checked out, branch %s (the exercise's branch is %s)" % (
            branch, BRANCH % number))
    checks = checks_for(work, number)
    report(number, ex, checks, branch, as_json)
    passed = sum(c.passed for c in checks)
    if not as_json:
        say("%d of %d checks passed%s" % (passed, len(checks),
                                          "" if passed < len(checks) else ": Lab %d's exercise "
                                          "is done" % number))
    return 0 if passed == len(checks) else EXIT_FAILED
