# SPDX-License-Identifier: GPL-2.0
"""The exercises of Labs 1, 2, 4, 5, 7 and 10 (Lab 6's is in tests/unit): for each,
the skeleton is made from the current series (patches/, applied in a
worktree of the kernel tree), the checker passes on the series' files,
fails on the untouched skeleton naming every TODO, starts with the earlier
TODOs solved under --todo K, and catches a mistake a student could make
in each TODO with that TODO's hint.  Host only: Kconfig, gcc -fsyntax-only,
make on cut-out rules, Lab 5's registry and Lab 7's debugfs files in their
host harnesses; no kernel is built or booted.  The kernel tree's checkout
is left alone (tools/check.py runs this file beside the tests that move
it); the checker's command line on the tree is in test_exercise_cli.py.
"""

import glob
import os
import subprocess
import sys

import pytest

from conftest import IDENT, REPO

sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import checks, exercise, standin  # noqa: E402
from gcovlablib.work import Work  # noqa: E402

PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
KCONFIG = "kernel/gcov/Kconfig"
GUARD = "kernel/gcov/gcc_version.h"
MAKEFILE_LIB = "scripts/Makefile.lib"
BASE = "kernel/gcov/base.c"
GCOV_H = "kernel/gcov/gcov.h"
FS = "kernel/gcov/fs.c"
LABS = [1, 2, 4, 5, 7, 10]


@pytest.fixture(scope="module")
def series(tree_repo, tmp_path_factory):
    """A worktree at the baseline with patches 1-3 (Labs 2 to 4's state);
    Lab 1's Kconfig, as patch 1 alone leaves it; base.c and gcov.h with
    patches 1-5 (Lab 5's exercise) and the top Makefile with patches 1-11
    (Lab 10's), made in a scratch index; fs.c, base.c and gcov.h with
    patches 1-8 (Lab 7's)."""
    tree = tree_repo
    src = tmp_path_factory.mktemp("ex") / "linux"
    subprocess.run(["git", "-C", tree, "worktree", "add", "-q", "--detach", str(src),
                    "gcovlab-baseline"], check=True)
    try:
        subprocess.run(["git"] + IDENT + ["-C", str(src), "am", "-q", PATCHES[0]], check=True)
        with open(src / KCONFIG, encoding="utf-8") as f:
            lab1 = f.read()
        subprocess.run(["git"] + IDENT + ["-C", str(src), "am", "-q"] + PATCHES[1:3],
                       check=True)
        index = str(src) + ".index"
        env = dict(os.environ, GIT_INDEX_FILE=index)
        subprocess.run(["git", "-C", str(src), "read-tree", "HEAD"], env=env, check=True)

        def state(patches, *paths):
            subprocess.run(["git", "-C", str(src), "apply", "--cached"] + patches, env=env,
                           check=True)
            tree_id = subprocess.run(["git", "-C", str(src), "write-tree"], env=env,
                                     check=True, capture_output=True, text=True).stdout.strip()
            return {p: subprocess.run(["git", "-C", str(src), "show", tree_id + ":" + p],
                                      check=True, capture_output=True, text=True).stdout
                    for p in paths}
        lab5 = state(PATCHES[3:5], BASE, GCOV_H)
        lab7 = state(PATCHES[5:8], BASE, GCOV_H, FS)
        lab10 = state(PATCHES[8:11], "Makefile")
        os.remove(index)
        yield src, {1: {KCONFIG: lab1}, 2: {GUARD: read(src, GUARD)},
                    4: {MAKEFILE_LIB: read(src, MAKEFILE_LIB)}, 5: lab5, 7: lab7, 10: lab10}
    finally:
        subprocess.run(["git", "-C", tree, "worktree", "remove", "--force", str(src)])


def read(src, rel):
    with open(src / rel, encoding="utf-8") as f:
        return f.read()


def run_checks(src, number, files, tmp_path):
    """The lab's checks with FILES written into the worktree; afterwards the
    worktree's files are as they were (and those it did not have, gone)."""
    before = {rel: read(src, rel) if os.path.exists(src / rel) else None for rel in files}
    try:
        for rel, text in files.items():
            with open(src / rel, "w", encoding="utf-8") as f:
                f.write(text)
        if number == 1:
            return checks.check_lab1(str(src), str(tmp_path / "kconfig"))
        if number == 2:
            return checks.check_lab2(str(src))
        if number == 10:
            return checks.check_lab10(str(src))
        if number == 5:
            return checks.check_lab5(str(src), os.path.join(REPO, "labs", "lab05", "harness"),
                                     standin.headers(Work()))
        if number == 7:
            return checks.check_lab7(str(src), os.path.join(REPO, "labs", "lab07", "harness"),
                                     standin.headers(Work()))
        return checks.check_lab4(str(src))
    finally:
        for rel, text in before.items():
            if text is None:
                os.remove(src / rel)
                continue
            with open(src / rel, "w", encoding="utf-8") as f:
                f.write(text)


def failed_todos(result):
    return sorted({c.todo for c in result if not c.passed and c.todo is not None})


@pytest.mark.parametrize("number", LABS)
def test_the_solution_passes(series, number, tmp_path):
    src, files = series
    result = run_checks(src, number, files[number], tmp_path)
    assert len(result) > 3 and all(c.passed for c in result), \
        [(c.name, c.detail) for c in result if not c.passed]


@pytest.mark.parametrize("number", LABS)
def test_the_untouched_skeleton_fails_naming_each_todo(series, number, tmp_path):
    src, files = series
    ex = exercise.load(number)
    made = exercise.skeleton(files[number], ex["todo"])
    for todo in ex["todo"]:
        text = made[todo["file"]].split("\n")
        assert any("TODO %d: " % todo["number"] in line for line in text)
        # Makefile.lib has the first line of the GCOV rule for every sanitizer
        assert text.count(todo["from"]) == \
            files[number][todo["file"]].split("\n").count(todo["from"]) - 1, \
            "the region of TODO %d is still there" % todo["number"]
    result = run_checks(src, number, made, tmp_path)
    assert result[0].passed, "the skeleton must build: %s" % result[0].detail
    assert failed_todos(result) == [t["number"] for t in ex["todo"]], \
        [(c.name, c.passed, c.todo) for c in result]


@pytest.mark.parametrize("number", [2, 4, 5, 7])
def test_todo_k_starts_with_the_earlier_ones_solved(series, number, tmp_path):
    src, files = series
    ex = exercise.load(number)
    last = len(ex["todo"])
    result = run_checks(src, number, exercise.skeleton(files[number], ex["todo"], last),
                        tmp_path)
    assert failed_todos(result) == [last], [(c.name, c.passed, c.todo) for c in result]


# The mistakes each exercise.toml lists (the instructors' answer key shows
# the same ones).
MISTAKES = [pytest.param(number, m, id="lab%d-%s" % (number, "-".join(m["what"].split()[:4])))
            for number in LABS for m in exercise.load(number).get("mistake", [])]


@pytest.mark.parametrize("number,mistake", MISTAKES)
def test_a_plausible_mistake_is_caught_with_its_todo(series, number, mistake, tmp_path):
    src, files = series
    text = files[number][mistake["file"]]
    assert mistake["old"] in text, "the mistake no longer applies to the series"
    result = run_checks(src, number,
                        dict(files[number], **{mistake["file"]: text.replace(
                            mistake["old"], mistake["new"], 1)}), tmp_path)
    failed = [c for c in result if not c.passed]
    assert failed, "the mistake was not caught"
    assert failed[0].todo == mistake["todo"] and mistake["check"] in failed[0].name, \
        [(c.name, c.todo, c.detail) for c in failed]
    # where the key says so, the words the detail must have (a blame's why)
    assert mistake.get("detail", "") in failed[0].detail, failed[0].detail


# Correct solutions in other styles than the series' (Labs 5, 6 and 7's
# are in tests/unit/test_host_variants.py): each must pass every check.
VARIANTS = [pytest.param(number, path, id="lab%d-%s" % (number, os.path.basename(path)[:-6]))
            for number in (1, 2, 4, 10)
            for path in sorted(glob.glob(os.path.join(REPO, "tests", "data", "variants",
                                                      "lab%d" % number, "*.patch")))]


def test_each_lab_has_three_correct_variants():
    for number in (1, 2, 4, 10):
        assert sum(1 for v in VARIANTS if v.values[0] == number) >= 3, "Lab %d" % number


@pytest.mark.parametrize("number,variant", VARIANTS)
def test_a_correct_solution_in_another_style_passes(series, number, variant, tmp_path):
    src, files = series
    scratch = tmp_path / "variant"
    for rel, text in files[number].items():
        os.makedirs(scratch / os.path.dirname(rel), exist_ok=True)
        with open(scratch / rel, "w", encoding="utf-8") as f:
            f.write(text)
    applied = subprocess.run(["git", "apply", variant], cwd=scratch, capture_output=True,
                             text=True)
    assert applied.returncode == 0, "the variant no longer applies to the series: %s" % (
        applied.stderr)
    result = run_checks(src, number, {rel: read(scratch, rel) for rel in files[number]},
                        tmp_path)
    assert len(result) > 3 and all(c.passed for c in result), \
        [(c.name, c.detail) for c in result if not c.passed]


def test_every_exercise_lists_a_mistake_for_each_todo():
    for number in exercise.available():
        ex = exercise.load(number)
        caught = {m["todo"] for m in ex.get("mistake", [])}
        assert caught == {t["number"] for t in ex["todo"]}, "Lab %d" % number
