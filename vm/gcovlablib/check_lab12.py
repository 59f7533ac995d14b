# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab check 12: a KUnit case of the student's own that reaches
lines of lib/cmdline.c no case of the cmdline suite reached.

The checks read the student's lib/cmdline_kunit.c beside the one of
branch lab-12 (the suite as the tree has it), then run the suite twice
in the kunit kernel with lib/cmdline.c profiled: the student's version
(built in the tree, as 'vm/gcovlab kunit --tree' builds it) and the
tree's own (built from lab-12's file as a module of its own, beside the
tree).  The student's new cases must pass, the first ones must still
pass, and the student's run must reach a line of lib/cmdline.c that the
first cases do not.  The tree's own run depends only on the kernel image
and on that file: its lines are kept in the work directory and measured
again when either changes.
"""

import contextlib
import hashlib
import json
import os
import re

from . import kbuild, kunit, runs
from . import tree as treemod
from .checks import Check
from .util import GcovlabError, say

SUITE = "cmdline"
TEST = "lib/cmdline_kunit.c"
CODE = "lib/cmdline.c"
CASES = "cmdline_test_cases"
START = "lab-12"
BACKGROUND = "docs/labs/lab12.rst, Background"
# a case's function, as KUnit calls it
CASE_FUNCTION = re.compile(r"^\s*(?:static\s+)?void\s+(\w+)\s*\(\s*struct\s+kunit\s*\*\s*"
                           r"(\w+)\s*\)\s*\{", re.M)
EXPECTATION = re.compile(r"\bKUNIT_(?:(?:EXPECT|ASSERT)_\w+|FAIL)\s*\(")
CALL = re.compile(r"\b(\w+)\s*\(")
KEYWORDS = ("if", "for", "while", "switch", "return", "sizeof", "do")


def without_comments(text):
    """C source with its comments blanked (line numbers kept) and its
    string literals emptied, so that neither counts as code."""
    def blank(m):
        s = m.group(0)
        if s.startswith(("/*", "//")):
            return re.sub(r"[^\n]", " ", s)
        return s[0] + s[-1]
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  blank, text, flags=re.S)


def listed_cases(code):
    """The case functions the array CASES lists, in order (KUNIT_CASE,
    KUNIT_CASE_PARAM and the like), or None when there is no such array."""
    m = re.search(r"\bstruct\s+kunit_case\s+%s\s*\[\s*\]\s*=\s*\{(.*?)\}\s*;" % CASES,
                  code, re.S)
    if not m:
        return None
    # KUnit stops at the {} that ends the list: a case after it never runs
    listed = re.split(r"\{\s*\}", m.group(1))[0]
    return re.findall(r"\bKUNIT_CASE\w*\s*\(\s*(\w+)", listed)


def bodies(code):
    """{name: its body} of every function of the file (with a body) and of
    every function-like macro (a case may check through one)."""
    out = {}
    for m in re.finditer(r"^[ \t]*(?:static\s+)?[\w \t\*]*?\b(\w+)\s*\([^;{)]*\)\s*\{",
                         code, re.M):
        depth, i = 1, m.end()
        while depth and i < len(code):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        if m.group(1) not in KEYWORDS:
            out[m.group(1)] = code[m.end():i - 1]
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\((\\\n|[^\n])*", code, re.M):
        out.setdefault(m.group(1), m.group(0))
    return out


def checks_a_result(name, funcs, depth=3):
    """Does the function NAME (or a function of the file it calls, a few
    calls deep) use a KUNIT_EXPECT_ or KUNIT_ASSERT_ macro?"""
    body = funcs.get(name, "")
    if EXPECTATION.search(body):
        return True
    if depth:
        return any(checks_a_result(callee, funcs, depth - 1)
                   for callee in set(CALL.findall(body)) if callee in funcs and callee != name)
    return False


def statuses(out):
    """{case: status} of the cmdline suite in a kunit run's results.json."""
    try:
        with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    stack, found = [data], {}
    while stack:
        node = stack.pop()
        if node.get("name") == SUITE:
            found.update({c["name"]: c.get("status") for c in node.get("test_cases", [])})
        stack.extend(node.get("sub_groups", []))
    return found


def reached(out, path):
    """The line numbers of PATH with a non-zero count in OUT/lcov.info."""
    lines, current = set(), None
    with open(os.path.join(out, "lcov.info"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("SF:"):
                current = line[3:].strip()
            elif line.startswith("DA:") and current == path:
                number, count = line[3:].split(",")[:2]
                if int(count):
                    lines.add(int(number))
    return lines


def oops(console):
    """The lines of a kernel oops in CONSOLE that say what and where (its
    first line, RIP, and the call trace), or ''."""
    try:
        with open(console, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    start = re.search(r"^.*(?:BUG:|Oops:|general protection fault).*$", text, re.M)
    if not start:
        return ""
    lines = []
    for line in text[start.start():].split("\n"):
        line = re.sub(r"^\[\s*[\d.]+\]\s?", "", line)
        if re.match(r"(BUG:|Oops:|general protection|RIP:|\s*\? \w+\+0x|\s*\w+\+0x)", line):
            lines.append("  " + line.strip())
        if line.startswith("---[ end trace") or len(lines) >= 12:
            break
    return "\nThe kernel stopped your case with an oops:\n" + "\n".join(dict.fromkeys(lines))


def spans(lines):
    """[3, 4, 5, 9] -> '3-5, 9'."""
    out, run = [], []
    for n in sorted(lines):
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if run:
            out.append("%d-%d" % (run[0], run[-1]) if len(run) > 1 else str(run[0]))
        run = [n]
    if run:
        out.append("%d-%d" % (run[0], run[-1]) if len(run) > 1 else str(run[0]))
    return ", ".join(out)


def digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode())
    return h.hexdigest()


def request(out):
    return kunit.Request(tree=True, suites=[SUITE], cover=[CODE], out=out)


def first_lines(work, p, scratch, original):
    """The lines of lib/cmdline.c the suite as the tree has it reaches:
    lab-12's lib/cmdline_kunit.c built as a module of its own against the
    kunit kernel, run alone (kept while the kernel and that file stay)."""
    with open(kbuild.bzimage(work, p.config), "rb") as f:
        key = digest(f.read(), original)
    keep = os.path.join(scratch, "first-cases.json")
    try:
        with open(keep, encoding="utf-8") as f:
            kept = json.load(f)
        if kept.get("key") == key:
            return set(kept["lines"]), kept["statuses"]
    except (OSError, ValueError, KeyError):
        pass
    src = os.path.join(scratch, "first-cases-src")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "cmdline_kunit_first.c"), "w", encoding="utf-8") as f:
        f.write(original)
    with open(os.path.join(src, "Kbuild"), "w", encoding="utf-8") as f:
        f.write("obj-m := cmdline_kunit_first.o\n")
    say("the suite as %s has it, for comparison: built as a module of its own" % START)
    kos = kbuild.build_module(work, p.config, src, os.path.join(scratch, "first-cases-build"),
                              p.config.profile_var)
    req = request(os.path.join(scratch, "first-cases"))
    first = kunit.Plan(p.config, p.label, runs.check_out(req.out), p.src, p.options,
                       p.covered)
    runs.mark_out(first.out, kernel=p.config, title="KUnit: the suite as lab-12 has it")
    kunit.run_built(work, req, first, modules=kos)
    lines, states = reached(first.out, os.path.join(p.src, CODE)), statuses(first.out)
    with open(keep, "w", encoding="utf-8") as f:
        json.dump({"key": key, "lines": sorted(lines), "statuses": states}, f)
    return lines, states


def static_checks(original, mine, code_changed):
    """The checks on the text alone: (checks, the new cases)."""
    out = []
    theirs, code = listed_cases(without_comments(original)), without_comments(mine)
    listed, funcs = listed_cases(code), bodies(code)
    if theirs is None:
        raise GcovlabError("%s of %s has no %s[]: the exercise does not fit this tree"
                           % (TEST, START, CASES))
    out.append(Check("lib/cmdline.c is the tree's own: the exercise tests it, it does "
                     "not change it", not code_changed,
                     detail="" if not code_changed else
                     "you changed %s; 'git -C $GCOVLAB_WORK/linux diff %s -- %s' shows how, "
                     "'git -C $GCOVLAB_WORK/linux checkout %s -- %s' puts it back"
                     % (CODE, START, CODE, START, CODE), todo=1))
    if listed is None:
        out.append(Check("%s[] is still there" % CASES, False,
                         detail="%s no longer has 'static struct kunit_case %s[] = { ... };': "
                         "KUnit finds the suite's cases there" % (TEST, CASES), todo=2))
        return out, []
    had = {m.group(1) for m in CASE_FUNCTION.finditer(without_comments(original))}
    new_functions = [m.group(1) for m in CASE_FUNCTION.finditer(code)
                     if m.group(1) not in had]
    new = list(dict.fromkeys(c for c in listed if c not in theirs))
    out.append(Check("a new case: a function 'static void NAME(struct kunit *test)'",
                     bool(new_functions or new),
                     detail="" if new_functions or new else
                     "%s has the same case functions as %s's (%s)" % (
                         TEST, START, ", ".join(theirs)), todo=1))
    unlisted = [f for f in new_functions if f not in listed]
    out.append(Check("the new case is listed in %s[]" % CASES, bool(new),
                     detail="" if new else
                     ("%s %s not in %s[]: KUnit runs only the cases listed there (add "
                      "KUNIT_CASE(%s), before the {} that ends the list)" % (
                          ", ".join(unlisted), "is" if len(unlisted) == 1 else "are",
                          CASES, unlisted[0]) if unlisted else
                      "%s[] lists no case that %s's does not" % (CASES, START)), todo=2))
    gone = [c for c in theirs if c not in listed]
    out.append(Check("the suite's first cases are all still listed", not gone,
                     detail="" if not gone else "%s[] lost %s: keep them, they test other lines"
                     % (CASES, ", ".join(gone)), todo=2))
    missing = [c for c in new if c not in funcs]
    silent = [c for c in new if c in funcs and not checks_a_result(c, funcs)]
    out.append(Check("each new case checks a result (KUNIT_EXPECT_... or KUNIT_ASSERT_...)",
                     not silent and not missing,
                     detail="" if not silent and not missing else
                     "; ".join(["%s is listed but %s defines no such function" % (c, TEST)
                                for c in missing] +
                               ["%s calls the code but checks nothing it returns: a case "
                                "without an expectation passes whatever the code does" % c
                                for c in silent]), todo=1))
    return out, new


def check_lab12(work):
    tree = work.tree
    scratch = os.path.join(work.root, "check", "lab12")
    os.makedirs(scratch, exist_ok=True)
    if not treemod.branch_tip(tree, START):
        raise GcovlabError("no branch %s in the kernel tree: 'vm/gcovlab exercise 12' "
                           "makes it" % START)
    original = treemod.git(tree, "show", "%s:%s" % (START, TEST))
    try:
        with open(os.path.join(tree, TEST), encoding="utf-8") as f:
            mine = f.read()
    except OSError as e:
        raise GcovlabError("%s: %s; to start from the suite as the tree has it: git -C %s "
                           "checkout %s -- %s" % (os.path.join(tree, TEST), e.strerror, tree,
                                                  START, TEST))
    code_changed = bool(treemod.git(tree, "diff", START, "--", CODE).strip())
    out, new = static_checks(original, mine, code_changed)
    dynamic = ["the suite builds and runs", "your new case%s pass%s" % (
        "s" if len(new) > 1 else "", "" if len(new) > 1 else "es"),
        "the suite's first cases still pass",
        "your case reaches lines of lib/cmdline.c that the first cases do not"]
    if not all(c.passed for c in out):
        return out + [Check("the suite in the guest (%d checks)" % len(dynamic), False,
                            detail="not run until the checks above pass")]
    req = request(os.path.join(scratch, "yours"))
    p = kunit.plan(work, req)
    failed = None
    held = contextlib.ExitStack()
    try:
        held.enter_context(kbuild.built(work, p.config))
    except GcovlabError as e:
        return out + [Check(dynamic[0], False, todo=1, detail=str(e))] + [
            Check(name, False, detail="not run: the kernel did not build") for name in dynamic[1:]]
    with held:
        try:
            before, first_states = first_lines(work, p, scratch, original)
        except GcovlabError as e:
            return out + [Check(dynamic[0], False, detail=(
                "the comparison run of the suite as %s has it (not your file) failed; "
                "run the check again, and if it fails the same way, 'vm/gcovlab reset 12' "
                "keeps your branch and starts again:\n%s" % (START, e)))]
        # what an earlier check left must not be read as this run's
        for stale in ("results.json", "lcov.info"):
            if os.path.exists(os.path.join(p.out, stale)):
                os.remove(os.path.join(p.out, stale))
        try:
            kunit.run_built(work, req, p)
        except GcovlabError as e:
            failed = str(e)
    got = statuses(p.out)
    crashed = failed if failed and not os.path.isfile(os.path.join(p.out, "lcov.info")) \
        else None
    out.append(Check(dynamic[0], bool(got), todo=1, detail=(failed or "") if not got else ""))
    if not got:
        return out + [Check(name, False, detail="not run: the suite did not run")
                      for name in dynamic[1:]]
    bad_new = {c: got.get(c, "did not run") for c in new if got.get(c) != "PASS"}
    out.append(Check(dynamic[1], not bad_new, todo=1, detail="; ".join(
        "%s: %s" % kv for kv in bad_new.items()) + (
        " (the KTAP log, with each failed expectation: %s/kunit-modules.log)" % p.out
        if bad_new else "") + (
        "\nThe guest did not finish (%s).%s\nThe kernel's messages: %s/console.log" % (
            crashed.split("\n")[0], oops(os.path.join(p.out, "console.log")), p.out)
        if crashed else "")))
    first = [c for c, s in first_states.items() if s == "PASS"]
    broken = {c: got.get(c, "did not run") for c in first if got.get(c) != "PASS"}
    out.append(Check(dynamic[2], not broken, todo=2,
                     detail="; ".join("%s: %s" % kv for kv in broken.items())))
    if crashed:
        return out + [Check(dynamic[3], False, detail="not measured: the guest did not "
                            "finish, so no coverage came back")]
    now = reached(p.out, os.path.join(p.src, CODE))
    gained = now - before
    out.append(Check(dynamic[3], bool(gained), todo=1, chapter=BACKGROUND,
                     detail="the first cases reach %d lines of %s (%s); with yours the "
                     "suite reaches the same ones.  Look in the report (%s/html/index.html) "
                     "for a line with no count, and call the code so that it runs"
                     % (len(before), CODE, spans(before), p.out) if not gained else ""))
    if gained:
        say("your case%s reach%s %d line%s of %s the first cases do not: %s" % (
            "s" if len(new) > 1 else "", "" if len(new) > 1 else "es", len(gained),
            "" if len(gained) == 1 else "s", CODE, spans(gained)))
    return out
