# SPDX-License-Identifier: GPL-2.0
"""The series lab pages (Labs 1-11) show the commands that produced their
captured output: every capture a page includes was made by a step of
labs/capture-series.sh, and that step's command is printed on the page,
word for word, in a console block.  Also: each page has the shape all
lab pages share."""

import os
import re

import pytest

from conftest import REPO

SCRIPT = os.path.join(REPO, "labs", "capture-series.sh")
SECTIONS = ["Goal", "Background", "Steps", "What you should see", "Check", "Exercises"]
# The shape every page is to have (Lab 11 has it already): how long the
# lab takes, and where it starts and how to start over.
FULL = ["Goal", "Time", "Start and reset", "Background", "Steps", "What you should see",
        "Check", "Exercises"]


def steps(lab):
    with open(SCRIPT, encoding="utf-8") as f:
        text = f.read()
    t = re.search(r"^T='([^']+)'", text, re.M).group(1)
    b = re.search(r"^B='([^']+)'", text, re.M).group(1)
    block = re.search(r"^%d\)\n(.*?)^\t;;" % lab, text, re.M | re.S).group(1)
    found = {}
    for name, cmd in re.findall(r'^\tstep (\S+) (?:ok|fail) "(.*)"$', block, re.M):
        cmd = cmd.replace("$T", t).replace("$B", b).replace('\\"', '"')
        cmd = cmd.replace("\\$", "$").replace("\\\\", "\\")
        found[name] = cmd
    return found


def page(lab):
    with open(os.path.join(REPO, "docs", "labs", "lab%d.rst" % lab), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("lab", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
def test_page_shape(lab):
    text = page(lab)
    heads = re.findall(r"^(.+)\n-{3,}$", text, re.M)
    assert heads == (FULL if lab >= 11 else SECTIONS)


@pytest.mark.parametrize("lab", [1, 2, 3, 4, 5, 7, 8, 9, 10, 11])
def test_captures_come_from_shown_commands(lab):
    text = page(lab)
    shown = set(re.findall(r"^   \$ (.+)$", text, re.M))
    made = steps(lab)
    included = re.findall(r"literalinclude:: \.\./captures/lab%d/(\S+)\.txt" % lab, text)
    assert included, "lab %d includes no capture" % lab
    for name in included:
        assert name in made, "%s.txt is not made by labs/capture-series.sh" % name
        path = os.path.join(REPO, "docs", "captures", "lab%d" % lab, name + ".txt")
        assert os.path.getsize(path) > 0, "%s is empty: run make captures" % path
        # A step may chain two commands the page shows on two lines.
        parts = [p.strip() for p in made[name].split(" && ")] \
            if made[name] not in shown else [made[name]]
        assert made[name] in shown or all(any(p in s for s in shown) for p in parts), \
            "lab %d: the command of capture %s is not on the page: %s" % (lab, name, made[name])


LAB6_SCRIPT = os.path.join(REPO, "labs", "capture-lab6.sh")


def lab6_steps():
    """The steps of labs/capture-lab6.sh, in order: (name, command as the
    page spells it)."""
    with open(LAB6_SCRIPT, encoding="utf-8") as f:
        text = f.read()
    t = re.search(r"^T='([^']+)'", text, re.M).group(1)
    found = []
    for name, cmd in re.findall(r'^step (\S+) (?:ok|fail) "(.*)"$', text, re.M):
        cmd = cmd.replace("$T", t).replace('\\"', '"')
        cmd = cmd.replace("\\$", "$").replace("\\\\", "\\")
        found.append((name, cmd))
    return found


def test_lab6_every_step_is_on_the_page():
    # Lab 6 has no long-running steps to leave out: the page shows every
    # command of labs/capture-lab6.sh, in the order the script runs them,
    # and every capture it includes comes from one of them.
    text = page(6)
    shown = re.findall(r"^   \$ (.+)$", text, re.M)
    made = lab6_steps()
    assert len(made) > 10
    for name, cmd in made:
        assert cmd in shown, "lab 6: the command of step %s is not on the page: %s" % (name, cmd)
    at = -1
    for name, cmd in made:
        later = [i for i, s in enumerate(shown) if s == cmd and i > at]
        assert later, "lab 6: step %s comes earlier on the page than in the script" % name
        at = later[0]
    names = dict(made)
    included = re.findall(r"literalinclude:: \.\./captures/lab6/(\S+)\.txt", text)
    assert included, "lab 6 includes no capture"
    for name in included:
        assert name in names, "%s.txt is not made by labs/capture-lab6.sh" % name
        path = os.path.join(REPO, "docs", "captures", "lab6", name + ".txt")
        assert os.path.getsize(path) > 0, "%s is empty: run labs/capture-lab6.sh" % path
    assert made[-1][1] == "vm/gcovlab lab 0", "lab 6 must end on the baseline"
