# SPDX-License-Identifier: GPL-2.0
"""Every bad argument gets a clear message and a non-zero exit, before any
slow step runs (none of these tests builds or boots anything)."""

import os

import pytest

from conftest import DRIVER, REPO, gcovlab

BASIC = os.path.join(DRIVER, "workload-basic.sh")


def fails(proc, code, *words):
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "gcovlab: error:" in proc.stderr
    for w in words:
        assert w in proc.stderr, (w, proc.stderr)
    # Nothing slow started: no build, no boot.
    assert "building" not in proc.stdout and "booting" not in proc.stdout


def test_help_lists_every_command():
    proc = gcovlab("--help")
    assert proc.returncode == 0
    for cmd in ("tree", "lab", "build", "boot", "run", "report", "status", "clean"):
        assert "\n    %s " % cmd in proc.stdout, cmd


@pytest.mark.parametrize("cmd", ["tree", "lab", "build", "boot", "run", "report", "status", "clean"])
def test_each_command_has_help(cmd):
    proc = gcovlab(cmd, "--help")
    assert proc.returncode == 0 and "usage: vm/gcovlab %s" % cmd in proc.stdout


def test_run_help_documents_every_option():
    out = gcovlab("run", "--help").stdout
    for opt in ("--module", "--workload", "--out", "--lab", "--mainline", "--tree",
                "--timeout", "--accel"):
        assert opt in out, opt


def test_no_command():
    proc = gcovlab()
    assert proc.returncode == 2 and "name a command" in proc.stderr


def test_unknown_command():
    proc = gcovlab("frobnicate")
    assert proc.returncode == 2 and "invalid choice: 'frobnicate'" in proc.stderr


def test_run_needs_module_workload_out():
    proc = gcovlab("run", "--mainline")
    assert proc.returncode == 2
    assert "--module" in proc.stderr and "--workload" in proc.stderr and "--out" in proc.stderr


def test_module_missing(tmp_path):
    fails(gcovlab("run", "--module", tmp_path / "nope", "--workload", BASIC,
                  "--out", tmp_path / "o"), 2, "is not a directory")


def test_module_without_makefile(tmp_path):
    (tmp_path / "m").mkdir()
    fails(gcovlab("run", "--module", tmp_path / "m", "--workload", BASIC,
                  "--out", tmp_path / "o"), 2, "neither a Kbuild nor a Makefile")


def test_workload_missing(tmp_path):
    fails(gcovlab("run", "--module", DRIVER, "--workload", tmp_path / "w.sh",
                  "--out", tmp_path / "o"), 2, "--workload", "does not exist")


def test_workload_is_a_directory(tmp_path):
    fails(gcovlab("run", "--module", DRIVER, "--workload", tmp_path,
                  "--out", tmp_path / "o"), 2, "not a regular file")


def test_out_not_ours_is_refused_and_kept(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "precious.txt").write_text("student data\n")
    fails(gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", out), 2,
          "not empty and was not made by gcovlab")
    assert sorted(os.listdir(out)) == ["precious.txt"]
    assert (out / "precious.txt").read_text() == "student data\n"


def test_out_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    fails(gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", tmp_path / "f"),
          2, "is not a directory")


def test_out_with_space(tmp_path):
    fails(gcovlab("run", "--module", DRIVER, "--workload", BASIC,
                  "--out", tmp_path / "my out"), 2, "space")


def test_out_inside_module(tmp_path):
    fails(gcovlab("run", "--module", DRIVER, "--workload", BASIC,
                  "--out", os.path.join(DRIVER, "out")), 2, "must not contain each other")
    assert not os.path.exists(os.path.join(DRIVER, "out"))


def test_lab_and_mainline_together(tmp_path):
    proc = gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", tmp_path / "o",
                   "--lab", "0", "--mainline")
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr


@pytest.mark.parametrize("lab", ["13", "99"])
def test_lab_that_does_not_exist_yet(tmp_path, lab):
    fails(gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", tmp_path / "o",
                  "--lab", lab), 2, "Lab %s does not exist yet" % lab, "labs/index.toml")
    assert not (tmp_path / "o").exists()


def test_lab_not_a_number(tmp_path):
    proc = gcovlab("build", "--lab", "three")
    assert proc.returncode == 2 and "whole number" in proc.stderr


@pytest.mark.parametrize("value", ["0", "-5", "ten"])
def test_bad_timeout(tmp_path, value):
    proc = gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", tmp_path / "o",
                   "--timeout", value)
    assert proc.returncode == 2 and "--timeout" in proc.stderr


def test_bad_accel(tmp_path):
    proc = gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", tmp_path / "o",
                   "--accel", "hvf")
    assert proc.returncode == 2 and "invalid choice: 'hvf'" in proc.stderr


def test_build_needs_a_kernel():
    proc = gcovlab("build")
    assert proc.returncode == 2 and "one of the arguments" in proc.stderr


def test_clean_needs_a_choice():
    proc = gcovlab("clean")
    assert proc.returncode == 2


def test_report_on_foreign_dir(tmp_path):
    fails(gcovlab("report", "--out", tmp_path), 2, "not the --out of a gcovlab run")


def test_work_dir_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    fails(gcovlab("status", env={"GCOVLAB_WORK": str(tmp_path / "f")}), 125,
          "is not a directory")


def test_work_dir_inside_checkout():
    fails(gcovlab("tree", env={"GCOVLAB_WORK": os.path.join(REPO, "work")}), 125,
          "inside the checkout")
    assert not os.path.exists(os.path.join(REPO, "work"))


def test_work_dir_with_a_space(tmp_path):
    fails(gcovlab("tree", env={"GCOVLAB_WORK": str(tmp_path / "my work")}), 125,
          "space")
    assert not (tmp_path / "my work").exists()


def test_file_that_does_not_exist(tmp_path):
    fails(gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", tmp_path / "o",
                  "--file", tmp_path / "nope"), 2, "--file", "does not exist")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("names", [("helper.sh", "sub/helper.sh"), ("workload.sh",),
                                   ("x.ko",)])
def test_file_names_that_collide(tmp_path, names):
    args = []
    for name in names:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
        args += ["--file", path]
    fails(gcovlab("run", "--module", DRIVER, "--workload", BASIC, "--out", tmp_path / "o",
                  *args), 2, "already has a file named", "rename it")
