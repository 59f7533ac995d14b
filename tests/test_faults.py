# SPDX-License-Identifier: GPL-2.0
"""Faults: a hanging workload, a module that does not compile, a failing
workload.  Each gets a clear message, the right exit status, and keeps
what a person needs to look into it."""

import os
import re

from conftest import DATA, DRIVER, gcovlab


def write_workload(tmp_path, body):
    path = tmp_path / "workload.sh"
    path.write_text("#!/bin/sh\n" + body)
    return path


def test_hanging_workload_is_killed_at_the_timeout(mainline, tmp_path):
    workload = write_workload(tmp_path, "insmod gcovdemo.ko\necho about to hang\nsleep 100000\n")
    out = tmp_path / "out"
    proc = gcovlab("run", "--mainline", "--module", DRIVER, "--workload", workload,
                   "--out", out, "--timeout", "30", timeout=300)
    assert proc.returncode == 124, (proc.stdout, proc.stderr)
    assert "did not finish within 30 s" in proc.stderr
    assert "console log is kept: %s" % (out / "console.log") in proc.stderr
    console = (out / "console.log").read_text()
    assert "about to hang" in console and "gcovlab: workload start" in console
    assert not (out / "status").exists()


def test_module_that_fails_to_compile_shows_the_compiler_error(mainline, tmp_path):
    broken = os.path.join(DATA, "broken-mod")
    proc = gcovlab("run", "--mainline", "--module", broken,
                   "--workload", write_workload(tmp_path, "true\n"), "--out", tmp_path / "out")
    assert proc.returncode == 125
    assert "did not build" in proc.stderr
    assert re.search(r"error: .undeclared_on_purpose. undeclared", proc.stderr)
    # Paths point at the instructor's source, not at gcovlab's copy of it.
    assert "%s/broken.c:7:16: error" % broken in proc.stderr
    assert "booting" not in proc.stdout


def test_failing_workload_status_comes_back(mainline, tmp_path):
    out = tmp_path / "out"
    workload = write_workload(tmp_path, "insmod gcovdemo.ko\necho 1 2 + > /dev/gcovdemo\nexit 3\n")
    proc = gcovlab("run", "--mainline", "--module", DRIVER, "--workload", workload, "--out", out)
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    assert (out / "status").read_text() == "3\n"
    assert "workload exit status 3" in proc.stdout
    # The coverage of what ran before the failure is still collected.
    assert (out / "lcov.info").exists()


def test_workload_that_never_loads_the_module(mainline, tmp_path):
    out = tmp_path / "out"
    proc = gcovlab("run", "--mainline", "--module", DRIVER,
                   "--workload", write_workload(tmp_path, "echo forgot insmod\n"), "--out", out)
    assert proc.returncode == 0
    assert "no .gcda file for the module came back" in proc.stderr
    assert "did the workload load the module" in proc.stderr


def test_module_needing_a_missing_subsystem_gets_a_hint(mainline, tmp_path):
    proc = gcovlab("run", "--mainline", "--module", os.path.join(DATA, "needs-net"),
                   "--workload", write_workload(tmp_path, "true\n"), "--out", tmp_path / "out")
    assert proc.returncode == 125
    assert "did not build" in proc.stderr
    assert "undefined" in proc.stderr
    assert "Add its CONFIG_ option to vm/kernel.config" in proc.stderr


def test_file_reaches_the_guest_next_to_the_workload(mainline, tmp_path):
    helper = tmp_path / "helper.sh"
    helper.write_text("#!/bin/sh\necho \"helper ran with $1 in $(pwd)\"\n")
    helper.chmod(0o755)
    data = tmp_path / "data.txt"
    data.write_text("forty-two\n")
    workload = write_workload(tmp_path, "./helper.sh one\ncat data.txt\n"
                              "[ -x data.txt ] || echo data not executable\n")
    proc = gcovlab("run", "--mainline", "--module", DRIVER, "--workload", workload,
                   "--out", tmp_path / "out", "--file", helper, "--file", data)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "helper ran with one in /work" in proc.stdout
    assert "forty-two" in proc.stdout and "data not executable" in proc.stdout
