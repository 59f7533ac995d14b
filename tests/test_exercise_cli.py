# SPDX-License-Identifier: GPL-2.0
"""The exercise checker's command line on the kernel tree itself
(vm/gcovlab check N --json and --solution): these move the tree's
checkout, so they run with the tests that do (tools/check.py); the
checks themselves, on every exercise, are in test_exercises.py.
"""

import json
import os
import subprocess

from conftest import IDENT, gcovlab, ok

GUARD = "kernel/gcov/gcc_version.h"


def test_check_json_is_json_alone_and_a_missing_file_is_named(tree):
    """--json: stdout holds the JSON only (what the tool says on the way goes
    to stderr); on the baseline, which has no guard yet, check 2 names the
    file and how to start instead of failing with a traceback."""
    proc = gcovlab("check", "2")
    assert proc.returncode == 2, proc.stderr
    assert "kernel/gcov/gcc_version.h: not in the kernel tree" in proc.stderr
    assert "vm/gcovlab exercise 2" in proc.stderr and "Traceback" not in proc.stderr
    ok(gcovlab("lab", "2"))
    try:
        proc = gcovlab("check", "2", "--json")
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert result["lab"] == 2 and result["branch"] == "lab-2" and result["passed"]
        assert len(result["checks"]) >= 8 and all(c["passed"] for c in result["checks"])
    finally:
        subprocess.run(["git", "-C", tree, "switch", "-q", "baseline"], check=True)


def test_solution_diff_says_which_side_is_the_students(tree):
    """check N --solution: a/ and the '-' lines are the student's (the
    files as they are now on my-labN, or the branch as committed when the
    tree is elsewhere), b/ and the '+' lines the finished state."""
    mine = "/* gcovlab-test: the student's own line */"
    ok(gcovlab("exercise", "2"))
    try:
        with open(os.path.join(tree, GUARD), "a", encoding="utf-8") as f:
            f.write(mine + "\n")
        proc = ok(gcovlab("check", "2", "--solution"))
        head = proc.stdout.split("\n")
        said = [line for line in head if line.startswith("gcovlab: --- a/")]
        assert said and "work in my-lab2 as it is now" in said[0], proc.stdout[:1000]
        assert "finished state (lab-2)" in said[0]
        assert "-" + mine in head and "--- a/" + GUARD in head, proc.stdout[-2000:]
        assert [line for line in head if line.startswith("+") and
                not line.startswith("+++")], proc.stdout[-2000:]
        subprocess.run(["git"] + IDENT + ["-C", tree, "commit", "-q", "-am", "mine"],
                       check=True)
        subprocess.run(["git", "-C", tree, "switch", "-q", "baseline"], check=True)
        proc = ok(gcovlab("check", "2", "--solution"))
        said = [line for line in proc.stdout.split("\n") if line.startswith("gcovlab: --- a/")]
        assert said and "branch my-lab2 as last committed" in said[0], proc.stdout[:1000]
        assert "-" + mine in proc.stdout.split("\n")
    finally:
        subprocess.run(["git", "-C", tree, "checkout", "-q", "--", "."])
        subprocess.run(["git", "-C", tree, "switch", "-q", "baseline"], check=True)
        subprocess.run(["git", "-C", tree, "branch", "-q", "-D", "my-lab2"], check=True)
