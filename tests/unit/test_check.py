# SPDX-License-Identifier: GPL-2.0
"""tools/check.py, make check's two processes: the closing counts and the
merged check-times.txt."""

import ast
import importlib.util
import os

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
    """The calls of the helper gcovlab() in SOURCE that move the shared
    tree or build from it: the commands lab, exercise, reset and check, and
    --lab or --tree.  A file that makes a work directory of its own
    (conftest.own_work) may do so there, with GCOVLAB_WORK in env=."""
    own = "own_work(" in source
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "gcovlab"):
            continue
        words = [a.value for a in node.args
                 if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        moving = (words[:1] and words[0] in ("lab", "exercise", "reset", "check")) or \
            "--lab" in words or "--tree" in words
        if moving and not (own and any(k.arg == "env" for k in node.keywords)):
            found.append(ast.unparse(node))
    return found


def test_the_tree_rule_sees_what_moves_the_tree():
    assert tree_moves('gcovlab("lab", "3")\ngcovlab("run", "--tree")\n') == \
        ["gcovlab('lab', '3')", "gcovlab('run', '--tree')"]
    assert tree_moves('gcovlab("build", "--mainline")\ngcovlab("lab", "--help", env=e)\n') == \
        ["gcovlab('lab', '--help', env=e)"]
    assert tree_moves('w = own_work("x")\ngcovlab("build", "--tree", env={"GCOVLAB_WORK": w})\n') \
        == []


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
