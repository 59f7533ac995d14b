# SPDX-License-Identifier: GPL-2.0
"""Correct solutions of the exercises of Labs 5, 6 and 7 written in other
styles than the series' (tests/data/variants/labN/*.patch: other loop
shapes, helpers, error-path layouts, a lock held for less): each passes
every check of its lab.  The lab's files are made from patches/ alone;
no kernel build, the mainline tree's headers; seconds each."""

import glob
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import checks  # noqa: E402

PATCHES = sorted(glob.glob(os.path.join(REPO, "patches", "*.patch")))
# The labs whose checks run the student's code on the stand-in kernel, and
# the patches of the series that make the state each starts from.
LABS = {5: 5, 6: 5, 7: 8}
VARIANTS = [pytest.param(lab, path, id="lab%d-%s" % (lab, os.path.basename(path)[:-6]))
            for lab in LABS
            for path in sorted(glob.glob(os.path.join(REPO, "tests", "data", "variants",
                                                      "lab%d" % lab, "*.patch")))]


def lab_files(root, lab):
    """kernel/gcov/ as the lab's solution has it, from patches/ alone."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for patch in PATCHES[:LABS[lab]]:
        subprocess.run(["git", "apply", "--include=kernel/gcov/*", patch], cwd=root,
                       check=True)


def run_checks(root, lab, headers):
    harness = os.path.join(REPO, "labs", "lab%02d" % lab, "harness")
    if lab == 5:
        return checks.check_lab5(str(root), harness, headers)
    if lab == 7:
        return checks.check_lab7(str(root), harness, headers)
    return checks.check_lab6(str(root / "kernel" / "gcov"), harness,
                             os.path.join(REPO, "labs", "lab06", "wc.c"),
                             os.path.join(REPO, "tools", "gcda_normalise.py"), headers)


def test_each_lab_has_three_correct_variants():
    for lab in LABS:
        assert sum(1 for v in VARIANTS if v.values[0] == lab) >= 3, "Lab %d" % lab


@pytest.mark.parametrize("lab,variant", VARIANTS)
def test_a_correct_solution_in_another_style_passes(tmp_path, kernel_headers, lab, variant):
    lab_files(tmp_path, lab)
    applied = subprocess.run(["git", "apply", variant], cwd=tmp_path, capture_output=True,
                             text=True)
    assert applied.returncode == 0, "the variant no longer applies to the series: %s" % (
        applied.stderr)
    result = run_checks(tmp_path, lab, kernel_headers)
    assert len(result) > 3 and all(c.passed for c in result), \
        [(c.name, c.detail) for c in result if not c.passed]
