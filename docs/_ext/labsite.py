# SPDX-License-Identifier: GPL-2.0
"""Sphinx directives that make the site from labs/index.toml.

  .. lab-table::      the course at a glance: one row per lab
  .. lab-toctree::    the labs' pages, in course order
  .. lab-time:: N     Lab N's Time line, from docs/captures/times.json
  .. answer-key:: N   the mistakes Lab N's exercise catches, from its
                      labs/labNN/exercise.toml (the tests run the same list)
  .. workshop-agenda::  one row per lab: its measured time, its exercise's
                      time and where its checks run
  .. solution:: TITLE its content (indented) folded away, closed until the
                      reader opens it: an answer a student should try
                      first (tools/pagerun.py runs the console blocks
                      inside as if they were not indented)

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


def exercise_path(number):
    return os.path.join(ROOT, "labs", "lab%02d" % number, "exercise.toml")


def load_exercise(number):
    try:
        with open(exercise_path(number), "rb") as f:
            return tomllib.load(f)
    except OSError:
        return None


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
                if lab.get("lab_patch"):
                    shown += " + the lab's own"
            t = times.get(str(n), {}).get("warm")
            needs = ", ".join(":doc:`Lab %d </%s>`" % (d, docname(by)) for d in
                              lab.get("depends", []) for by in load_labs()
                              if by["number"] == d) or "setup"
            exercise = os.path.isfile(exercise_path(n))
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
            text += ("; %s the first time, on a new machine, with the earlier labs "
                     "done (``tools/pagerun.py --cold --all`` from an empty work "
                     "directory, %s): the kernels it builds for the first time" % (
                         minutes(t["cold"]), t.get("cold_date", "?")))
        else:
            text += ("; each kernel the lab builds for the first time adds 3 to 6 "
                     "minutes (the build's own progress lines say so)")
        return [text + ". Add the time to read and to try the exercises."]


class AnswerKey(Generated):
    required_arguments = 1

    def rst(self):
        n = int(self.arguments[0])
        self.state.document.settings.env.note_dependency(exercise_path(n))
        ex = load_exercise(n)
        if not ex or not ex.get("mistake"):
            return ["Lab %d's exercise lists no mistakes yet." % n]
        out = [".. list-table::", "   :header-rows: 1", "   :widths: 50 38 12", "",
               "   * - the mistake", "     - the first check that fails", "     - hint"]
        for m in ex["mistake"]:
            out += ["   * - %s" % m["what"], "     - %s" % m["check"],
                    "     - TODO %d" % m["todo"]]
        out += ["   * - nothing written yet (the untouched skeleton)",
                "     - one check or more for each TODO",
                "     - TODO 1 to %d" % len(ex["todo"])]
        return out


class WorkshopAgenda(Generated):
    def rst(self):
        times = load_times()
        out = [".. list-table::", "   :header-rows: 1", "   :widths: 28 14 30 28", "",
               "   * - Lab", "     - Commands (measured)", "     - Exercise",
               "     - Suggested slot"]
        total = 0
        for lab in load_labs():
            n = lab["number"]
            self.state.document.settings.env.note_dependency(exercise_path(n))
            t = times.get(str(n), {}).get("warm")
            cold = times.get(str(n), {}).get("cold")
            ex = load_exercise(n)
            if ex:
                how = ex.get("measured")
                exercise = "%d TODOs, about %d min%s; ``check %d`` runs on the %s" % (
                    len(ex["todo"]), ex["minutes"],
                    " (our estimate; %s)" % how if how else " (estimate)",
                    n, ex.get("checks_on", "host"))
            else:
                exercise = "none yet: the page's numbered exercises"
            # reading the page and its chapter link: 15 minutes a lab, our
            # rule of thumb, not a measurement
            slot = 15 + (t or 300) / 60 + (ex["minutes"] if ex else 10)
            slot = int(-(-slot // 15) * 15)
            total += slot
            out += ["   * - :doc:`Lab %d: %s </%s>`" % (n, lab["title"], docname(lab)),
                    "     - %s%s" % (minutes(t) if t else "not measured",
                                   " (%s the first time, on a new machine)" % minutes(cold)
                                   if cold else ""),
                    "     - %s" % exercise,
                    "     - %d min" % slot]
        cold = [v.get("cold") for v in times.values()]
        out += ["   * - **all labs**", "     - %s%s" % (minutes(sum(
                    v.get("warm", 0) for v in times.values())),
                    " (%s the first time)" % minutes(sum(cold)) if all(cold) else ""),
                "     -",
                "     - %d h %02d min" % (total // 60, total % 60)]
        return out


class folded(nodes.General, nodes.Element):
    """HTML's <details>: a summary line, the rest shown on a click."""


def visit_folded_html(self, node):
    self.body.append('<details class="solution">\n<summary>%s</summary>\n'
                     % self.encode(node["title"]))


def depart_folded_html(self, _node):
    self.body.append("</details>\n")


def visit_folded_other(_self, _node):
    pass


def depart_folded_other(_self, _node):
    pass


class Solution(Directive):
    """An answer kept out of the page's flow: closed by default."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def run(self):
        node = folded(title=self.arguments[0] if self.arguments else "Show the solution")
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def setup(app):
    app.add_node(folded, html=(visit_folded_html, depart_folded_html),
                 latex=(visit_folded_other, depart_folded_other),
                 text=(visit_folded_other, depart_folded_other),
                 man=(visit_folded_other, depart_folded_other),
                 texinfo=(visit_folded_other, depart_folded_other))
    app.add_directive("solution", Solution)
    app.add_directive("lab-table", LabTable)
    app.add_directive("lab-toctree", LabToctree)
    app.add_directive("lab-time", LabTime)
    app.add_directive("answer-key", AnswerKey)
    app.add_directive("workshop-agenda", WorkshopAgenda)
    return {"parallel_read_safe": True, "version": "1"}
