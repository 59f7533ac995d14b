# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration for the gcov-kernel-labs site.
#
# The repository root is the Sphinx source directory.  Build with:
#   /usr/bin/python3 -m sphinx -W --keep-going -b html . _build/html
# Everything the site needs comes from Debian packages; the build and the
# rendered pages use no network (no intersphinx, no CDN assets).

project = "gcov-kernel-labs"
author = "gcov-kernel-labs contributors"
copyright = "gcov-kernel-labs contributors; documentation CC-BY-SA-4.0"

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs", "_ext"))

extensions = [
    "labsite",
    "benchsite",
    "sphinx.ext.graphviz",
    "sphinx.ext.todo",
]

# Diagrams are rendered at build time by Debian's graphviz, as SVG files.
graphviz_output_format = "svg"

# ".. todo::" is accepted in sources but never shown on the site.
todo_include_todos = False

root_doc = "index"
language = "en"

# Only index.rst and docs/ are pages.  Everything else in the checkout is
# tooling, lab material or data that pages pull in with directives
# (diagrams/*.dot via "graphviz", docs/captures/* via "literalinclude").
exclude_patterns = [
    "_build",
    "README.md",
    "labs",
    "vm",
    "patches",
    "tests",
    ".ci",
    ".git",
    "diagrams",
    "docs/captures",
    "docs/reports",
    "**/.pytest_cache",
    "**/__pycache__",
]

html_theme = "sphinx_rtd_theme"
html_title = "gcov-kernel-labs"
html_theme_options = {
    "collapse_navigation": False,
    "navigation_depth": 3,
}
html_show_sourcelink = False
html_static_path = ["docs/_static"]
# Reports copied as they are to the site's root: docs/reports/lab7-report/
# (Lab 7's lcov HTML, made by tools/pagerun.py --capture 7) becomes
# lab7-report/index.html.  favicon.ico goes there too: browsers ask the
# site's root for it, genhtml's pages included.
html_extra_path = ["docs/reports"]
html_favicon = "docs/reports/favicon.ico"
html_css_files = ["site.css"]
html_favicon = "docs/_static/favicon.svg"
