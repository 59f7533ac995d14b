# SPDX-License-Identifier: GPL-2.0
"""Lab 12's exercise: vm/gcovlab check 12 on the student's branch.

The skeleton fails naming both TODOs; the solution (labs/lab12/
memparse-case.patch) and three correct cases in other styles
(tests/data/variants/lab12) pass; each mistake of the exercise.toml is
caught by the check it names, with its TODO.  The mistakes on the text
alone are checked without a boot; the others (a failing case, a case that
reaches nothing new, a call the module cannot link) each build the
kunit kernel's changes (the module, incrementally) and boot it.

Moves the kernel tree (to my-lab12): the tree stream of make check.
"""

import glob
import os
import subprocess
import tempfile

import pytest

from conftest import REPO, exercise_check, gcovlab, ok

from gcovlablib import check_lab12, exercise  # noqa: E402  (conftest puts vm/ on the path)

TEST = "lib/cmdline_kunit.c"
VARIANTS = sorted(glob.glob(os.path.join(REPO, "tests", "data", "variants", "lab12",
                                         "*.patch")))
EX = exercise.load(12)


def patched(text, patch):
    """TEXT (the test file) with PATCH applied by git apply."""
    with tempfile.TemporaryDirectory(prefix="lab12.") as tmp:
        os.makedirs(os.path.join(tmp, "lib"))
        with open(os.path.join(tmp, TEST), "w", encoding="utf-8") as f:
            f.write(text)
        proc = subprocess.run(["git", "apply", patch], cwd=tmp, capture_output=True, text=True)
        assert proc.returncode == 0, "%s no longer applies: %s" % (patch, proc.stderr)
        with open(os.path.join(tmp, TEST), encoding="utf-8") as f:
            return f.read()


def show(tree, rev, path):
    return subprocess.run(["git", "-C", tree, "show", "%s:%s" % (rev, path)], check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def lab12(tree):
    """Branch my-lab12 made by 'vm/gcovlab exercise 12'; the finished
    state's files; afterwards the tree back on the baseline."""
    subprocess.run(["git", "-C", tree, "switch", "-q", "baseline"], check=True)
    if subprocess.run(["git", "-C", tree, "rev-parse", "-q", "--verify", "my-lab12"],
                      capture_output=True).returncode == 0:
        subprocess.run(["git", "-C", tree, "branch", "-q", "-D", "my-lab12"], check=True)
    ok(gcovlab("exercise", "12"))
    try:
        solved = {TEST: patched(show(tree, "lab-12", TEST),
                                os.path.join(REPO, "labs", "lab12", EX["solution"])),
                  "lib/cmdline.c": show(tree, "lab-12", "lib/cmdline.c")}
        yield tree, solved
    finally:
        subprocess.run(["git", "-C", tree, "checkout", "-q", "--", "."])
        subprocess.run(["git", "-C", tree, "switch", "-q", "baseline"], check=True)
        subprocess.run(["git", "-C", tree, "branch", "-q", "-D", "my-lab12"], check=True)


def check(tree, files):
    return exercise_check(tree, 12, files)


def failed(result):
    return [c for c in result["checks"] if not c["passed"]]


def test_the_untouched_skeleton_fails_naming_both_todos(lab12):
    tree, _solved = lab12
    proc, result = check(tree, {})
    assert proc.returncode == 125 and not result["passed"], proc.stderr[-2000:]
    assert sorted({c["todo"] for c in failed(result) if c["todo"]}) == [1, 2], failed(result)
    # nothing was built or booted for a file with no new case
    assert "not run until the checks above pass" in failed(result)[-1]["detail"]
    assert "booting" not in proc.stderr + proc.stdout


def test_the_solution_passes_and_says_which_lines_it_reaches(lab12):
    tree, solved = lab12
    proc, result = check(tree, solved)
    assert proc.returncode == 0 and result["passed"], [
        (c["name"], c["detail"]) for c in failed(result)]
    assert len(result["checks"]) == 9
    # memparse() (lib/cmdline.c lines 150-191 in 6.1) is what the case adds
    said = proc.stderr + proc.stdout
    assert "your case reaches 20 lines of lib/cmdline.c the first cases do not: 150" in said
    # the first cases' run is kept: a second check boots once
    again, result = check(tree, solved)
    assert result["passed"]
    assert "built as a module of its own" not in again.stderr + again.stdout
    assert (again.stderr + again.stdout).count("booting") == 1


def test_three_correct_variants_exist():
    assert len(VARIANTS) >= 3


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda p: os.path.basename(p)[:-6])
def test_a_correct_case_in_another_style_passes(lab12, variant):
    tree, solved = lab12
    files = dict(solved, **{TEST: patched(solved[TEST], variant)})
    proc, result = check(tree, files)
    assert proc.returncode == 0 and result["passed"], [
        (c["name"], c["detail"]) for c in failed(result)]


@pytest.mark.parametrize("mistake", EX["mistake"], ids=lambda m: "-".join(m["what"].split()[:5]))
def test_a_mistake_is_caught_with_its_todo(lab12, mistake):
    tree, solved = lab12
    files = dict(solved)
    assert mistake["old"] in files[mistake["file"]], "the mistake no longer applies"
    files[mistake["file"]] = files[mistake["file"]].replace(mistake["old"], mistake["new"], 1)
    proc, result = check(tree, files)
    assert proc.returncode == 125 and not result["passed"], proc.stderr[-2000:]
    first = failed(result)[0]
    assert first["todo"] == mistake["todo"] and mistake["check"] in first["name"], \
        [(c["name"], c["todo"], c["detail"]) for c in failed(result)]
    assert first["hint"].startswith("TODO %d in %s" % (mistake["todo"], TEST)), first
    assert mistake.get("detail", "") in first["detail"], first["detail"]
    said = proc.stderr + proc.stdout
    built = "booting" in said or "building the lab-kunit kernel" in said
    assert built == bool(mistake.get("guest")), "built or booted: %s" % built


# --- the reading of the file, on texts the lab has ------------------------------

def test_listed_cases_ignores_comments_and_strings():
    code = check_lab12.without_comments(
        'static struct kunit_case cmdline_test_cases[] = {\n'
        '\tKUNIT_CASE(a),\n\t/* KUNIT_CASE(b), */\n\t// KUNIT_CASE(c),\n'
        '\tKUNIT_CASE_PARAM(d, gen),\n\t{}\n};\nconst char *s = "KUNIT_CASE(e)";\n')
    assert check_lab12.listed_cases(code) == ["a", "d"]


def test_what_students_write_is_read_as_the_compiler_reads_it():
    """A case after the {} that ends the list is not listed; a case without
    'static' is a case; KUNIT_FAIL and a macro that expands to an
    expectation check a result; an if-block is not a function."""
    code = check_lab12.without_comments(
        "#define CHECK(s, v) \\\n\tKUNIT_EXPECT_EQ(test, memparse(s, NULL), v)\n"
        "void by_macro(struct kunit *test)\n{\n\tCHECK(\"4k\", 4096ULL);\n}\n"
        "static void by_fail(struct kunit *test) {\n"
        "\tif (memparse(\"4k\", NULL) != 4096)\n\t\tKUNIT_FAIL(test, \"4k\");\n}\n"
        "static void nothing(struct kunit *test)\n{\n\tif (memparse(\"1\", NULL)) {\n"
        "\t\tmemparse(\"2\", NULL);\n\t}\n}\n"
        "static void other(struct kunit *test)\n{\n\tif (1) {\n"
        "\t\tKUNIT_EXPECT_EQ(test, 1, 1);\n\t}\n}\n"
        "static struct kunit_case cmdline_test_cases[] = {\n\tKUNIT_CASE(by_macro),\n"
        "\tKUNIT_CASE(by_fail),\n\t{},\n\tKUNIT_CASE(late),\n};\n")
    assert check_lab12.listed_cases(code) == ["by_macro", "by_fail"]
    assert [m.group(1) for m in check_lab12.CASE_FUNCTION.finditer(code)] == [
        "by_macro", "by_fail", "nothing", "other"]
    funcs = check_lab12.bodies(code)
    assert "if" not in funcs
    assert check_lab12.checks_a_result("by_macro", funcs)
    assert check_lab12.checks_a_result("by_fail", funcs)
    assert not check_lab12.checks_a_result("nothing", funcs)


def test_an_oops_is_told_with_its_call_trace(tmp_path):
    console = tmp_path / "console.log"
    console.write_text(
        "[    0.795219]     ok 4 cmdline_test_range\n"
        "[    0.796070] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
        "[    0.797220] Oops: 0000 [#1]\n"
        "[    0.797896] RIP: 0010:_parse_integer_fixup_radix+0x9/0x56\n"
        "[    0.802529] Call Trace:\n"
        "[    0.803574]  ? memparse+0x1d/0xbe\n"
        "[    0.803702]  ? cmdline_test_memparse+0x284/0x36a [cmdline_kunit]\n"
        "[    0.807030] ---[ end trace 0000000000000000 ]---\n"
        "[    0.807203] RIP: 0010:_parse_integer_fixup_radix+0x9/0x56\n")
    said = check_lab12.oops(str(console))
    assert "BUG: kernel NULL pointer dereference" in said
    assert "? cmdline_test_memparse+0x284/0x36a [cmdline_kunit]" in said
    assert said.count("RIP:") == 1
    assert check_lab12.oops(str(tmp_path / "none")) == ""


def test_an_expectation_in_a_helper_counts_and_a_call_alone_does_not():
    code = check_lab12.without_comments(
        "static void helper(struct kunit *test, int v)\n{\n\tKUNIT_EXPECT_EQ(test, v, 1);\n}\n"
        "static void good(struct kunit *test)\n{\n\thelper(test, memparse(\"1\", NULL));\n}\n"
        "static void bad(struct kunit *test)\n{\n\tmemparse(\"1\", NULL);\n"
        "\t/* KUNIT_EXPECT_EQ(test, 1, 1); */\n}\n")
    funcs = check_lab12.bodies(code)
    assert check_lab12.checks_a_result("good", funcs)
    assert not check_lab12.checks_a_result("bad", funcs)


def test_spans():
    assert check_lab12.spans([150, 152, 153, 154, 9]) == "9, 150, 152-154"
