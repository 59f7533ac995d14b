# SPDX-License-Identifier: GPL-2.0
"""Every lab page, followed literally: Labs 1 to 10 in course order, then Lab 0.

tools/pagerun.py reads the page, types its console blocks' commands into
one bash session (fresh HOME, from the top of the checkout, starting on a
clean baseline) and fails the lab, naming the page line, the step and the
command, when:

* a command's exit status is not the page's (0, or its ``.. runner:
  exit N``);
* the prose says to look for a text that the output shown above it does
  not have (a ``:lines:`` that hides it counts);
* a capture the page shows has drifted from what the command prints now,
  after masking times, timestamps, stamps and paths;
* the page does not end on a clean baseline, where the next lab starts.

The kernels are those the other tests build (the work directory is
shared), so a warm run boots but rarely builds.  Lab 11 needs the debug
kernels: make check-debug runs its page (tests/debug/test_lab11_page.py).
tests/unit/test_pagerun.py shows that each kind of fault is caught.
"""

import os
import shutil
import sys

import pytest

from conftest import PAGE_RUNS, REPO

sys.path.insert(0, os.path.join(REPO, "tools"))
import pagerun  # noqa: E402

# Lab 0 last: it is the one page that runs the mainline kernel only, which
# the suite builds in the background from the start (conftest.py); on an
# empty work directory, Lab 0 first waited for that build with nothing
# else to do, where Labs 1 to 10 build their own kernels meanwhile.  Each
# page starts from a clean baseline and leaves one, so the order is free.
LABS = [n for n in sorted(pagerun.labs()) if n not in (0, 11)] + [0]
# The pages whose run a lab's tests take instead of doing it again: the
# folder under the page's HOME that holds what the run made.
SHARED = {9: "lab9/all", 10: "lab10"}


@pytest.mark.parametrize("number", LABS)
def test_lab_page_runs_as_written(tree, number, tmp_path):
    result = pagerun.run_lab(number, base=str(tmp_path))
    print("lab %d: %d s" % (number, result.seconds))
    if not result.problems and number in SHARED:
        # what the page made, for the lab's own tests (conftest.PAGE_RUNS)
        kept = tmp_path / "kept"
        shutil.copytree(os.path.join(pagerun.HOME, SHARED[number]), kept, symlinks=True)
        PAGE_RUNS[number] = {"outputs": result.outputs, "dir": kept}
    if result.problems:
        pytest.fail("Lab %d, followed literally (tools/pagerun.py %d):\n- %s" % (
            number, number, "\n- ".join(result.problems)), pytrace=False)
