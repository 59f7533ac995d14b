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

import contextlib
import dataclasses
import json
import os
import re
import sys
import tomllib

from . import check_lab12, checks, labs, standin
from . import tree as treemod
from .util import EXIT_FAILED, EXIT_USAGE, GcovlabError, run, say
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

def hash_comments(path):
    """Kconfig files and makefiles take '#' comments; C takes block ones."""
    name = os.path.basename(path)
    return name.startswith(("Kconfig", "Makefile")) or name.endswith(".mk")


# A chapter as exercise.toml names it: the page's source, docs/X.rst.
PAGE_SOURCE = re.compile(r"\bdocs/((?:[\w-]+/)*[\w-]+)\.rst\b")


def page_title(source):
    """The title of a page of the site: its first heading's text."""
    try:
        with open(os.path.join(REPO, source), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError:
        return None
    for above, rule in zip(lines, lines[1:]):
        if above.strip() and re.fullmatch(r"(=+|-+|~+)", rule.strip()) and \
                len(rule.strip()) >= len(above.strip()) and not above.startswith(".."):
            return above.strip()
    return None


def rendered(text):
    """TEXT with each page source (docs/labs/lab5.rst) named as the reader
    meets it: the page's title and where 'make html' puts it."""
    def page(m):
        title = page_title(m.group(0))
        where = "_build/html/docs/%s.html" % m.group(1)
        return "the page \"%s\" (%s)" % (title, where) if title else where
    return PAGE_SOURCE.sub(page, text)


def comment(todo, indent, hashes=False):
    """The TODO comment that takes a region's place, in the file's style
    (kernel style for C), then the region's stub, if it has one: lines that
    keep the skeleton building (a #if the TODO is to replace, a return)."""
    words = ("TODO %d: %s (Read %s.)" % (todo["number"], " ".join(todo["text"].split()),
                                          rendered(todo["chapter"]))).split()
    lines, line = [], ""
    width = 72 - len(indent.expandtabs(8))
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    lines.append(line)
    if hashes:
        out = [indent + "# " + s for s in lines]
    else:
        out = [indent + "/*"] + [indent + " * " + s for s in lines] + [indent + " */"]
    stub = todo.get("stub")
    return out + (stub.rstrip("\n").split("\n") if stub else [])


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
        lines[start:end + 1] = comment(todo, indent, hash_comments(path))
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
    treemod.git(tree, "switch", "--quiet", "-c", branch, "lab-%d" % number)
    # A lab whose page applies a patch itself (Lab 10's 0011): the
    # exercise is that patch, hollowed out.
    for path in extra_patches(number, ex):
        treemod.git(tree, "apply", "--index", *skip_lab_patch(number), path)
    files = {}
    for rel in paths:
        with open(os.path.join(tree, rel), encoding="utf-8") as f:
            files[rel] = f.read()
    made = skeleton(files, ex["todo"], first)
    for rel, text in made.items():
        with open(os.path.join(tree, rel), "w", encoding="utf-8") as f:
            f.write(text)
    env = treemod.git_env()
    run(["git", "-C", tree, "add", "-A"], capture=True, what="git add")
    run(["git", "-C", tree, "commit", "--quiet", "-m",
         "Lab %d exercise: the skeleton (TODO %d to %d)" % (number, first, len(ex["todo"]))],
        env=env, capture=True, what="git commit")
    say("kernel tree now on your branch %s: lab-%d with %d TODO%s to write" % (
        branch, number, len(ex["todo"]) - first + 1,
        "" if len(ex["todo"]) - first == 0 else "s"))
    for todo in ex["todo"]:
        if todo["number"] >= first:
            print("  TODO %d in %s" % (todo["number"], todo["file"]))
    say("edit %s, then: vm/gcovlab check %d" % (
        " and ".join(os.path.join(tree, p) for p in paths), number))
    return 0


def checks_for(work, number):
    """Lab NUMBER's checks on the tree as checked out."""
    tree = work.tree
    if number == 1:
        return checks.check_lab1(tree, os.path.join(work.root, "check", "lab1"))
    if number == 2:
        return checks.check_lab2(tree)
    if number == 4:
        return checks.check_lab4(tree)
    if number == 5:
        return checks.check_lab5(tree, os.path.join(REPO, "labs", "lab05", "harness"),
                                 standin.headers(work))
    if number == 7:
        return checks.check_lab7(tree, os.path.join(REPO, "labs", "lab07", "harness"),
                                 standin.headers(work))
    if number == 9:
        return checks.check_lab9(work)
    if number == 10:
        return checks.check_lab10(tree)
    if number == 12:
        return check_lab12.check_lab12(work)
    if number == 6:
        return checks.check_lab6(os.path.join(tree, "kernel", "gcov"),
                                 os.path.join(REPO, "labs", "lab06", "harness"),
                                 os.path.join(REPO, "labs", "lab06", "wc.c"),
                                 os.path.join(REPO, "tools", "gcda_normalise.py"),
                                 standin.headers(work))
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
    return "TODO %d in %s; read %s" % (c.todo, t["file"], rendered(c.chapter or t["chapter"]))


def extra_patches(number, ex):
    """The patches after lab-N's that the exercise's finished state has
    (exercise.toml's finish: the number of patches it is made of), then
    the lab's own solution, where the finished state is not the series'
    (exercise.toml's solution: a patch in the lab's folder)."""
    have = labs.get(number).get("patches", 0)
    finish = ex.get("finish", have)
    every = labs.series_patches()
    if finish > len(every):
        raise GcovlabError("Lab %d's exercise is the first %d patches, but patches/ holds %d"
                           % (number, finish, len(every)))
    own = [os.path.join(REPO, "labs", "lab%02d" % number, ex["solution"])] \
        if ex.get("solution") else []
    return [os.path.join(REPO, "patches", name) for name in every[have:finish]] + own


def skip_lab_patch(number):
    """git apply options that leave out the files of the lab's own patch:
    Lab 9's carries patch 0010's hunks of those files already."""
    return ["--exclude=" + path for path in labs.lab_patch_files(number)]


def finished_tree(work, number, ex):
    """The finished state to compare with: branch lab-N, or, where the
    exercise goes further, lab-N with the extra patches applied in a
    scratch index (nothing in the tree changes)."""
    extra = extra_patches(number, ex)
    if not extra:
        return "lab-%d" % number
    index = os.path.join(work.root, "check", "solution-%d.index" % number)
    os.makedirs(os.path.dirname(index), exist_ok=True)
    env = dict(os.environ, GIT_INDEX_FILE=index)
    try:
        run(["git", "-C", work.tree, "read-tree", "lab-%d" % number], env=env,
            capture=True, what="git read-tree")
        for path in extra:
            run(["git", "-C", work.tree, "apply", "--cached", *skip_lab_patch(number), path],
                env=env,
                capture=True, what="git apply")
        return run(["git", "-C", work.tree, "write-tree"], env=env, capture=True,
                   what="git write-tree").stdout.strip()
    finally:
        if os.path.exists(index):
            os.remove(index)


def finished_files(work, number, ex):
    """{path: text} of the exercise's files in its finished state (the
    tree is not touched; branch lab-N must exist)."""
    tree = finished_tree(work, number, ex)
    return {rel: treemod.git(work.tree, "show", "%s:%s" % (tree, rel))
            for rel in sorted({t["file"] for t in ex["todo"]})}


def check(work, number, as_json=False, solution=False):
    ex = load(number)
    tree = work.tree
    with contextlib.redirect_stdout(sys.stderr if as_json else sys.stdout):
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
        finished = finished_tree(work, number, ex)
        extra = [os.path.basename(p)[:4] if os.path.dirname(p).endswith("patches")
                 else os.path.relpath(p, REPO) for p in extra_patches(number, ex)]
        say("--- a/ is your %s, +++ b/ the finished state (%s): '-' lines are "
            "yours, '+' lines the series'" % (
                "work in %s as it is now, committed or not" % mine if branch == mine
                else "branch %s as last committed" % mine,
                "lab-%d" % number if not extra else
                "lab-%d plus patch%s %s" % (number, "es" if len(extra) > 1 else "",
                                             ", ".join(extra))))
        if branch == mine:
            # the files as they are now, committed or not: the student's
            # latest attempt (-R: from the work tree to the finished state;
            # git swaps the prefixes with the sides, so a/ stays the
            # student's)
            diff = treemod.git(tree, "diff", "-R", "--src-prefix=b/", "--dst-prefix=a/",
                               finished, "--", *files)
        else:
            diff = treemod.git(tree, "diff", mine, finished, "--", *files)
        print(diff, end="")
        return 0
    missing = sorted({t["file"] for t in ex["todo"]
                      if not os.path.isfile(os.path.join(tree, t["file"]))})
    if missing:
        raise GcovlabError(
            "%s: not in the kernel tree as checked out (branch %s), so there is nothing "
            "to check.  Start the exercise with 'vm/gcovlab exercise %d', or go back to "
            "it with 'git -C %s switch %s'." % (", ".join(missing), branch, number, tree,
                                                 BRANCH % number), EXIT_USAGE)
    if branch != BRANCH % number and not as_json:
        say("checking the tree as checked out, branch %s (the exercise's branch is %s)" % (
            branch, BRANCH % number))
    if as_json:
        # stdout is the JSON alone: what the checks say on the way goes
        # to stderr
        with contextlib.redirect_stdout(sys.stderr):
            checks = checks_for(work, number)
    else:
        checks = checks_for(work, number)
    report(number, ex, checks, branch, as_json)
    passed = sum(c.passed for c in checks)
    if not as_json:
        say("%d of %d checks passed%s" % (passed, len(checks),
                                          "" if passed < len(checks) else ": Lab %d's exercise "
                                          "is done" % number))
    return 0 if passed == len(checks) else EXIT_FAILED
