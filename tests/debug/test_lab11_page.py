# SPDX-License-Identifier: GPL-2.0
"""Lab 11's page, followed literally on the debug kernels (see
tests/test_pages.py for what the runner checks).  The mainline run's
stop is a race (``.. runner: exit any``), its figures vary (``digits``)."""

import os
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "tools"))
import pagerun  # noqa: E402


def test_lab11_page_runs_as_written(tree, tmp_path):
    result = pagerun.run_lab(11, base=str(tmp_path))
    print("lab 11: %d s" % result.seconds)
    if result.problems:
        pytest.fail("Lab 11, followed literally:\n- " + "\n- ".join(result.problems),
                    pytrace=False)
