# SPDX-License-Identifier: GPL-2.0
"""The "Performance and cost" page's figures, from the benchmarks' data.

  .. bench-figure:: NAME
     :plot: LABEL-PREFIX[, LABEL-PREFIX ...]   (optional; "read" for the
                                              read-speed lines)

reads docs/bench/NAME.json (written by 'make bench BENCH="--save
docs/bench"', or by tools/bench-read.py --save) and makes a table of every
series (min, median, max, runs), a line saying when, where and with which
command it was measured, and, with :plot:, a chart drawn now by matplotlib
(inline SVG: no image file to go missing).  Nothing on the page is typed
by hand: a figure without data says how to measure it.

  .. bench-kunit-uml::

reads docs/bench/kunit-uml.json (tools/bench-kunit-uml.py --save) and
makes two tables: how each KUnit run went (kunit.py on user-mode Linux
with coverage_uml.config, vm/gcovlab kunit in QEMU), and the lines each
reached of the code under test; then what the runs printed that looks
like trouble.
"""

import io
import json
import textwrap
import os
import re
import statistics

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "docs", "bench")


def load(name):
    try:
        with open(os.path.join(BENCH, name + ".json"), encoding="utf-8") as f:
            return json.load(f)
    except OSError:
        return None


def number(value, unit):
    if unit in ("bytes", "files", "calls", "tests"):
        return "{:,}".format(round(value))
    if unit in ("s", "min"):
        return "%.1f" % value
    return "%.2f" % value


def shown(label):
    """A label as the page shows it: a test's name ('file.py::test[id]')
    gets spaces around its '::', where a narrow table cell or a chart's
    label may break the line."""
    return label.replace("::", " :: ")


def rst_text(text):
    """A label as plain text in reST: a test's name may hold * or _."""
    return "".join("\\" + c if c in "\\*_`|[]" else c for c in shown(text))


def table(data):
    rows = [".. list-table::", "   :header-rows: 1", "   :widths: 50 12 12 12 8 6", "",
            "   * - what", "     - min", "     - median", "     - max", "     - unit",
            "     - runs"]
    for s in data["series"]:
        values = s["values"]
        if "sizes" in s:        # one value per file size: no min/max to give
            for size, v in zip(s["sizes"], values):
                rows += ["   * - %s, %s bytes" % (s["label"], "{:,}".format(size)),
                         "     - ", "     - %s" % number(v, s["unit"]), "     - ",
                         "     - %s" % s["unit"], "     - %d" % data.get("runs", 1)]
            continue
        rows += ["   * - %s" % rst_text(s["label"]),
                 "     - %s" % number(min(values), s["unit"]),
                 "     - %s" % number(statistics.median(values), s["unit"]),
                 "     - %s" % number(max(values), s["unit"]),
                 "     - %s" % s["unit"], "     - %d" % len(values)]
    return rows


def provenance(data):
    m = data.get("machine", {})
    where = "%s, %s cores, %s GiB, Debian %s, %s, %s, QEMU under %s" % (
        m.get("cpu", "?"), m.get("cores", "?"), m.get("memory_gib", "?"),
        m.get("debian", "?"), m.get("gcc", "?"), m.get("qemu", "?"), m.get("accel", "TCG"))
    lines = ["Measured %s at commit ``%s`` on: %s. Reproduce with ``%s``." % (
        data.get("measured", "?"), data.get("commit", "?"), where, data.get("command", "?"))]
    for note in data.get("notes", []):
        lines += ["", note]
    return lines


def bars(data, prefixes):
    """Horizontal bars: the median of each chosen series, min-max whiskers."""
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    chosen = [s for s in data["series"] if "sizes" not in s and
              any(s["label"].startswith(p) for p in prefixes)]
    if not chosen:
        raise ValueError("no series of %s starts with %s" % (data["figure"], prefixes))
    unit = chosen[0]["unit"]
    labels = ["\n".join(textwrap.wrap(shown(s["label"]), 34)) for s in chosen]
    rows = sum(label.count("\n") + 1 for label in labels)
    fig, ax = plt.subplots(figsize=(7, 0.2 * rows + 0.12 * len(chosen) + 0.9))
    medians = [statistics.median(s["values"]) for s in chosen]
    low = [m - min(s["values"]) for m, s in zip(medians, chosen)]
    high = [max(s["values"]) - m for m, s in zip(medians, chosen)]
    ys = list(range(len(chosen)))[::-1]
    ax.barh(ys, medians, xerr=[low, high], color="#4a7ab7", ecolor="#333333", capsize=3)
    ax.set_yticks(ys, labels, fontsize=8)
    ax.set_xlabel("%s (median; whiskers: min and max of %d runs)" % (
        unit, len(chosen[0]["values"])))
    for y, m in zip(ys, medians):
        ax.text(m, y, " " + number(m, unit), va="center", ha="left", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return svg(fig, plt)


def read_lines(data):
    """Time per read against file size, one line per kernel."""
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for s in data["series"]:
        if "sizes" in s:
            ax.plot([b / 1024 for b in s["sizes"]], s["values"], marker="o",
                    label=s["label"].split(":")[0])
    ax.set_xlabel(".gcda file size (KiB)")
    ax.set_ylabel("us per read (median)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return svg(fig, plt)


def svg(fig, plt):
    import matplotlib
    matplotlib.rcParams["svg.hashsalt"] = "gcov-kernel-labs"
    matplotlib.rcParams["svg.fonttype"] = "none"
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]


class BenchFigure(Directive):
    required_arguments = 1
    option_spec = {"plot": directives.unchanged}

    def run(self):
        env = self.state.document.settings.env
        name = self.arguments[0]
        path = os.path.join(BENCH, name + ".json")
        env.note_dependency(path)
        data = load(name)
        if data is None and name.startswith("suite-"):
            rst = ["No figures yet: run ``make check``%s, then ``make bench "
                   "BENCH='--only suite --save docs/bench'``." % (
                       " from an empty work directory" if name == "suite-cold" else
                       " with a work directory an earlier one built")]
        elif data is None:
            rst = ["No figures yet: measure them with ``make bench BENCH='--only %s "
                   "--save docs/bench'`` (or ``tools/bench-read.py --save "
                   "docs/bench/read.json`` for the read speed)." % name]
        else:
            rst = table(data) + [""] + provenance(data)
        node = nodes.container(classes=["bench-figure"])
        self.state.nested_parse(StringList(rst, source=path), self.content_offset, node)
        if data is not None and "plot" in self.options:
            want = [p.strip() for p in self.options["plot"].split(",") if p.strip()]
            picture = read_lines(data) if want == ["read"] else bars(data, want)
            node.insert(0, nodes.raw("", '<div class="bench-plot">%s</div>' % picture,
                                     format="html"))
        return [node]


# ------------------------------------------------ kunit.py on UML (one table)

def lines_cell(counts):
    return "%d / %d" % tuple(counts) if counts else "--"


def kunit_uml_rows(data):
    """The rows of docs/bench/kunit-uml.json as (label, row).  A row that
    was not measured names in "from" the row whose line counts stand for
    it (the series' vm/gcovlab row: mainline's); it gets those files."""
    rows = data.get("rows", [])
    out = []
    for row in rows:
        label = "``%s``, %s" % (row["how"], row["tree"])
        if "from" in row:
            donor = next((r for r in rows if r["how"] == row["from"] and "from" not in r), {})
            row = dict(row, files=donor.get("files"))
        out.append((label, row))
    return out


def tidy(line):
    """A quoted line with the work directory written as on a student's
    machine."""
    return re.sub(r"(?<![\w.])/[^\s:]*?/\.cache/gcov-kernel-labs", "~/.cache/gcov-kernel-labs",
                  line)


def seconds(value):
    return "--" if value is None else "%.0f" % value


def kunit_uml_table(data):
    """Two list-tables from docs/bench/kunit-uml.json: how each run went
    (exit status, KUnit's verdict, .gcda files, times), and the lines hit
    of each code-under-test file."""
    rows = kunit_uml_rows(data)
    run = [".. list-table:: How each run went (times in seconds)", "   :header-rows: 1",
           "   :widths: 30 8 22 10 10 10 10", "",
           "   * - run, tree", "     - exit", "     - KUnit", "     - .gcda files",
           "     - cold: all", "     - of which the tests ran", "     - warm: all"]
    for label, row in rows:
        if "from" in row:
            run += ["   * - %s" % label, "     - --",
                    "     - %s" % rst_text(row.get("note", "not run")), "     - --",
                    "     - --", "     - --", "     - --"]
        elif "cold" in row:
            cold, warm = row["cold"], row.get("warm", {})
            run += ["   * - %s" % label, "     - %d" % cold["exit"],
                    "     - %s" % rst_text(cold["verdict"]), "     - %d" % cold["gcda"],
                    "     - %s" % seconds(cold.get("wall_s")),
                    "     - %s" % seconds(cold.get("run_s")),
                    "     - %s" % seconds(warm.get("wall_s"))]
        else:       # vm/gcovlab: built before; the last of its runs
            run += ["   * - %s" % label, "     - %d" % row["exit"],
                    "     - %s" % rst_text(row["verdict"]),
                    "     - %d" % len(row.get("files") or {}), "     - --", "     - --",
                    "     - %s" % seconds(row.get("wall_s"))]
    cover = [".. list-table:: Lines hit / lines instrumented of the code under test",
             "   :header-rows: 1", "", "   * - file (suite)"]
    cover += ["     - %s" % label for label, _row in rows]
    for suite, path in data.get("suites", {}).items():
        cover += ["   * - ``%s`` (%s)" % (path, rst_text(suite))]
        cover += ["     - %s" % lines_cell((row.get("files") or {}).get(path))
                  for _label, row in rows]
    quoted = []
    for label, row in rows:
        said = []
        for key in ("cold", "warm"):
            said += [line for line in row.get(key, {}).get("errors", []) if line not in said]
        said += [line for line in row.get("lcov_errors", []) if line not in said]
        if said:
            quoted += ["", "What %s printed that looks like trouble:" % label, "",
                       ".. code-block:: none", ""] + ["   " + tidy(line) for line in said]
    m = data.get("machine", {})
    reused = any(r.get("cold", {}).get("ccache") == "reused" for _l, r in rows)
    where = ["", "Measured %s at commit ``%s`` with %s, Linux %s, series %s, on %s "
             "(%s cores). The cold runs start from an empty build directory and %s. "
             "Reproduce with ``%s`` (%s min here)." % (
                 data.get("measured", "?"), data.get("commit", "?"), m.get("gcc", "?"),
                 next((r["kernel"] for _l, r in rows if "kernel" in r), "?"),
                 rst_text(data.get("series_version", "?")), m.get("cpu", "?"),
                 m.get("cores", "?"),
                 "may use ccache's earlier results (--reuse-ccache)" if reused else
                 "compile everything (ccache does not use earlier results)",
                 data.get("command", "?"), "%.0f" % (data.get("script_s", 0) / 60))]
    for label, row in rows:
        if row.get("change"):
            where += ["", "%s: %s." % (label, rst_text(row["change"]))]
    return run + [""] + cover + where + quoted


class KunitUmlTable(Directive):
    """.. bench-kunit-uml:: -- the tables of docs/bench/kunit-uml.json."""

    def run(self):
        env = self.state.document.settings.env
        path = os.path.join(BENCH, "kunit-uml.json")
        env.note_dependency(path)
        data = load("kunit-uml")
        rst = (kunit_uml_table(data) if data else
               ["No figures yet: run ``make bench-kunit-uml BENCH_KUNIT_UML='--save "
                "docs/bench/kunit-uml.json'``."])
        node = nodes.container(classes=["bench-figure"])
        self.state.nested_parse(StringList(rst, source=path), self.content_offset, node)
        return [node]


def setup(app):
    app.add_directive("bench-figure", BenchFigure)
    app.add_directive("bench-kunit-uml", KunitUmlTable)
    return {"parallel_read_safe": True, "version": "1"}
