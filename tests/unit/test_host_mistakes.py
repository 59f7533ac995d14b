# SPDX-License-Identifier: GPL-2.0
"""The host checks of Labs 5 and 7 (Lab 6's are in test_exercise.py) on
their files made from patches/ alone: the series passes; the untouched
skeleton fails naming each TODO; --todo K leaves TODO K alone failing;
every mistake of the lab's exercise.toml is caught by the check it names,
with its TODO (and, where it says one, the words of the detail).  No
kernel tree is moved: the mainline tree's headers (kernel_headers);
gcc with AddressSanitizer, seconds each."""

import os
import sys

import pytest

from test_host_variants import lab_files, run_checks

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import exercise  # noqa: E402

LABS = [5, 7]


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    """{lab: {path: the series' text}} of the files the exercise hollows."""
    out = {}
    for lab in LABS:
        root = tmp_path_factory.mktemp("lab%d" % lab)
        lab_files(root, lab)
        out[lab] = {t["file"]: (root / t["file"]).read_text()
                    for t in exercise.load(lab)["todo"]}
    return out


def checked(tmp_path, lab, files, headers):
    lab_files(tmp_path, lab)
    for path, text in files.items():
        (tmp_path / path).write_text(text)
    return run_checks(tmp_path, lab, headers)


def failed_todos(result):
    return sorted({c.todo for c in result if not c.passed and c.todo is not None})


@pytest.mark.parametrize("lab", LABS)
def test_the_series_passes(series, lab, tmp_path, kernel_headers):
    result = checked(tmp_path, lab, series[lab], kernel_headers)
    assert all(c.passed for c in result), [(c.name, c.detail) for c in result if not c.passed]


@pytest.mark.parametrize("lab", LABS)
def test_the_skeleton_fails_naming_each_todo(series, lab, tmp_path, kernel_headers):
    ex = exercise.load(lab)
    result = checked(tmp_path, lab, exercise.skeleton(series[lab], ex["todo"]), kernel_headers)
    assert result[0].passed, result[0].detail
    assert failed_todos(result) == [t["number"] for t in ex["todo"]], \
        [(c.name, c.passed, c.todo) for c in result]


@pytest.mark.parametrize("lab", LABS)
def test_todo_k_leaves_the_last_one_failing(series, lab, tmp_path, kernel_headers):
    ex = exercise.load(lab)
    last = len(ex["todo"])
    result = checked(tmp_path, lab, exercise.skeleton(series[lab], ex["todo"], last),
                     kernel_headers)
    assert failed_todos(result) == [last], [(c.name, c.passed, c.todo) for c in result]


MISTAKES = [pytest.param(lab, m, id="lab%d-%s" % (lab, "-".join(m["what"].split()[:6])))
            for lab in LABS for m in exercise.load(lab).get("mistake", [])]


@pytest.mark.parametrize("lab,mistake", MISTAKES)
def test_a_mistake_is_caught_with_its_todo(series, lab, mistake, tmp_path, kernel_headers):
    text = series[lab][mistake["file"]]
    assert mistake["old"] in text, "the mistake no longer applies to the series"
    files = dict(series[lab], **{mistake["file"]: text.replace(mistake["old"],
                                                                mistake["new"], 1)})
    failed = [c for c in checked(tmp_path, lab, files, kernel_headers) if not c.passed]
    assert failed, "the mistake was not caught"
    assert failed[0].todo == mistake["todo"] and mistake["check"] in failed[0].name, \
        [(c.name, c.todo, c.detail) for c in failed]
    assert mistake.get("detail", "") in failed[0].detail, failed[0].detail
