# SPDX-License-Identifier: GPL-2.0
"""An lcov tracefile from gcov's JSON output, with one gcov for many objects.

lcov 1.16's geninfo already reads gcov's JSON format when gcov has it
(GCC 9 on), but it starts one gcov per .gcda file and turns each
object's JSON into records in Perl, re-reading every source file the
object names for lcov's exclusion markers: on a whole kernel (533
objects, 5,256 source records) that is most of the report's time.  GCC
12's gcov takes many .gcda files in one process and, with --json-format
--stdout, prints one JSON document per file, in the order given.  This
module runs one such gcov per core over consecutive shares of the files
and writes the records geninfo writes for the same objects (see
tests/unit/test_gcovjson.py and tests/labs/test_lab09_all.py, which diff
the two on objects the real compilers profiled and on a real kernel run).

What geninfo 1.16 as Debian 12 ships it writes, with lcov's default
configuration (/etc/lcovrc) and branch coverage on (report.BRANCHES),
which is what this module reproduces (the facts are from the tracefile
format in geninfo(1) and lcov's geninfo script, and from gcov's JSON
format as GCC 12's gcov documents it under --json-format):

- a TN: line before each object's records, one record per source file
  the object's JSON names, in the order gcov gives (geninfo's order is
  that of a Perl hash; lcov and genhtml do not depend on it);
- a source path made absolute against the JSON's
  current_working_directory when relative, then '//', '/./', a
  trailing '/.', a trailing '/' and 'dir/..' taken out;
- per function: FN:<start_line>,<name> and FNDA:<execution_count>,<name>;
- per line entry, in gcov's order (a line may come twice):
  DA:<line_number>,<count>, then BRDA:<line>,0,<n>,<count> for each of
  its branches (n from 0 on each line), exceptional ones (throw) too;
  the count is '-' for every branch of a line that gcov marks
  unexecuted_block and whose count is 0;
- no FNF/FNH/LF/LH/BRF/BRH summary lines: Debian's geninfo defines the
  routine that writes them twice, and the second definition, which
  writes none, is the one Perl keeps (lcov and genhtml count for
  themselves);
- lcov's exclusion markers in the sources: a line with LCOV_EXCL_LINE,
  or from a LCOV_EXCL_START line up to the line before LCOV_EXCL_STOP,
  loses its FN, DA and BRDA records; LCOV_EXCL_BR_LINE,
  LCOV_EXCL_BR_START..STOP and the EXCEPTION_BR markers take away a
  line's BRDA records.  A source that cannot be read is a warning, as
  in geninfo.
"""

import concurrent.futures
import json
import os
import re
import shutil
import tempfile

from .util import GcovlabError, probe

# the markers lcov 1.16 looks for (its defaults; /etc/lcovrc keeps them)
EXCL_START, EXCL_STOP = "LCOV_EXCL_START", "LCOV_EXCL_STOP"
EXCL_BR_START, EXCL_BR_STOP = "LCOV_EXCL_BR_START", "LCOV_EXCL_BR_STOP"
EXCL_EXC_START, EXCL_EXC_STOP = "LCOV_EXCL_EXCEPTION_BR_START", "LCOV_EXCL_EXCEPTION_BR_STOP"
EXCL_LINE, EXCL_BR_LINE = "LCOV_EXCL_LINE", "LCOV_EXCL_BR_LINE"
EXCL_EXC_LINE = "LCOV_EXCL_EXCEPTION_BR_LINE"

# gcov's options: --branch-probabilities and --branch-counts put the
# branches into the JSON (geninfo passes -b and -c as well)
GCOV = ["gcov", "--json-format", "--stdout", "--branch-probabilities", "--branch-counts"]


def canonical(name, base):
    """NAME as geninfo's solve_relative_path makes it, against BASE."""
    path = name if name.startswith("/") else base + "/" + name
    path = path.replace("//", "/")
    while "/./" in path:
        path = path.replace("/./", "/")
    if path.endswith("/."):
        path = path[:-1]
    if path.endswith("/"):
        path = path[:-1]
    while True:
        shorter = re.sub(r"/[^/]+/\.\./", "/", path, count=1)
        if shorter == path:
            break
        path = shorter
    return re.sub(r"^/\.\./", "/", path)


def exclusions(path):
    """(lines excluded, lines whose branches are excluded) of one source
    file, from lcov's markers; None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"LCOV_EXCL" not in data:
        return frozenset(), frozenset()
    lines, branches = set(), set()
    inside = inside_br = inside_exc = False
    text = data.decode("utf-8", "surrogateescape")
    for number, line in enumerate(text.split("\n"), 1):
        if EXCL_STOP in line:
            inside = False
        elif EXCL_START in line:
            inside = True
        if inside or EXCL_LINE in line:
            lines.add(number)
        if EXCL_BR_STOP in line:
            inside_br = False
        elif EXCL_BR_START in line:
            inside_br = True
        if EXCL_EXC_STOP in line:
            inside_exc = False
        elif EXCL_EXC_START in line:
            inside_exc = True
        if inside_br or EXCL_BR_LINE in line or inside_exc or EXCL_EXC_LINE in line:
            branches.add(number)
    return frozenset(lines), frozenset(branches)


class Sources:
    """Each source file's exclusions, read once per capture (geninfo reads
    a file again for every object that names it)."""

    def __init__(self):
        self.known = {}
        self.unreadable = []

    def __call__(self, path):
        if path not in self.known:
            self.known[path] = exclusions(path)
            if self.known[path] is None:
                self.unreadable.append(path)
        return self.known[path] or (frozenset(), frozenset())


def records(doc, test, sources, out):
    """Append one object's tracefile lines (TN:, then a record per source
    file) to the list OUT.  Returns the number of records."""
    base = doc.get("current_working_directory") or ""
    files = doc.get("files") or []
    if not files:
        return 0
    out.append("TN:%s\n" % test)
    for entry in files:
        name = canonical(entry["file"], base)
        excl, brexcl = sources(name)
        out.append("SF:%s\n" % name)
        for fn in entry.get("functions", ()):
            start, count, fname = fn.get("start_line"), fn.get("execution_count"), \
                fn.get("name")
            if start is None or count is None or fname is None or start in excl:
                continue
            out.append("FN:%d,%s\nFNDA:%d,%s\n" % (start, fname, count, fname))
        for line in entry.get("lines", ()):
            number, count = line.get("line_number"), line.get("count")
            if number is None or count is None or number in excl:
                continue
            out.append("DA:%d,%d\n" % (number, count))
            if number in brexcl:
                continue
            unexecuted = count == 0 and line.get("unexecuted_block")
            for n, branch in enumerate(line.get("branches", ())):
                taken = branch.get("count")
                out.append("BRDA:%d,0,%d,%s\n" % (
                    number, n, "-" if taken is None or unexecuted else taken))
        out.append("end_of_record\n")
    return len(files)


def documents(text):
    """The JSON documents gcov printed one after the other."""
    decoder = json.JSONDecoder()
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos == end:
            return
        doc, pos = decoder.raw_decode(text, pos)
        yield doc


def parts_of(gcda_files, jobs):
    """GCDA_FILES in JOBS consecutive shares (fewer for few files)."""
    jobs = max(1, min(jobs, len(gcda_files)))
    size = -(-len(gcda_files) // jobs)
    return [gcda_files[i:i + size] for i in range(0, len(gcda_files), size)]


def part_records(part, test):
    """One gcov over PART (absolute paths) and its records: a dict with the
    tracefile's text, gcov's stderr lines (err) and exit status (rc), why
    the part failed (failed: None when it did not) and this part's own
    warnings (own).  Runs in a worker process when there are several
    parts: one part's JSON is parsed beside the other part's gcov."""
    workdir = tempfile.mkdtemp(prefix="gcovlab-gcov.")
    try:
        proc = probe(GCOV + part, cwd=workdir, text=False)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result = {"part": part, "text": "", "rc": proc.returncode, "failed": None, "own": [],
              "err": [line for line in proc.stderr.decode("utf-8", "replace").split("\n")
                      if line]}
    if proc.returncode != 0:
        result["failed"] = "gcov failed (exit %d)" % proc.returncode
        return result
    docs = list(documents(proc.stdout.decode("utf-8", "surrogateescape")))
    if len(docs) != len(part):
        result["failed"] = "gcov printed %d JSON documents, not %d" % (len(docs), len(part))
        return result
    sources = Sources()
    lines = []
    for gcda, doc in zip(part, docs):
        if not records(doc, test, sources, lines):
            result["own"].append("gcov gave no data for %s" % gcda)
    result["unreadable"] = sources.unreadable
    result["text"] = "".join(lines)
    return result


def convert(gcda_files, test, jobs):
    """GCDA_FILES shared out in JOBS consecutive parts, one gcov and one
    conversion each: part_records' results, in the order of the files."""
    parts = parts_of([os.path.abspath(p) for p in gcda_files], jobs)
    if len(parts) == 1:
        return [part_records(parts[0], test)]
    with concurrent.futures.ProcessPoolExecutor(len(parts)) as pool:
        return list(pool.map(part_records, parts, [test] * len(parts)))


def capture(gcda_files, test, info, log, jobs=None):
    """Write the tracefile of GCDA_FILES to INFO (test name TEST, as lcov's
    --test-name takes it) and append what was run to LOG.  Returns what
    gcov said, and this module's own warnings (a source it could not
    read, an object without data): lines that must not be there.  A gcov
    that fails is an error and leaves no INFO, as a geninfo that fails."""
    from .report import cores     # report imports this module
    results = convert(gcda_files, test, jobs or min(4, cores()))
    said = []
    unreadable = []
    for r in results:
        said += r["err"] + r["own"]
        unreadable += [p for p in r.get("unreadable", ()) if p not in unreadable]
    said += ["could not read %s: lcov's exclusion markers in it, if any, are not "
             "applied" % path for path in unreadable]
    with open(log, "a", encoding="utf-8") as f:
        for r in results:
            part = r["part"]
            f.write("$ %s %s ... %s (%d .gcda files): exit %d\n%s\n" % (
                " ".join(GCOV), part[0], part[-1], len(part), r["rc"],
                "\n".join(r["err"] + r["own"])))
        f.write("".join(line + "\n" for line in said[len(said) - len(unreadable):]))
    for r in results:
        if r["failed"]:
            raise GcovlabError("%s on the %d .gcda files from %s to %s:\n%s" % (
                r["failed"], len(r["part"]), r["part"][0], r["part"][-1],
                "\n".join(r["err"][-20:])))
    try:
        with open(info + ".tmp", "w", encoding="utf-8", errors="surrogateescape") as f:
            for r in results:
                f.write(r["text"])
        os.replace(info + ".tmp", info)
    finally:
        if os.path.exists(info + ".tmp"):
            os.remove(info + ".tmp")
    return said


def tracefile_records(path):
    """What two captures of the same objects must share: (the TN: lines,
    counted; every record from SF: to end_of_record, sorted).  geninfo
    writes an object's records in the order of a Perl hash, so the order
    is not compared; each record's lines are, in order."""
    tests, records, current = {}, [], []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("TN:"):
                tests[line] = tests.get(line, 0) + 1
                continue
            current.append(line)
            if line == "end_of_record\n":
                records.append("".join(current))
                current = []
    if current:
        raise GcovlabError("%s: a record without end_of_record" % path)
    return tests, sorted(records)
