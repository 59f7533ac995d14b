# SPDX-License-Identifier: GPL-2.0
"""The documentation site: it builds with no warning, and every page loads
cleanly in headless Chromium.

Run with:  /usr/bin/python3 -m pytest tests/test_docs.py
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pagecheck  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the site once for this module: (CompletedProcess, html dir)."""
    out = str(tmp_path_factory.mktemp("site") / "html")
    return pagecheck.build_site(out), out


@pytest.fixture(scope="module")
def site(built):
    res, out = built
    if res.returncode != 0:
        pytest.fail("the Sphinx build failed, see test_sphinx_build", pytrace=False)
    return out


def test_sphinx_build(built):
    """sphinx -W --keep-going -b html . OUT succeeds from the repo root."""
    res, out = built
    assert res.returncode == 0, (
        "sphinx-build failed (warnings are errors):\n" + res.stdout[-4000:]
        + res.stderr[-8000:])
    assert os.path.isfile(os.path.join(out, "index.html"))


def test_pages_exist(site):
    """Every page of the toctree was rendered."""
    pages = set(pagecheck.html_pages(site))
    for page in ("index.html", "docs/setup.html", "docs/lab-loop.html",
                 "docs/labs/lab0.html", "docs/instructors.html",
                 "docs/licence.html", "docs/glossary.html",
                 "docs/troubleshooting.html", "docs/architecture.html",
                 "docs/performance.html"):
        assert page in pages


def test_assets_local_and_present(site):
    """No page loads anything from the network, and every local asset it
    names (including url() in its stylesheets) exists."""
    problems = []
    for page in pagecheck.html_pages(site):
        problems += pagecheck.static_problems(site, page)
    assert not problems, "\n".join(problems)


def test_pages_in_chromium(site):
    """Each page loads in headless Chromium with no SEVERE console entry,
    every asset loaded, and its diagrams rendered as SVG."""
    why = pagecheck.browser_missing()
    if why:
        pytest.skip("page check needs a browser: " + why)
    pages, problems = pagecheck.check_site(site)
    assert pages, "no pages found in " + site
    assert not problems, "\n".join(problems)
