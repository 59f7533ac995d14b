# SPDX-License-Identifier: GPL-2.0
"""The project's own scripts: shellcheck-clean, and the main job works."""

import os
import subprocess

from conftest import REPO, ok


def test_shellcheck():
    proc = subprocess.run(["make", "-s", "shellcheck"], cwd=REPO, text=True, capture_output=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ci_runs_exactly_the_readme_test_command():
    with open(os.path.join(REPO, "README.md")) as f:
        readme = f.read()
    with open(os.path.join(REPO, ".ci", "run")) as f:
        ci = f.read()
    assert "```sh\nmake check\n```" in readme
    assert "```sh\n./setup.sh demo\n```" in readme
    assert ci.rstrip().endswith("\nmake check")


def test_setup_is_idempotent():
    proc = ok(subprocess.run(["./setup.sh"], cwd=REPO, text=True, capture_output=True))
    assert "all Debian packages already installed" in proc.stdout


def test_make_demo(mainline):
    proc = ok(subprocess.run(["make", "demo"], cwd=REPO, text=True, capture_output=True,
                             timeout=1800))
    assert "HTML report: %s/out/demo/html/index.html" % REPO in proc.stdout
    assert "gcovdemo.c: lines hit " in proc.stdout
