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
