# SPDX-License-Identifier: GPL-2.0
"""Exercise mode on the host: Lab 6's skeleton is made from the current
series, its checker passes on the series' writer, fails on the untouched
skeleton naming each TODO, and catches the mistakes a student could make
with the hint of the right TODO.  No kernel build: the headers of the
mainline tree (the kernel_headers fixture); a few seconds (gcc)."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import checks, exercise  # noqa: E402

PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
HARNESS = os.path.join(REPO, "labs", "lab06", "harness")
PROGRAM = os.path.join(REPO, "labs", "lab06", "wc.c")
NORMALISE = os.path.join(REPO, "tools", "gcda_normalise.py")
GCC12 = "kernel/gcov/gcc_12.c"


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    """kernel/gcov/ as Lab 6 has it (patches 1-5), from patches/ alone."""
    root = tmp_path_factory.mktemp("series")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for patch in PATCHES[:5]:
        subprocess.run(["git", "apply", "--include=kernel/gcov/*", patch], cwd=root, check=True)
    with open(root / GCC12, encoding="utf-8") as f:
        return root, f.read()


@pytest.fixture(scope="module")
def checked(kernel_headers):
    def check(root, text):
        with open(root / GCC12, "w", encoding="utf-8") as f:
            f.write(text)
        return checks.check_lab6(str(root / "kernel" / "gcov"), HARNESS, PROGRAM, NORMALISE,
                                 kernel_headers)
    return check


def failed_todos(checks):
    return sorted({c.todo for c in checks if not c.passed and c.todo is not None})


def test_the_skeleton_is_made_from_the_current_series(series):
    """Lab 6's; Labs 1, 2 and 4 (files of the whole tree) are made in
    tests/test_exercises.py."""
    root, text = series
    ex = exercise.load(6)
    made = exercise.skeleton({GCC12: text}, ex["todo"])[GCC12]
    for todo in ex["todo"]:
        assert "TODO %d: " % todo["number"] in made
        assert todo["from"] not in made.split("\n")


def test_makefiles_and_kconfig_get_hash_comments_and_stubs_stay():
    todo = {"number": 1, "file": "scripts/Makefile.lib", "from": "b := 2", "to": "c := 3",
            "text": "Set b and c.", "chapter": "docs/kbuild-gcov.rst"}
    made = exercise.hollow("a := 1\nb := 2\nc := 3\nd := 4", [todo], "scripts/Makefile.lib")
    assert made == ("a := 1\n# TODO 1: Set b and c. (Read the page \"kbuild GCOV variables\"\n"
                    "# (_build/html/docs/kbuild-gcov.html).)\nd := 4")
    todo.update(file="x/gcc_version.h", stub="#if 0", **{"from": "#if A", "to": "#error x"})
    made = exercise.hollow("#if A\n#error x\n#endif", [todo], "x/gcc_version.h")
    assert made.split("\n") == ["/*", " * TODO 1: Set b and c. (Read the page \"kbuild GCOV variables\"",
                                 " * (_build/html/docs/kbuild-gcov.html).)",
                                 " */", "#if 0", "#endif"]


def every_chapter():
    """(lab, where, chapter) of every chapter a TODO or a check names."""
    out = []
    for number in sorted(exercise.available()):
        for todo in exercise.load(number)["todo"]:
            out.append((number, "TODO %d" % todo["number"], todo["chapter"]))
    out.append((2, "checks.WHY_PRAGMA", checks.WHY_PRAGMA))
    return out


def test_hints_name_the_rendered_page_of_every_chapter():
    """A hint or a TODO comment names the page as the reader sees it (its
    title, and the HTML file make html writes), never its source file;
    every chapter names a page of the site that exists."""
    for number, where, chapter in every_chapter():
        sources = exercise.PAGE_SOURCE.findall(chapter)
        assert sources, "lab %d %s: %r names no page of the site" % (number, where, chapter)
        for src in sources:
            assert exercise.page_title("docs/%s.rst" % src), \
                "lab %d %s: docs/%s.rst has no title (or does not exist)" % (number, where, src)
        shown = exercise.rendered(chapter)
        assert ".rst" not in shown and "_build/html/docs/" in shown, shown
    assert exercise.hash_comments("kernel/gcov/Kconfig")
    assert not exercise.hash_comments("kernel/gcov/base.c")


def test_a_region_the_series_lost_is_refused():
    todo = {"number": 2, "file": "f.c", "from": "gone", "to": "gone", "text": "t",
            "chapter": "c", "lab": 6}
    with pytest.raises(exercise.GcovlabError, match="TODO 2 of f.c.*exercise.toml"):
        exercise.hollow("a\nb", [todo], "f.c")


def test_the_solution_passes(series, checked):
    root, text = series
    checks = checked(root, text)
    assert checks and all(c.passed for c in checks), [c for c in checks if not c.passed]


def test_the_untouched_skeleton_fails_naming_each_todo(series, checked):
    root, text = series
    ex = exercise.load(6)
    checks = checked(root, exercise.skeleton({GCC12: text}, ex["todo"])[GCC12])
    assert checks[0].passed, "the skeleton must compile: %s" % checks[0].detail
    assert failed_todos(checks) == [1, 2, 3]


def test_todo_k_starts_with_the_earlier_ones_solved(series, checked):
    root, text = series
    ex = exercise.load(6)
    checks = checked(root, exercise.skeleton({GCC12: text}, ex["todo"], first=3)[GCC12])
    assert 3 in failed_todos(checks) and 1 not in failed_todos(checks) and \
        2 not in failed_todos(checks)


@pytest.mark.parametrize("mistake", exercise.load(6)["mistake"],
                         ids=lambda m: "-".join(m["what"].split()[:5]))
def test_a_plausible_mistake_is_caught_with_its_todo(series, mistake, checked):
    root, text = series
    assert mistake["old"] in text, "the mistake no longer applies to the series"
    checks_run = checked(root, text.replace(mistake["old"], mistake["new"], 1))
    failed = [c for c in checks_run if not c.passed]
    assert failed, "the mistake was not caught"
    assert failed[0].todo == mistake["todo"] and mistake["check"] in failed[0].name, \
        [(c.name, c.todo) for c in failed]
    # where the key says so, the words the detail must have (a blame's why)
    assert mistake.get("detail", "") in failed[0].detail, failed[0].detail
