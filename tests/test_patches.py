# SPDX-License-Identifier: GPL-2.0
"""The patch series in patches/: format and checkpatch.  Its
bisectability (every prefix applies, builds and boots) is in
test_bisect.py."""

import email
import os
import re
import subprocess

import pytest

from conftest import REPO, work_root

TREE = os.path.join(work_root(), "linux")
PATCHES = sorted(os.path.join(REPO, "patches", p)
                 for p in os.listdir(os.path.join(REPO, "patches")) if p.endswith(".patch"))
IDENTITY = "gcov-kernel-labs <maintainers@gcov-kernel-labs.invalid>"
MAINTAINERS_WARNING = "added, moved or deleted file(s), does MAINTAINERS need updating?"
# checkpatch --strict "CHECK"s (neither errors nor warnings) that are
# accepted, each with its reason: _Pragma is C99's pragma operator, the
# one way to build a #pragma whose text is macro-expanded.
ACCEPTED_CHECKS = {"Avoid CamelCase: <_Pragma>"}


def git(*args, env=None):
    return subprocess.run(["git", "-C", TREE] + list(args), text=True,
                          capture_output=True, check=True, env=env).stdout


def test_series_exists():
    assert len(PATCHES) >= 3
    names = [os.path.basename(p) for p in PATCHES]
    assert [n[:4] for n in names] == ["%04d" % (i + 1) for i in range(len(names))]


@pytest.mark.parametrize("path", PATCHES, ids=os.path.basename)
def test_patch_format(path):
    with open(path, encoding="utf-8") as f:
        msg = email.message_from_file(f)
    assert msg["From"] == IDENTITY
    assert re.match(r"\[PATCH (v\d+ )?\d+/\d+\] \S", msg["Subject"].replace("\n", " "))
    body = msg.get_payload()
    message = body.split("\n---\n", 1)[0]
    assert "Signed-off-by: " + IDENTITY in message
    # Each message says what 2008 did and what 6.1 already has.
    assert "2008" in message and "6.1" in message
    assert all(len(line) <= 75 for line in message.splitlines()
               if not line.startswith("Signed-off-by"))


@pytest.mark.parametrize("path", PATCHES, ids=os.path.basename)
def test_checkpatch_strict(tree, path):
    env = dict(os.environ)
    # scripts/spdxcheck.py needs Debian's python3-ply and python3-git.
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")
    # --max-line-length=80: the coding style's limit (checkpatch's default
    # is 100); strings that would be split are exempt, as always.
    proc = subprocess.run([os.path.join(TREE, "scripts", "checkpatch.pl"), "--strict",
                           "--max-line-length=80",
                           "--terse", "--no-summary", "--showfile", path],
                          cwd=TREE, env=env, text=True, capture_output=True)
    assert "Traceback" not in proc.stderr, proc.stderr
    findings = [line for line in proc.stdout.splitlines() if line.strip()]
    errors = [f for f in findings if ": ERROR: " in f]
    warnings = [f for f in findings if ": WARNING: " in f]
    checks = [f.split(": CHECK: ", 1)[1] for f in findings if ": CHECK: " in f]
    assert errors == []
    # The last patch adds the MAINTAINERS entry for kernel/gcov/ (v2: its
    # own patch); the ones before it that add files there may draw the one
    # allowed warning.
    assert [w for w in warnings if MAINTAINERS_WARNING not in w] == []
    assert set(checks) <= ACCEPTED_CHECKS


def added_lines(path):
    """The lines a patch adds to the kernel tree (its diff, not its message)."""
    with open(path, encoding="utf-8") as f:
        diff = f.read().split("\n---\n", 1)[1]
    return [line[1:] for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")]


@pytest.mark.parametrize("path", PATCHES, ids=os.path.basename)
def test_the_kernel_lines_speak_of_the_kernel_alone(path):
    """v3: the series is a kernel series; what it adds to the tree does not
    mention the labs built around it (v2's EFI and real-mode Makefile
    comments did)."""
    lab = [line for line in added_lines(path)
           if re.search(r"(?<![\w-])labs?(?![\w-])", line, re.I)]
    assert lab == [], "%s adds lines that speak of the labs:\n%s" % (
        os.path.basename(path), "\n".join(lab))


def test_no_page_of_the_tree_names_mainline_options():
    """v3: every page of Documentation/ that names mainline's
    CONFIG_GCOV_KERNEL in the baseline is changed by the series to name
    its own option (v2 left KUnit's running_tips.rst as it was)."""
    named = git("grep", "-l", "CONFIG_GCOV_KERNEL", "gcovlab-baseline", "--",
                "Documentation").split()
    named = [n.split(":", 1)[1] for n in named]
    assert named, "the baseline names CONFIG_GCOV_KERNEL nowhere: the test proves nothing"
    removed = set()
    for path in PATCHES:
        with open(path, encoding="utf-8") as f:
            diff = f.read().split("\n---\n", 1)[1]
        for part in re.split(r"^diff --git a/", diff, flags=re.M)[1:]:
            name = part.split(" ", 1)[0]
            if any(line.startswith("-") and "CONFIG_GCOV_KERNEL" in line
                   for line in part.splitlines()):
                removed.add(name)
    assert set(named) <= removed, "still naming CONFIG_GCOV_KERNEL: %s" % (
        ", ".join(sorted(set(named) - removed)))
