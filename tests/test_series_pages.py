# SPDX-License-Identifier: GPL-2.0
"""Every lab page has the shape lab pages share, and its captures are
exactly what the page includes.

The captures are made by tools/pagerun.py from the page itself (the
commands of its console blocks), so a capture cannot come from a command
the page does not show; tests/test_pages.py runs the pages.  Here, with
no kernel: the sections in order, the Time line, the reset command, no
capture file that no page shows (it would be stale), no include of a
capture that does not exist.  Seconds.
"""

import os
import re
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "tools"))
import pagerun  # noqa: E402

SHAPE = ["Goal", "Start and reset", "Background", "Steps", "What you should see",
         "Check", "Exercises"]
LABS = sorted(pagerun.labs())


def page(lab):
    with open(pagerun.page_of(lab), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("lab", LABS)
def test_page_shape(lab):
    text = page(lab)
    heads = re.findall(r"^(.+)\n-{3,}$", text, re.M)
    # a lab with an exercise (labs/labNN/exercise.toml) has a section for it
    heads = [h for h in heads if not h.startswith("Exercise: ")]
    assert heads == SHAPE
    goal, start = text.index("\nGoal\n"), text.index("\nStart and reset\n")
    assert ".. lab-time:: %d\n" % lab in text[goal:start], \
        "the Time line (.. lab-time:: %d) belongs between Goal and Start and reset" % lab


@pytest.mark.parametrize("lab", LABS)
def test_start_and_reset_runs_the_reset(lab):
    blocks = pagerun.read_page(pagerun.page_of(lab))
    first = blocks[0]
    assert first.section == "Start and reset" and first.commands == [
        'eval "$(vm/gcovlab env)"', "vm/gcovlab reset %d" % lab]


# The work directory as the pages must name it: a reader's GCOVLAB_WORK
# may be anywhere (the page runner sets one that is not its HOME's default).
DEFAULT_WORK = re.compile(r"(?:~|\$HOME|\$\{HOME\})/\.cache/gcov-kernel-labs")


@pytest.mark.parametrize("lab", LABS)
def test_commands_name_the_work_directory_by_its_variable(lab):
    """No command, and no path the prose tells the reader to open, spells
    the default work directory: they fail for a reader whose GCOVLAB_WORK
    is elsewhere (captures show the default, as the setup page says)."""
    blocks = pagerun.read_page(pagerun.page_of(lab))
    bad = ["%s: %s" % (b.where(), c) for b in blocks for c in b.commands
           if DEFAULT_WORK.search(c)]
    bad += ["%s:%d: %s" % (pagerun.page_of(lab), n, line.strip())
            for n, line in enumerate(page(lab).split("\n"), 1)
            if DEFAULT_WORK.search(line) and "``" in line and "/" in
            DEFAULT_WORK.split(line, 1)[1][:1]]
    assert not bad, "spell the work directory $GCOVLAB_WORK:\n" + "\n".join(bad)


@pytest.mark.parametrize("lab", LABS)
def test_check_reads_the_students_results(lab):
    """A Check looks at what the student made, not at the project's tests."""
    blocks = [b for b in pagerun.read_page(pagerun.page_of(lab)) if b.section == "Check"]
    assert blocks, "lab %d: its Check has no command" % lab
    for block in blocks:
        for cmd in block.commands:
            assert "pytest" not in cmd and "tests/" not in cmd, cmd


@pytest.mark.parametrize("lab", LABS)
def test_the_page_ends_on_the_baseline(lab):
    """Every lab ends where the next starts (the runner checks the tree too)."""
    blocks = [b for b in pagerun.read_page(pagerun.page_of(lab)) if not b.skip]
    moves = [c for b in blocks for c in b.commands if re.search(
        r"switch |vm/gcovlab (lab|reset) |--lab |--tree", c)]
    if lab == 0:
        # Lab 0 runs mainline: nothing moves the tree off the baseline
        assert moves == ["vm/gcovlab reset 0"], moves
        return
    assert "switch baseline" in moves[-1], moves[-1]


@pytest.mark.parametrize("lab", LABS)
def test_a_lab_with_an_exercise_has_its_section(lab):
    """A section 'Exercise: ...' for a lab whose exercise comes after its
    steps; or steps that are the exercise (Lab 12: its first step makes
    the branch, its Check runs the check)."""
    has = os.path.isfile(os.path.join(REPO, "labs", "lab%02d" % lab, "exercise.toml"))
    section = re.search(r"^Exercise: .+\n-{3,}$", page(lab), re.M)
    cmds = [c for b in pagerun.read_page(pagerun.page_of(lab)) for c in b.commands]
    in_steps = re.search(r"^Steps\n-{3,}\n(?:.*\n)*?\.\. code-block:: console\n\n"
                         r"   \$ vm/gcovlab exercise %d$" % lab, page(lab), re.M)
    assert bool(section or in_steps) == has
    if has:
        assert "vm/gcovlab exercise %d" % lab in cmds and "vm/gcovlab check %d" % lab in cmds


def test_every_capture_is_shown_and_every_include_exists():
    shown = set()
    for lab in LABS:
        for block in pagerun.read_page(pagerun.page_of(lab)):
            if block.capture:
                assert os.path.isfile(block.capture), \
                    "%s includes %s, which does not exist: run tools/pagerun.py " \
                    "--capture %d" % (block.where(), block.capture, lab)
                shown.add(os.path.relpath(block.capture, REPO))
    for lab in LABS:
        folder = os.path.join(REPO, "docs", "captures", "lab%d" % lab)
        for name in sorted(os.listdir(folder)):
            rel = os.path.join("docs", "captures", "lab%d" % lab, name)
            if name.endswith(".txt"):
                assert rel in shown, "%s is on no page: remove it (stale)" % rel


def test_every_lab_has_a_time():
    """Labs 0-10 (make check runs them); Lab 11's page runs on the debug
    kernels, and its time comes with make captures."""
    with open(pagerun.TIMES, encoding="utf-8") as f:
        times = pagerun.json.load(f)
    missing = [n for n in LABS if n != 11 and "warm" not in times.get(str(n), {})]
    assert not missing, "no measured time for labs %s: run tools/pagerun.py --capture" % missing
