# SPDX-License-Identifier: GPL-2.0
"""Sphinx directives that make the site from labs/index.toml.

  .. lab-table::      the course at a glance: one row per lab
  .. lab-toctree::    the labs' pages, in course order
  .. lab-time:: N     Lab N's Time line, from docs/captures/times.json

labs/index.toml is the one list of labs; tools/pagerun.py measures each
lab's duration when it runs the page and records it in times.json.
"""

import json
import os
import tomllib

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INDEX = os.path.join(ROOT, "labs", "index.toml")
TIMES = os.path.join(ROOT, "docs", "captures", "times.json")


def load_labs():
    with open(INDEX, "rb") as f:
        return tomllib.load(f)["lab"]


def load_times():
    try:
        with open(TIMES, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def minutes(seconds):
    m = max(1, round(seconds / 60))
    return "%d min" % m


def docname(lab):
    return lab["page"][:-len(".rst")]


class Generated(Directive):
    """A directive whose output is reStructuredText made from the lab list."""

    def rst(self):
        raise NotImplementedError

    def run(self):
        env = self.state.document.settings.env
        env.note_dependency(INDEX)
        env.note_dependency(TIMES)
        node = nodes.container()
        self.state.nested_parse(StringList(self.rst(), source="labs/index.toml"),
                                self.content_offset, node)
        return node.children


class LabTable(Generated):
    def rst(self):
        times = load_times()
        out = [".. list-table::", "   :header-rows: 1", "   :widths: 6 40 10 14 10 12", "",
               "   * - Lab", "     - What it teaches", "     - Patches",
               "     - Kernel", "     - Time", "     - Needs"]
        for lab in load_labs():
            n = lab["number"]
            patches = lab.get("patches")
            if lab["kernel"] == "mainline":
                kernel = "mainline"
                shown = "none"
            else:
                kernel = "series" + (", " + lab["variant"] if lab.get("variant") else "")
                shown = "0001" if patches == 1 else "0001-%04d" % patches
            t = times.get(str(n), {}).get("warm")
            needs = ", ".join(":doc:`Lab %d </%s>`" % (d, docname(by)) for d in
                              lab.get("depends", []) for by in load_labs()
                              if by["number"] == d) or "setup"
            exercise = os.path.isfile(os.path.join(ROOT, "labs", "lab%02d" % n, "exercise.toml"))
            out += ["   * - :doc:`%d </%s>`" % (n, docname(lab)),
                    "     - **%s**: %s%s" % (lab["title"], lab.get("teaches", ""),
                                           "; *exercise: you write it, vm/gcovlab check "
                                           "%d tells you where you stand*" % n
                                           if exercise else ""),
                    "     - %s" % shown,
                    "     - %s" % kernel,
                    "     - %s" % (minutes(t) if t else "not measured"),
                    "     - %s" % needs]
        return out


class LabToctree(Generated):
    def rst(self):
        out = [".. toctree::", "   :maxdepth: 1", "   :caption: Labs", ""]
        for lab in load_labs():
            out.append("   Lab %d: %s </%s>" % (lab["number"], lab["title"], docname(lab)))
        return out


class LabTime(Generated):
    required_arguments = 1

    def rst(self):
        n = self.arguments[0]
        t = load_times().get(n, {})
        warm = t.get("warm")
        if warm is None:
            return ["**Time:** not measured yet (run ``tools/pagerun.py --capture %s``)." % n]
        text = ("**Time:** %s of commands with the lab's kernels already built "
                "(``tools/pagerun.py`` ran this page in %d s on %s, on the machine of "
                ":doc:`/docs/setup`)" % (minutes(warm), warm, t.get("warm_date", "?")))
        if t.get("cold"):
            text += "; %s from an empty work directory" % minutes(t["cold"])
        else:
            text += ("; each kernel the lab builds for the first time adds 3 to 6 "
                     "minutes (the build's own progress lines say so)")
        return [text + ". Add the time to read and to try the exercises."]


def setup(app):
    app.add_directive("lab-table", LabTable)
    app.add_directive("lab-toctree", LabToctree)
    app.add_directive("lab-time", LabTime)
    return {"parallel_read_safe": True, "version": "1"}
