# SPDX-License-Identifier: GPL-2.0
"""tools/check.py, make check's two processes: the closing counts and the
merged check-times.txt."""

import ast
import json
import importlib.util
import os
import subprocess
import types

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def check(tmp_path, monkeypatch):
    monkeypatch.setenv("GCOVLAB_WORK", str(tmp_path))
    spec = importlib.util.spec_from_file_location("check", os.path.join(REPO, "tools", "check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def uses_fixture(source, name):
    """Whether a test or fixture of SOURCE takes the fixture NAME."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and (
                node.name.startswith("test_") or any(
                    "fixture" in ast.unparse(d) for d in node.decorator_list)):
            if name in [a.arg for a in node.args.args]:
                return True
    return False


def test_every_second_process_file_exists_and_none_moves_the_tree(check):
    for rel in check.SECOND:
        path = os.path.join(REPO, rel)
        assert os.path.isfile(path), rel
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # the fixtures that need the checkout on baseline, and the tool's
        # commands that move it, belong to the first process
        for fixture in ("tree", "lab_kernel"):
            assert not uses_fixture(text, fixture), (rel, fixture)
        assert not tree_moves(text), (rel, tree_moves(text))


def tree_moves(source):
    """The calls of the helper gcovlab() in SOURCE that may move the shared
    tree or build from it: the commands lab, exercise, reset, check and
    clean, --lab and --tree, and a call whose command is not spelled out.
    A call is allowed them only in a work directory of its own: its env=
    holds GCOVLAB_WORK, in a file that takes one from conftest.own_work.
    (Raw git commands on the tree are not looked at.)"""
    tree = ast.parse(source)
    own = any(isinstance(n, ast.Call) and getattr(n.func, "id", None) == "own_work"
              for n in ast.walk(tree))

    def names_work(node):
        return isinstance(node, ast.Dict) and any(
            isinstance(k, ast.Constant) and k.value == "GCOVLAB_WORK" for k in node.keys)
    own_envs = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and names_work(n.value)
                for t in n.targets if isinstance(t, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "gcovlab"):
            continue
        first = node.args[0] if node.args else None
        words = [a.value for a in node.args
                 if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        moving = not (isinstance(first, ast.Constant) and isinstance(first.value, str)) or \
            first.value in ("lab", "exercise", "reset", "check", "clean") or \
            any(w.split("=")[0] in ("--lab", "--tree") for w in words)
        env = [k.value for k in node.keywords if k.arg == "env"]
        allowed = own and env and (names_work(env[0]) or (
            isinstance(env[0], ast.Name) and env[0].id in own_envs))
        if moving and not allowed:
            found.append(ast.unparse(node))
    return found


def test_the_tree_rule_sees_what_moves_the_tree():
    assert tree_moves('gcovlab("lab", "3")\ngcovlab("run", "--tree")\n') == \
        ["gcovlab('lab', '3')", "gcovlab('run', '--tree')"]
    assert tree_moves('gcovlab("build", "--mainline")\ngcovlab("clean", "--all")\n'
                      'gcovlab("boot", "--lab=2")\ngcovlab(*args)\n') == \
        ["gcovlab('clean', '--all')", "gcovlab('boot', '--lab=2')", "gcovlab(*args)"]
    # another env, or GCOVLAB_WORK without a work directory of one's own
    assert tree_moves('with own_work("x") as w:\n    gcovlab("lab", "1", env=os.environ)\n') \
        == ["gcovlab('lab', '1', env=os.environ)"]
    assert tree_moves('gcovlab("build", "--tree", env={"GCOVLAB_WORK": w})\n') == \
        ["gcovlab('build', '--tree', env={'GCOVLAB_WORK': w})"]
    assert tree_moves('with own_work("x") as w:\n    own = {"GCOVLAB_WORK": w}\n'
                      '    gcovlab("build", "--tree", env=own)\n'
                      '    gcovlab("boot", "--tree", env={"GCOVLAB_WORK": w})\n') == []


def test_counts_add_up_and_a_missing_process_is_a_failure(check, tmp_path, capsys):
    (tmp_path / "check-counts.tree.txt").write_text("300 2 1\n")
    (tmp_path / "check-counts.other.txt").write_text("150 0 0\n")
    assert check.total_counts() == [450, 2, 1]
    os.remove(tmp_path / "check-counts.other.txt")
    assert check.total_counts() == [300, 3, 1]
    assert "the other process left no counts" in capsys.readouterr().out


def test_times_merged_slowest_first(check, tmp_path):
    (tmp_path / "check-times.tree.txt").write_text(
        "# header\n   12.0  tests/a.py::x\n    1.5  tests/a.py::y\n")
    (tmp_path / "check-times.other.txt").write_text("# header\n    3.0  tests/b.py::z\n")
    check.merge_times(100)
    lines = (tmp_path / "check-times.txt").read_text().splitlines()
    assert lines[0].startswith("# ") and "3 tests in 100 s" in lines[0]
    assert [line.split()[1] for line in lines[1:]] == ["tests/a.py::x", "tests/b.py::z",
                                                       "tests/a.py::y"]


def test_record_of_a_run_reads_each_process_time(check, tmp_path):
    """check-run.json: the run's time, cold or warm, the counts, the ten
    slowest, and each process's own time from its check-times file."""
    (tmp_path / "check-times.tree.txt").write_text(
        "# 2026-12-06 15:16:53 UTC: 261 tests in 1246 s (20 min 46 s), exit status 0; "
        "seconds per test, slowest first\n   148.4  tests/test_pages.py::x[9]\n")
    (tmp_path / "check-times.other.txt").write_text("# something else entirely\n")
    assert check.stream_seconds("tree") == 1246.0
    assert check.stream_seconds("other") is None
    slowest = [(float(100 - i), "tests/t.py::t%d" % i) for i in range(12)]
    check.write_record(dict(started=1765034213.0, seconds=1300.44, work="cold",
                            commit="abc1234", counts=[518, 0, 2], exit=[0, 0],
                            slowest=slowest))
    with open(check.record_path(), encoding="utf-8") as f:
        record = json.load(f)
    assert record["work"] == "cold" and record["seconds"] == 1300.4
    assert (record["passed"], record["failed"], record["skipped"]) == (518, 0, 2)
    assert record["streams"] == {"tree": 1246.0, "other": None}
    assert record["started"] == "2025-12-06 15:16 UTC"
    assert record["exit"] == [0, 0] and record["commit"] == "abc1234"
    assert record["slowest"] == [[100.0 - i, "tests/t.py::t%d" % i] for i in range(10)]


def test_work_state(check, tmp_path):
    assert check.work_state() == "cold"
    (tmp_path / "ccache").mkdir()
    assert check.work_state() == "partial"
    (tmp_path / "linux").mkdir()
    (tmp_path / "build").mkdir()
    assert check.work_state() == "warm"


class FakeProc:
    """Stands in for a pytest process: writes its stream's counts and times."""

    def __init__(self, cmd, cwd=None, env=None, stdout=None, stderr=None):
        stream = env["GCOVLAB_CHECK_STREAM"]
        work = env["GCOVLAB_WORK"]
        with open(os.path.join(work, "check-counts.%s.txt" % stream), "w") as f:
            f.write("3 0 0\n")
        with open(os.path.join(work, "check-times.%s.txt" % stream), "w") as f:
            f.write("# 2026-12-06 10:00:00 UTC: 3 tests in 7 s (0 min 07 s), exit status 0\n"
                    "     5.0  tests/%s.py::slow\n     1.0  tests/%s.py::quick\n\n"
                    % (stream, stream))
        self.returncode = 0

    def poll(self):
        return 0

    def wait(self):
        return 0


def test_a_whole_run_leaves_its_record_and_one_with_arguments_does_not(
        check, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(check, "subprocess", types.SimpleNamespace(
        Popen=FakeProc, STDOUT=subprocess.STDOUT,
        run=lambda cmd, **kw: subprocess.run(cmd, **kw) if cmd[0] == "git"
        else FakeProc(cmd, **kw)))
    # times of an earlier run, which must not be taken for this one's
    (tmp_path / "check-times.tree.txt").write_text("# old: 9 tests in 999 s (x)\n")
    assert check.main([]) == 0
    with open(check.record_path(), encoding="utf-8") as f:
        record = json.load(f)
    assert record["work"] == "cold" and record["passed"] == 6
    assert record["streams"] == {"tree": 7.0, "other": 7.0}
    assert sorted(t for _s, t in record["slowest"][:2]) == ["tests/other.py::slow",
                                                            "tests/tree.py::slow"]
    assert "check: 6 passed, 0 failed, 0 skipped" in capsys.readouterr().out
    os.remove(check.record_path())
    assert check.main(["-x"]) == 0
    assert not os.path.exists(check.record_path())
