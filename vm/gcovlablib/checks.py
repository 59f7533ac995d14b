# SPDX-License-Identifier: GPL-2.0
"""The checks of `vm/gcovlab check N`: each lab's exercise, run on the tree
as the student left it, one Check per thing that must hold, each naming
the TODO that a failure points at.  All of them run on the host, in
seconds: Kconfig and the compiler guard through the student's own files
and the kernel's scripts, the kbuild rule through make with the rule cut
out of the student's scripts/Makefile.lib, the .gcda writer through the
harness of Lab 6.
"""

import concurrent.futures
import dataclasses
import glob
import os
import re
import shutil
import subprocess
import tempfile

from . import standin
from .util import GcovlabError, Lock, probe

@dataclasses.dataclass
class Check:
    name: str
    passed: bool
    todo: int = None        # the TODO a failure points at
    detail: str = ""
    chapter: str = ""       # the section to read, where not the TODO's own


def words(data):
    n = len(data) // 4
    return [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(n)]


TAG_FUNCTION = 0x01000000


def known_tag(tag):
    """A FUNCTION record, or the COUNTER record of a counter type (GCC 12's
    tags, gcc/gcov-io.h: 0x01a10000 + type << 17)."""
    return tag == TAG_FUNCTION or (tag & 0xfff1ffff) == 0x01a10000


def records(data):
    """[(tag, payload words)] after the 4-word header; or (error, the tag of
    the record to blame, its byte): a record whose length sends the walk
    off into words that are no record is to blame, not what follows it."""
    w = words(data)
    out, i, prev_at = [], 4, None
    while i < len(w):
        prev = out[-1][0] if out else None
        if i + 2 > len(w):
            return ("a record header is cut off at byte %d" % (4 * i), prev, prev_at)
        tag, length = w[i], w[i + 1]
        if not known_tag(tag):
            return ("byte %d holds 0x%08x, which is no record tag" % (4 * i, tag),
                    prev if prev is not None else TAG_FUNCTION, prev_at)
        if length % 4:
            return ("the record at byte %d (tag 0x%08x) has a length of %d bytes, "
                    "not a whole number of words" % (4 * i, tag, length), tag, 4 * i)
        end = i + 2 + length // 4
        if end > len(w):
            return ("the record at byte %d (tag 0x%08x) claims %d bytes, but the file "
                    "ends %d bytes later" % (4 * i, tag, length, 4 * (len(w) - i - 2)),
                    tag, 4 * i)
        out.append((tag, w[i + 2:end]))
        prev_at = 4 * i
        i = end
    return out


def layout(data):
    """{byte: (what the word at that byte of a well-formed file is, the
    TODO that writes it)} and {byte of a record: (tag, length)}."""
    w = words(data)
    fields = {0: ("the magic", 1), 4: ("the version", 1), 8: ("the stamp", 1),
              12: ("the checksum word", 1)}
    starts, i, f = {}, 4, -1
    while i + 2 <= len(w):
        tag, length = w[i], w[i + 1]
        if tag == TAG_FUNCTION:
            f += 1
            name, todo = "the FUNCTION record of function %d" % f, 2
            parts = ["ident", "lineno_checksum", "cfg_checksum"]
        else:
            name, todo = "the COUNTER record of type %d of function %d" % (
                (tag - 0x01a10000) >> 17, f), 3
            parts = ["value %d, %s word" % (k // 2, "low" if k % 2 == 0 else "high")
                     for k in range(length // 4)]
        starts[4 * i] = (tag, length)
        fields[4 * i] = ("the tag of " + name, todo)
        fields[4 * i + 4] = ("the length of " + name, todo)
        for k in range(length // 4):
            fields[4 * i + 8 + 4 * k] = ("%s of %s" % (
                parts[k] if k < len(parts) else "word %d" % k, name), todo)
        i += 2 + length // 4
    return fields, starts


def first_difference(mine, want):
    """(byte, words that say where mine and want part, the TODO), or None."""
    a, b = words(mine), words(want)
    fields, _ = layout(want)
    for k in range(min(len(a), len(b))):
        if a[k] != b[k]:
            what, todo = fields.get(4 * k, ("a word past libgcov's last record", 3))
            return 4 * k, "byte %d holds 0x%08x where libgcov's file has 0x%08x (%s)" % (
                4 * k, a[k], b[k], what), todo
    if len(a) < len(b):
        what, todo = fields.get(4 * len(a), ("the end", None))
        return 4 * len(a), "the file ends at byte %d, where libgcov's has %s" % (
            4 * len(a), what), todo
    if len(a) > len(b):
        return 4 * len(b), "%d bytes more than libgcov's file, from byte %d on" % (
            4 * (len(a) - len(b)), 4 * len(b)), 3
    return None


def parse_failure(error, culprit, at, mine, want):
    """The detail and TODO of a file whose records do not parse.  'The
    wrong length' only where the culprit's length word differs from
    libgcov's; else the words that disagree, and where."""
    todo = 2 if culprit == TAG_FUNCTION else 3
    _fields, starts = layout(want)
    diff = first_difference(mine, want)
    mw = words(mine)
    if at is not None and at in starts and starts[at][0] == culprit and at // 4 + 1 < len(mw):
        length, right = mw[at // 4 + 1], starts[at][1]
        if length != right:
            return "%s: the record before it, at byte %d (tag 0x%08x), has the wrong " \
                "length: %d bytes, libgcov's has %d" % (error, at, culprit, length, right), todo
        return "%s: the record before it, at byte %d (tag 0x%08x): its length is right " \
            "(%d bytes), but its words disagree with libgcov's: %s" % (
                error, at, culprit, length, diff[1] if diff else "?"), todo
    if diff:
        return "%s: %s" % (error, diff[1]), diff[2] or todo
    return error, todo


def compare_gcda(mine, want):
    """The checks of Lab 6, on two files: the student's and libgcov's in the
    kernel's form."""
    def shown(ws):
        return " ".join("%08x" % x for x in ws) or "none (the file is empty)"

    checks = [Check("file header (magic, version, stamp, checksum)",
                    words(mine)[:4] == words(want)[:4], 1,
                    "first 4 words: %s; expected %s" % (
                        shown(words(mine)[:4]), shown(words(want)[:4])))]
    got, exp = records(mine), records(want)
    if isinstance(got, tuple):
        error, culprit, at = got
        detail, todo = parse_failure(error, culprit, at, mine, want)
        checks.append(Check("the records after the header parse", False, todo, detail))
        return checks
    fn_got = [r for r in got if r[0] == TAG_FUNCTION]
    fn_exp = [r for r in exp if r[0] == TAG_FUNCTION]
    detail = ""
    if len(fn_got) != len(fn_exp):
        detail = "%d FUNCTION records, expected %d" % (len(fn_got), len(fn_exp))
    else:
        for k, (a, b) in enumerate(zip(fn_got, fn_exp)):
            if a != b:
                detail = "function %d: %s, expected %s" % (
                    k, " ".join("%08x" % x for x in a[1]), " ".join("%08x" % x for x in b[1]))
                break
    checks.append(Check("FUNCTION records (ident, checksums)", not detail, 2, detail))
    ct_got = [r for r in got if r[0] != TAG_FUNCTION]
    ct_exp = [r for r in exp if r[0] != TAG_FUNCTION]
    detail = ""
    if len(ct_got) != len(ct_exp):
        detail = "%d COUNTER records, expected %d" % (len(ct_got), len(ct_exp))
    else:
        for k, (a, b) in enumerate(zip(ct_got, ct_exp)):
            if a != b:
                detail = "counter record %d: tag 0x%08x with %d words, expected tag " \
                         "0x%08x with %d words%s" % (
                             k, a[0], len(a[1]), b[0], len(b[1]),
                             "" if (a[0], len(a[1])) != (b[0], len(b[1])) else
                             " (the values differ: %s)" % value_difference(a[1], b[1]))
                break
    checks.append(Check("COUNTER records (tags, lengths, values)", not detail, 3, detail))
    checks.append(Check("the whole file equals libgcov's, normalised", mine == want,
                        None, "%d bytes, expected %d" % (len(mine), len(want))))
    return checks


def value_difference(a, b):
    """Where two COUNTER payloads part: the first value, both ways."""
    for k in range(0, min(len(a), len(b)) - 1, 2):
        x, y = a[k] | a[k + 1] << 32, b[k] | b[k + 1] << 32
        if x != y:
            return "value %d is %d (0x%016x), expected %d (0x%016x)%s" % (
                k // 2, x, x, y, y, "; a value past 2^32 needs all 64 bits" if
                y >> 32 and x == y & 0xffffffff else "")
    return "?"


# The runs of Lab 6's check: the program's input; the compiler's flags
# besides the series' CFLAGS_GCOV; GCOVLAB_SCALE, what the harness (and
# the check, on libgcov's file) multiplies every counter by.  The last
# run is built with -fprofile-values: arcs and the time profiler (types 0
# and 7) are active, so ctrs[]'s place and the type differ; its counts
# pass 2^32.
INPUTS = [b"the cat sat\non the mat\n", b"", b"one\n\ntwo  words\n"]
RUNS6 = [(text, [], None) for text in INPUTS] + [
    (b"one two three four five six seven\nand a short one\n", ["-fprofile-values"],
     (1 << 32) + 3)]


def run(cmd, cwd, stdin=None, env=None):
    return probe(cmd, cwd=cwd, env=env, stdin=stdin, text=False)


def scaled(data, k):
    """A kernel-form .gcda file with every counter value times K (64 bits)."""
    w = words(data)
    out, i = w[:4], 4
    while i + 2 <= len(w):
        tag, length = w[i], w[i + 1]
        out += [tag, length]
        body = w[i + 2:i + 2 + length // 4]
        if tag != TAG_FUNCTION:
            for j in range(0, len(body) - 1, 2):
                v = ((body[j] | body[j + 1] << 32) * k) & ((1 << 64) - 1)
                body[j], body[j + 1] = v & 0xffffffff, v >> 32
        out += body
        i += 2 + length // 4
    return b"".join(x.to_bytes(4, "little") for x in out)


def fault_detail(stderr, want):
    """What the harness's report of a write outside the buffer means."""
    m = re.search(r"harness: FAULT (\w+) (-?\d+) (\d+)", stderr)
    if not m:
        return None, None
    step, at, size = m.group(1), int(m.group(2)), int(m.group(3))
    fields, _ = layout(want)
    if at < 0 or at >= len(want) + 4096:
        # no write just past the room: a pointer that leads nowhere
        return ("the writer touched memory far from any buffer during the %s call: a "
                "pointer read from the wrong place: ctrs[] holds one entry per active "
                "counter type, in type order, so the entry of type t is not ctrs[t] "
                "when a type below t is inactive" % step, 3)
    what, todo = fields.get(at - at % 4, ("past libgcov's last record", 3))
    if step == "sizing":
        return ("the sizing call, gcov_info_to_gcda(info, NULL, 0), wrote byte %d (%s): "
                "called to measure, with no buffer, it must only count; write each word "
                "through put_u32(), which stores it only while there is room" % (at, what),
                todo)
    return ("the writing call, with the %d bytes the sizing call asked for, wrote byte %d "
            "(%s): it writes more than it measured, or past the room it was given" % (
                size, at, what), todo)


def check_lab6(gcov_dir, harness, program, normalise, headers):
    """Build wc.c with the student's gcc_12.c (on the stand-in kernel and
    the kernel headers of HEADERS, standin.py) and with libgcov; compare,
    for each run of RUNS6."""
    # -frandom-seed: the same stamp at every check, so that what a check
    # prints can be compared from one run to the next
    cflags = ["-fprofile-arcs", "-ftest-coverage", "-fno-tree-loop-im",
              "-frandom-seed=gcovlab-check"]
    name = "kernel/gcov/gcc_12.c compiles"
    source = os.path.join(gcov_dir, "gcc_12.c")
    with tempfile.TemporaryDirectory(prefix="gcovlab-check6.") as tmp:
        builds = {}
        for extra in sorted({tuple(r[1]) for r in RUNS6}):
            where = os.path.join(tmp, "values" if extra else "")
            os.makedirs(where, exist_ok=True)
            shutil.copy(program, os.path.join(where, "wc.c"))
            for cmd in (["gcc", "-O2"] + cflags + list(extra) + ["-c", "wc.c", "-o", "wc.o"],
                        ["gcc", "-fprofile-arcs", "wc.o", "-o", "wc-libgcov"]):
                proc = run(cmd, where)
                if proc.returncode:
                    raise GcovlabError("%s failed:\n%s" % (" ".join(cmd),
                                                            proc.stderr.decode()))
            errors, prog = standin.build(headers, [source],
                                         [os.path.join(harness, "harness.c")],
                                         os.path.join(where, "series"), ["-O2"], [gcov_dir],
                                         [os.path.join(where, "wc.o")])
            if errors is not None:
                return [compile_failure(errors, name, {source: "kernel/gcov/gcc_12.c"},
                                        headers)]
            shutil.copy(prog, os.path.join(where, "wc-series"))
            builds[extra] = where
        checks = [Check("kernel/gcov/gcc_12.c compiles", True)]
        for k, (text, extra, factor) in enumerate(RUNS6):
            where = builds[tuple(extra)]
            label = "input %d" % (k + 1) if not extra else \
                "input %d (%s: two counter types; counts times 2^32 + 3)" % (
                    k + 1, " ".join(extra))
            gcda = os.path.join(where, "wc.gcda")
            for stale in (gcda, gcda + ".series"):
                if os.path.exists(stale):
                    os.remove(stale)
            run(["./wc-libgcov"], where, text)
            norm = run(["/usr/bin/python3", normalise, gcda, gcda + ".norm", "--gcno",
                        os.path.join(where, "wc.gcno")], where)
            if norm.returncode:
                raise GcovlabError("gcda_normalise.py failed: %s" % norm.stderr.decode())
            with open(gcda + ".norm", "rb") as f:
                want = f.read()
            env = dict(os.environ, GCOVLAB_SUFFIX=".series")
            if factor:
                env["GCOVLAB_SCALE"] = str(factor)
                want = scaled(want, factor)
            proc = run(["./wc-series"], where, text, env)
            stderr = proc.stderr.decode(errors="replace")
            if not os.path.exists(gcda + ".series"):
                detail, todo = fault_detail(stderr, want)
                size = re.search(r"harness: SIZE (\d+)", stderr)
                if size:
                    detail, todo = ("the sizing call said the image has %s bytes; libgcov's "
                                    "file has %d: a length or a count read from the wrong "
                                    "place?" % (size.group(1), len(want)), 3)
                checks.append(Check("%s: the writer made a file" % label, False, todo,
                                    detail or "wc-series exited %d and wrote no "
                                    "wc.gcda.series: %s" % (proc.returncode,
                                                            stderr[-500:] or "no message")))
                return checks
            with open(gcda + ".series", "rb") as f:
                mine = f.read()
            for c in compare_gcda(mine, want):
                c.name = "%s: %s" % (label, c.name)
                checks.append(c)
        return checks



# --- Lab 1: the Kconfig option (kernel/gcov/Kconfig) ------------------------

# A compiler that tells Kconfig's probe (scripts/cc-version.sh runs
# "$CC -E" on __GNUC__ and friends) it is another GCC; it compiles as gcc.
FAKE_GCC = """#!/bin/sh
case " $* " in
*" -E "*) exec gcc -U__GNUC__ -D__GNUC__=%d -U__GNUC_MINOR__ -D__GNUC_MINOR__=%d "$@" ;;
*) exec gcc "$@" ;;
esac
"""


# The compilers Kconfig is told it has, besides this machine's GCC 12.2:
# another GCC 12 release (the option must be offered), GCC 13 and GCC 11
# (it must not).
PRETEND = ((12, 3), (13, 1), (11, 3))


def kconfig_with(src, out, options, cc="gcc"):
    """allnoconfig of SRC into OUT with OPTIONS asked for: (the .config as a
    dict, ""), or (None, what Kconfig said) when it stopped with an error."""
    os.makedirs(out, exist_ok=True)
    frag = os.path.join(out, "ask.config")
    with open(frag, "w", encoding="utf-8") as f:
        f.write("".join("CONFIG_%s=y\n" % o for o in options))
    proc = run(["make", "-s", "ARCH=x86_64", "-C", src, "O=" + out, "CC=" + cc,
                "KCONFIG_ALLCONFIG=" + frag, "allnoconfig"], src)
    if proc.returncode:
        return None, proc.stderr.decode(errors="replace")
    values = {}
    with open(os.path.join(out, ".config"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"CONFIG_(\w+)=(.*)", line)
            if m:
                values[m.group(1)] = m.group(2)
    return values, ""


def gcov_profile_block(src):
    with open(os.path.join(src, "kernel", "gcov", "Kconfig"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^config GCOV_PROFILE\n(.*?)(?=^\S|\Z)", text, re.S | re.M)
    return m.group(1) if m else ""


def check_lab1(src, scratch):
    """TODO 1 depends on DEBUG_FS, TODO 2 on GCC 12, TODO 3 selects
    CONSTRUCTORS.  Six configurations, each in its own directory under
    SCRATCH (kept: the next check reuses Kconfig's programs), as many at a
    time as there are CPUs: Kconfig's compiler probes take seconds."""
    on = ["DEBUG_FS", "GCOV_PROFILE"]
    jobs = {"gcc12": (on, "gcc"), "nodebugfs": (["GCOV_PROFILE"], "gcc")}
    os.makedirs(scratch, exist_ok=True)
    for major, minor in PRETEND:
        cc = os.path.join(scratch, "gcc-%d.%d" % (major, minor))
        with open(cc, "w", encoding="utf-8") as f:
            f.write(FAKE_GCC % (major, minor))
        os.chmod(cc, 0o755)
        jobs["gcc%d.%d" % (major, minor)] = (on, cc)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        futures = {name: pool.submit(kconfig_with, src, os.path.join(scratch, name), *job)
                   for name, job in jobs.items()}
        done = {name: f.result() for name, f in futures.items()}
    values, error = done["gcc12"]
    if values is None:
        return [Check("kernel/gcov/Kconfig is read by Kconfig", False, None,
                      error.strip()[-1500:])]
    checks = [Check("kernel/gcov/Kconfig is read by Kconfig", True)]
    # Which TODO keeps the option off, from its dependencies as written.
    depends = " ".join(re.findall(r"^\s*depends on (.*)$", gcov_profile_block(src), re.M))
    blame = 3 if "CONSTRUCTORS" in depends else 2 if "GCC" in depends else 1
    turned_on = values.get("GCOV_PROFILE") == "y"
    checks.append(Check("GCOV_PROFILE can be turned on (GCC 12, DEBUG_FS=y)", turned_on,
                        blame, "" if turned_on else
                        "asked for CONFIG_GCOV_PROFILE=y, Kconfig left it off: one of its "
                        "dependencies cannot be met (an option without a prompt, such as "
                        "CONSTRUCTORS, can only be selected)"))
    ctors = values.get("CONSTRUCTORS") == "y"
    checks.append(Check("GCOV_PROFILE=y turns CONSTRUCTORS on", turned_on and ctors, 3,
                        "" if ctors else "CONFIG_CONSTRUCTORS is not set: the built-in "
                        "constructors would never run"))
    values, error = done["nodebugfs"]
    off = values is not None and values.get("GCOV_PROFILE") != "y"
    if off or values is None:
        detail = error.strip()[-500:]
    elif values.get("DEBUG_FS") == "y":
        detail = ("asked for GCOV_PROFILE alone, Kconfig turned DEBUG_FS on as well: "
                  "'select' forces an option on whatever it depends on; profiling needs "
                  "debugfs, it must not switch it on behind the user's back")
    else:
        detail = ("CONFIG_GCOV_PROFILE=y although CONFIG_DEBUG_FS is off: where would the "
                  "data go?")
    checks.append(Check("without DEBUG_FS, GCOV_PROFILE stays off", off, 1, detail))
    for major, minor in PRETEND:
        values, error = done["gcc%d.%d" % (major, minor)]
        if values is not None and values.get("GCC_VERSION") != "%d%02d00" % (major, minor):
            raise GcovlabError("the check's pretend GCC %d.%d was not seen by Kconfig "
                               "(CONFIG_GCC_VERSION=%s): a fault of the checker, please "
                               "report it" % (major, minor, values.get("GCC_VERSION")))
        got = values is not None and values.get("GCOV_PROFILE") == "y"
        want = major == 12
        if got == want:
            detail = ""
        elif want:
            detail = ("CONFIG_GCOV_PROFILE is off with GCC %d.%d: every GCC 12 release "
                      "has the same gcov_info layout" % (major, minor))
        else:
            detail = error.strip()[-500:] or ("CONFIG_GCOV_PROFILE=y with GCC %d: the code "
                                              "reads GCC 12's gcov_info layout only" % major)
        checks.append(Check("with GCC %d.%d, GCOV_PROFILE %s" % (
            major, minor, "can be turned on" if want else "stays off"), got == want, 2,
            detail))
    return checks


# --- Lab 2: the compiler guard (kernel/gcov/gcc_version.h) ------------------

def macros(major, minor, patch, clang=None):
    out = ["-U__GNUC__", "-D__GNUC__=%d" % major, "-U__GNUC_MINOR__",
           "-D__GNUC_MINOR__=%d" % minor, "-U__GNUC_PATCHLEVEL__",
           "-D__GNUC_PATCHLEVEL__=%d" % patch]
    if clang:
        out += ["-D__clang__=1", "-D__clang_major__=%d" % clang[0],
                "-D__clang_minor__=%d" % clang[1]]
    return out


# name, the compiler's predefined macros, should it pass, what its error
# must name, the TODO
COMPILERS = [
    ("GCC 12 (this machine's)", [], True, None, 2),
    ("GCC 13.1.0", macros(13, 1, 0), False, "GCC 13.1.0", 2),
    ("GCC 11.3.0", macros(11, 3, 0), False, "GCC 11.3.0", 2),
    # clang says it is GCC 4.2.1 as well
    ("clang 15.0", macros(4, 2, 1, (15, 0)), False, "clang 15.0", 1),
]
WHY_PRAGMA = "docs/compiler-guard.rst, Why #error cannot name the version"


def without_pragma(text):
    """The header as a compiler that ignores '#pragma GCC error' sees it:
    GCOV_GCC_ERROR() expands to nothing."""
    return re.sub(r"^#define GCOV_GCC_ERROR\(.*$", "#define GCOV_GCC_ERROR(msg...)", text,
                  flags=re.M)


def compile_guard(tmp, include_dirs, defs):
    proc = run(["gcc", "-fsyntax-only", "-Wall"] + defs +
               [arg for d in include_dirs for arg in ("-I", d)] + ["user.c"], tmp)
    err = proc.stderr.decode(errors="replace")
    first = next((l for l in err.splitlines() if "error:" in l), "")
    return proc.returncode, err, first


def check_lab2(src):
    """Compile a file that includes the student's guard as each compiler,
    and once more as a compiler that ignores the error pragma."""
    gcov_dir = os.path.join(src, "kernel", "gcov")
    include = os.path.join(src, "include")
    checks = []
    with tempfile.TemporaryDirectory(prefix="gcovlab-check2.") as tmp:
        with open(os.path.join(tmp, "user.c"), "w", encoding="utf-8") as f:
            f.write('#include "gcc_version.h"\nint gcov_user;\n')
        plain = os.path.join(tmp, "nopragma")
        os.mkdir(plain)
        with open(os.path.join(gcov_dir, "gcc_version.h"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(plain, "gcc_version.h"), "w", encoding="utf-8") as f:
            f.write(without_pragma(text))
        for name, defs, passes, names, todo in COMPILERS:
            code, err, first = compile_guard(tmp, [include, gcov_dir], defs)
            if passes:
                checks.append(Check("%s passes the guard" % name, code == 0, todo,
                                    "" if code == 0 else first or err[-500:]))
                continue
            checks.append(Check("%s is refused" % name, code != 0, todo,
                                "" if code else "the file compiled: nothing stopped the "
                                "build"))
            if not code:
                continue
            said = first.split("error:", 1)[-1].strip()
            named = names in first and "GCC 12" in first
            checks.append(Check("the first error names %s and GCC 12" % names, named, todo,
                                "" if named else "it says: %s" % said,
                                # clang taken for GCC 4.2.1: the order of the tests
                                "" if names in first or "GCC 4.2.1" in first else
                                WHY_PRAGMA))
            code, err, first = compile_guard(tmp, [include, plain], defs)
            checks.append(Check("%s is refused by a compiler that ignores the pragma" % name,
                                code != 0, todo, "" if code else
                                "with GCOV_GCC_ERROR() expanding to nothing the file "
                                "compiled: nothing but the pragma stops the build",
                                WHY_PRAGMA))
    return checks


# --- Lab 4: the GCOV rule of kbuild (scripts/Makefile.lib) -------------------

RULE_START = "ifeq ($(CONFIG_GCOV_PROFILE),y)"
CFLAGS_GCOV = "-fprofile-arcs -ftest-coverage -fno-tree-loop-im"


def gcov_rule(src):
    """The student's block of scripts/Makefile.lib: from the first
    ifeq ($(CONFIG_GCOV_PROFILE),y) to its endif."""
    with open(os.path.join(src, "scripts", "Makefile.lib"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if RULE_START not in lines:
        return None
    start = lines.index(RULE_START)
    depth = 0
    for i in range(start, len(lines)):
        if re.match(r"if(n?eq|n?def)\b", lines[i]):
            depth += 1
        elif re.match(r"endif\b", lines[i]):
            depth -= 1
            if depth == 0:
                return "\n".join(lines[start:i + 1]) + "\n"
    return None


# One object, foo.o (or sub/foo.o, an object in a subdirectory that the
# directory's Makefile lists), in a directory whose Makefile says
# MAKEFILE; make run with ARGS on its command line and ENV in its
# environment.  As in kbuild, _c_flags is a recursive variable that the
# rule appends to, target-stem the object's path in the directory without
# .o and basetarget its bare name.  A GCOV on the command line of kbuild's
# first make reaches the directory's make as KBUILD_GCOV, in the
# environment (the top Makefile moves it there): the model is that
# directory's make, so a scenario "make GCOV=y" sets KBUILD_GCOV=y.
MODEL = """CONFIG_GCOV_PROFILE := %(profile)s
CFLAGS_GCOV := %(flags)s
target-stem := %(stem)s
basetarget := %(base)s
_c_flags = -O2
%(makefile)s
%(rule)s
all:
\t@echo 'gcov-dir=[$(gcov-dir)]'
\t@echo '_c_flags=[$(strip $(_c_flags))]'
"""

# make GCOV=y, as the directory's make sees it (see MODEL)
CMDLINE_Y = {"KBUILD_GCOV": "y"}

# name, the directory's Makefile, command line, environment,
# instrumented?, TODO
SCENARIOS = [
    ("nothing set", "", [], {}, False, 2),
    ("GCOV_foo.o := y", "GCOV_foo.o := y", [], {}, True, 2),
    ("GCOV := y", "GCOV := y", [], {}, True, 2),
    ("GCOV := y and GCOV_foo.o := n", "GCOV := y\nGCOV_foo.o := n", [], {}, False, 2),
    ("GCOV := n and GCOV_foo.o := y", "GCOV := n\nGCOV_foo.o := y", [], {}, True, 2),
    ("make GCOV=y (command line)", "", [], CMDLINE_Y, True, 1),
    ("make GCOV=y and GCOV := n", "GCOV := n", [], CMDLINE_Y, False, 1),
    ("make GCOV=y and GCOV_foo.o := n", "GCOV_foo.o := n", [], CMDLINE_Y, False, 2),
    ("GCOV=gcov-12 in the environment", "", [], {"GCOV": "gcov-12"}, False, 1),
    ("GCOV=n in the environment and make GCOV=y", "", [], dict(CMDLINE_Y, GCOV="n"),
     True, 1),
    ("GCOV := y, GCOV=gcov-12 in the environment and make -e", "GCOV := y", ["-e"],
     {"GCOV": "gcov-12"}, False, 1),
]


def model(rule, makefile="", args=(), env=None, profile="y", stem="foo"):
    """Run the rule on STEM.o: (the flags it added, gcov-dir), or (None,
    what make said)."""
    with tempfile.TemporaryDirectory(prefix="gcovlab-check4.") as tmp:
        with open(os.path.join(tmp, "model.mk"), "w", encoding="utf-8") as f:
            f.write(MODEL % {"profile": profile, "flags": CFLAGS_GCOV,
                             "makefile": makefile, "rule": rule, "stem": stem,
                             "base": os.path.basename(stem)})
        clean = {k: v for k, v in os.environ.items()
                 if k not in ("GCOV", "KBUILD_GCOV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        clean.update(env or {})
        proc = run(["make", "-s", "--no-print-directory", "-f", "model.mk"] + list(args),
                   tmp, env=clean)
        if proc.returncode:
            return None, proc.stderr.decode(errors="replace").strip()
        out = proc.stdout.decode()
        flags = re.search(r"_c_flags=\[(.*)\]", out).group(1)
        added = flags[len("-O2"):].strip() if flags.startswith("-O2") else flags
        return added, re.search(r"gcov-dir=\[(.*)\]", out).group(1)


def check_lab4(src):
    rule = gcov_rule(src)
    if rule is None:
        return [Check("scripts/Makefile.lib has the block %s ... endif" % RULE_START, False,
                      None, "the line %r is gone: the checks look for the rule between it "
                      "and its endif; put it back" % RULE_START)]
    added, error = model(rule)
    if added is None:
        return [Check("the GCOV block of scripts/Makefile.lib is valid make", False, None,
                      error[-800:])]
    checks = [Check("the GCOV block of scripts/Makefile.lib is valid make", True)]
    for name, where, want in (
            ("GCOV := y in the Makefile", dict(makefile="GCOV := y"), "y"),
            ("make GCOV=y", dict(env=CMDLINE_Y), "y"),
            ("GCOV := n in the Makefile and make GCOV=y",
             dict(makefile="GCOV := n", env=CMDLINE_Y), "ny"),
            ("GCOV=gcov-12 in the environment", dict(env={"GCOV": "gcov-12"}), ""),
            ("GCOV := y in the Makefile, GCOV=gcov-12 in the environment and make -e",
             dict(makefile="GCOV := y", env={"GCOV": "gcov-12"}, args=["-e"]), "")):
        _added, got = model(rule, **where)
        checks.append(Check("gcov-dir with %s is %r" % (name, want), got == want, 1,
                            "" if got == want else "it is %r" % got))
    # A situation that turns on the directory's GCOV points at TODO 1 only
    # while gcov-dir itself is wrong; with gcov-dir right, at the rule.
    dir_ok = all(c.passed for c in checks)
    for name, makefile, args, env, want, todo in SCENARIOS:
        todo = 2 if dir_ok else todo
        added, error = model(rule, makefile, args, env)
        if added is None:
            checks.append(Check("foo.o with %s" % name, False, todo, error[-500:]))
            continue
        ok = added == (CFLAGS_GCOV if want else "")
        detail = ""
        if not ok:
            detail = "got the flags %r" % added if added else "foo.o was not instrumented"
        checks.append(Check("foo.o with %s: %s" % (name, "instrumented" if want else
                                                   "not instrumented"), ok, todo, detail))
    added, error = model(rule, "GCOV := y\nGCOV_sub/foo.o := n", stem="sub/foo")
    ok = added == ""
    checks.append(Check("sub/foo.o with GCOV := y and GCOV_sub/foo.o := n: not instrumented",
                        ok, 2, "" if ok else error[-500:] if added is None else
                        "got the flags %r: the per-object variable of an object in a "
                        "subdirectory names its path, GCOV_sub/foo.o" % added))
    added, _error = model(rule, "GCOV := y", profile="")
    checks.append(Check("without CONFIG_GCOV_PROFILE nothing is instrumented", added == "", 2,
                        "" if added == "" else "got the flags %r" % added))
    return checks


# Lab 10: patch 0011's CFLAGS_GCOV in the top Makefile.  The student's
# lines from "CFLAGS_GCOV := ..." to "export CFLAGS_GCOV" are run by make
# with the tree's own try-run (scripts/Makefile.compiler), once with gcc
# and once with a compiler that, like GCC on targets without a 64-bit
# atomic add, makes profiled code call libatomic.
FLAGS_START = re.compile(r"^CFLAGS_GCOV\s*:=")
FLAGS_END = "export CFLAGS_GCOV"
ATOMIC = "-fprofile-update=prefer-atomic"

# Kernel-like flags: -mcmodel=kernel is the one the fake compiler asks for,
# so a test compile that leaves out $(KBUILD_CFLAGS) gets another answer
# than the kernel's own compiles would.
MODEL10 = """include %(src)s/scripts/Kbuild.include
include %(src)s/scripts/Makefile.compiler
# the lab kernel's configuration: the series tests the flag only with it
CONFIG_GCOV_PROFILE := y
CC := %(cc)s
NM := nm
KBUILD_CPPFLAGS := -D__KERNEL__
KBUILD_CFLAGS := -O2 -m64 -mcmodel=kernel -mno-red-zone -fno-PIE -ffreestanding
%(block)s
all:
\t@echo 'CFLAGS_GCOV=[$(strip $(CFLAGS_GCOV))]'
"""

# gcc, except that, compiling profiled code (-fprofile-arcs: without it
# there is no counter to update) for the kernel with -fprofile-update, the
# object calls a libatomic function (__atomic_fetch_add_16: x86_64 has
# the 64-bit add, so the stand-in uses a 128-bit one), as GCC's counters
# would on a CPU without the instruction.
LIBATOMIC_CC = """#!/bin/sh
want=0
case " $* " in *" -fprofile-update="*) want=$((want + 1)) ;; esac
case " $* " in *" -mcmodel=kernel "*) want=$((want + 1)) ;; esac
case " $* " in *" -fprofile-arcs "*) want=$((want + 1)) ;; esac
if [ "$want" = 3 ]; then
	exec gcc -include "%(header)s" "$@"
fi
exec gcc "$@"
"""
LIBATOMIC_H = """__int128 gcovlab_wide;
static void __attribute__((used)) gcovlab_wide_add(void)
{ __atomic_fetch_add(&gcovlab_wide, 1, __ATOMIC_RELAXED); }
"""


def cflags_gcov_block(src):
    """The student's lines of the top Makefile from CFLAGS_GCOV := to
    export CFLAGS_GCOV, or None."""
    with open(os.path.join(src, "Makefile"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if FLAGS_START.match(line):
            for j in range(i, len(lines)):
                if lines[j].strip() == FLAGS_END:
                    return "\n".join(lines[i:j + 1]) + "\n"
            return None
    return None


def model10(src, block, tmp, cc="gcc"):
    """CFLAGS_GCOV as make leaves it, or (None, what make said)."""
    with open(os.path.join(tmp, "model.mk"), "w", encoding="utf-8") as f:
        f.write(MODEL10 % {"src": src, "cc": cc, "block": block})
    clean = {k: v for k, v in os.environ.items()
             if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CC", "NM")}
    proc = run(["make", "-s", "--no-print-directory", "-f", "model.mk"], tmp, env=clean)
    if proc.returncode:
        return None, proc.stderr.decode(errors="replace").strip()
    return re.search(r"CFLAGS_GCOV=\[(.*)\]", proc.stdout.decode()).group(1), ""


def locked_updates(tmp, flags):
    """Compile a profiled function with FLAGS; its disassembly's
    instructions that update memory, and whether they are locked."""
    src = os.path.join(tmp, "hit.c")
    with open(src, "w", encoding="utf-8") as f:
        f.write("int hits;\nvoid hit(int x)\n{\n\tif (x)\n\t\thits++;\n}\n")
    obj = os.path.join(tmp, "hit.o")
    proc = run(["gcc", "-O2", "-c", "-o", obj, src] + flags.split(), tmp)
    if proc.returncode:
        return None, proc.stderr.decode(errors="replace").strip()
    dis = run(["objdump", "-d", "-r", obj], tmp).stdout.decode()
    # hit()'s counter updates: the instructions whose relocation points
    # into .bss by the section (GCC's counter array is a local object, the
    # global "hits" is named)
    updates, last = [], None
    for line in dis.split("\n"):
        fields = line.split("\t")
        if len(fields) >= 3 and fields[2].strip():
            last = fields[2].strip()
        elif "R_X86_64_PC32" in line and re.search(r"\s\.bss[+-]", line) and last:
            updates.append(re.sub(r"\s+", " ", last.split("#")[0]).strip())
    return updates, ""


def check_lab10(src):
    block = cflags_gcov_block(src)
    if block is None:
        return [Check("the top Makefile has CFLAGS_GCOV := ... export CFLAGS_GCOV", False,
                      None, "the lines from 'CFLAGS_GCOV := -fprofile-arcs ...' to "
                      "'export CFLAGS_GCOV' are gone: the checks look for your lines "
                      "between them; put them back")]
    with tempfile.TemporaryDirectory(prefix="gcovlab-check10.") as tmp:
        flags, error = model10(src, block, tmp)
        if flags is None:
            return [Check("the CFLAGS_GCOV lines of the top Makefile are valid make", False,
                          None, error[-800:])]
        checks = [Check("the CFLAGS_GCOV lines of the top Makefile are valid make", True)]
        kept = all(f in flags.split() for f in CFLAGS_GCOV.split())
        checks.append(Check("CFLAGS_GCOV keeps %s" % CFLAGS_GCOV, kept, 1,
                            "" if kept else "CFLAGS_GCOV is %r: add to it (+=), do not "
                            "replace it" % flags))
        atomic = ATOMIC in flags.split()
        checks.append(Check("with GCC 12 on x86_64, CFLAGS_GCOV has %s" % ATOMIC, atomic, 1,
                            "" if atomic else "CFLAGS_GCOV is %r" % flags))
        updates, error = locked_updates(tmp, flags)
        locked = bool(updates) and all(u.startswith("lock ") for u in updates)
        checks.append(Check("a profiled function's counter updates are locked (lock add)",
                            locked, 1, "" if locked else error[-500:] if updates is None
                            else "the updates are %s" % (", ".join(updates) or "none")))
        name = ("where kernel code with %s would call libatomic, CFLAGS_GCOV goes "
                "without it" % ATOMIC)
        if not atomic:
            # lines that never add the flag drop it everywhere: that
            # passes nothing yet
            checks.append(Check(name, False, 1, "not judged yet: needs the check of "
                                "-fprofile-update=prefer-atomic with GCC 12 above to "
                                "pass first"))
            return checks
        header = os.path.join(tmp, "libatomic.h")
        with open(header, "w", encoding="utf-8") as f:
            f.write(LIBATOMIC_H)
        fake = os.path.join(tmp, "gcc-libatomic")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(LIBATOMIC_CC % {"header": header})
        os.chmod(fake, 0o755)
        other, error = model10(src, block, tmp, cc=fake)
        dropped = other is not None and ATOMIC not in other.split()
        checks.append(Check(name, dropped, 1,
                            "" if dropped else error[-500:] if other is None else
                            "CFLAGS_GCOV is %r with a compiler whose profiled kernel code "
                            "calls __atomic_fetch_add_16: test a profiled increment "
                            "compiled with the kernel's flags and the profiling ones "
                            "($(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) $(CFLAGS_GCOV)) and look "
                            "for __atomic_ or __sync_ calls in it (nm -u)" % other))
    return checks


# Lab 9: the directories patch 0010 keeps out of whole-kernel profiling on
# x86_64, in the order the page meets them (make stops at the first that
# breaks vmlinux; the last two are linked after vmlinux): the TODO of
# each, what it holds, and the image its objects are linked into without
# the kernel's gcov code.  (Not every object of arch/x86/entry/vdso is
# the vDSO's: vma.o and extable.o are linked into vmlinux, and the
# directory's one GCOV := n leaves them out too, as mainline's
# GCOV_PROFILE := n does.)
PIECES9 = [
    (1, "arch/x86/entry/vdso", "the vDSO (vdso64.so, which runs in user space)",
     "vdso64.so"),
    (2, "arch/x86/purgatory", "kexec's purgatory (purgatory.chk links it alone)",
     "purgatory.ro"),
    (3, "arch/x86/boot/compressed", "the decompressor (its own vmlinux)",
     "the decompressor's vmlinux"),
    (4, "arch/x86/boot", "the real-mode setup code (setup.elf)", "setup.elf"),
]
GCOV_CALLS = ("__gcov_init", "__gcov_exit", "__gcov_merge_add")


def gcov_calls(obj):
    """The gcov functions an object calls: a profiled object calls them."""
    out = run(["nm", "-u", obj], os.path.dirname(obj)).stdout.decode()
    return sorted({name for name in GCOV_CALLS if re.search(r"\b%s\b" % name, out)})


def check_lab9(work):
    """Build the student's tree as the whole-kernel lab kernel
    (build/lab-all, incrementally, make -k), then look at the objects of
    each directory that must stay out of profiling."""
    from . import kbuild
    from .config import Config
    config = Config("lab", "all")
    out = work.build_dir(config)
    if out.endswith("-baseline"):
        raise GcovlabError("this tree has no CONFIG_GCOV_PROFILE: Lab 9's exercise starts "
                           "from lab-9 ('vm/gcovlab exercise 9')")
    with Lock(os.path.join(work.root, "locks", config), "building the %s kernel" % config), \
            kbuild.changing(work, config):
        # a complete build of another state is kept before anything here
        # changes (kbuild.restore_or_keep)
        want = kbuild.state(work, config)
        kbuild.restore_or_keep(work, out, want)
        changed = kbuild.changed_since_built(out)
        # what an earlier build left in these directories must not be read
        # as this build's
        for _todo, rel, _what, _image in PIECES9:
            for obj in glob.glob(os.path.join(out, rel, "*.o")):
                os.remove(obj)
        try:
            os.remove(os.path.join(out, ".gcovlab-built"))
        except FileNotFoundError:
            pass
        kbuild.configure(work, config, out)
        try:
            kbuild.make_all(work, work.tree, out, config,
                            os.path.join(out, "gcovlab-build.log"), keep_going=True)
            built, why = True, ""
            # the state make started from, as kbuild._change_build stamps
            # it: none if the tree changed while make ran
            if kbuild.state(work, config) == want:
                kbuild.finish_build(work, work.tree, out, config, want, changed)
        except GcovlabError as e:
            built = False
            text = str(e)
            why = "\n".join(text[text.find("First error lines:"):text.find("End of the log:")]
                            .strip().split("\n")[:9])
    # one line per directory first: a failed build says which of them
    checks = []
    for todo, rel, what, image in PIECES9:
        objs = sorted(glob.glob(os.path.join(out, rel, "*.o")))
        name = "%s: %s is not profiled" % (rel, what)
        if not objs:
            checks.append(Check(name, False, todo, "not built: the build stopped before "
                                "this directory (vmlinux must link first)"))
            continue
        bad = ["%s (%s)" % (os.path.relpath(o, out), ", ".join(gcov_calls(o)))
               for o in objs if gcov_calls(o)]
        checks.append(Check(name, not bad, todo, "" if not bad else
                            "these objects are still profiled, they call the gcov code: "
                            "%s.  Leave the whole directory out of profiling, not only "
                            "some of its objects: %s is linked without that code"
                            % ("; ".join(bad[:6]), image)))
    checks.append(Check("the whole-kernel lab kernel builds (build/lab-all, make -k)", built,
                        None, why))
    main = os.path.join(out, "init", "main.o")
    kept = os.path.exists(main) and bool(gcov_calls(main))
    checks.append(Check("the rest of the kernel is still profiled (init/main.o)", kept,
                        None, "" if kept else "init/main.o calls no gcov function: an "
                        "exclusion reaches further than its directory"))
    return checks


# --- Lab 5: the registry (kernel/gcov/base.c), in a host harness ------------

# Which TODO a step of labs/lab05/harness/harness.c exercises first: where
# the harness stops or leaves the mutex held, that TODO is the suspect.
STEPS5 = {"boot constructors": 3, "core initcall": 3, "late initcall": 3,
          "load multi": 3, "load foreign": 2, "unload multi": 4, "unload foreign": 4,
          "load multi again": 3, "unload multi again": 4,
          "load failing (its init fails)": 4, "load tight (kzalloc fails)": 3,
          "unload tight": 4, "load pre (before a failure)": 3,
          "load multi after the failure": 3, "unload pre": 4,
          "unload multi after the failure": 4, "load minor (another GCC 12 release)": 2,
          "unload minor": 4, "load nic": 3, "load lib": 3, "unload lib": 4, "unload nic": 4}
# The run with the argument "modules": a kernel whose built-in code is not
# profiled, where the first object seen is a module's of another release.
STEPS5_MODULES = {"core initcall": 4, "late initcall": 3, "load foreign first": 2,
                  "load multi after it": 2, "unload multi": 4}
VERSION5 = ('gcov: gcov data version 0x4232322a ("B22*", GCC 12.2)')
NOMEM5 = "gcov: /build/tight/tight.gcda: out of memory: not registered"
REFUSED5 = ("gcov: %s: data version 0x%s (GCC %s), this kernel reads GCC 12 data only: "
            "not registered")


def host_program(src, headers, sources, harness, tmp, lab, name):
    """Compile the tree's kernel/gcov/SOURCES with HARNESS/harness.c on the
    stand-in kernel and the kernel headers of HEADERS (standin.py).
    Returns (None, the program), or (the failed Check NAME, None)."""
    harness = os.path.abspath(harness)
    for source in list(sources) + ["gcov.h", "gcc_version.h"]:
        path = os.path.join(src, "kernel", "gcov", source)
        if not os.path.isfile(path):
            raise GcovlabError("%s is missing: Lab %d's exercise needs the tree at lab-%d "
                               "('vm/gcovlab exercise %d')" % (path, lab, lab, lab))
        shutil.copy(path, tmp)
    # AddressSanitizer: an allocation too small, or memory read after
    # kfree() (or after its module went), stops the harness where it
    # happens.
    errors, prog = standin.build(headers, [os.path.join(tmp, s) for s in sources],
                                 [os.path.join(harness, "harness.c")], tmp,
                                 ["-g", "-O0", "-fsanitize=address"], [tmp])
    if errors is None:
        return None, prog
    return compile_failure(errors, name, {os.path.join(tmp, s): "kernel/gcov/" + s
                                          for s in sources}, headers), None


def run_host_program(prog, args=()):
    """(output, exit status or "timeout", sanitizer's error kind, its report)."""
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    try:
        proc = probe([prog] + list(args), cwd=os.path.dirname(prog), env=env, text=False,
                     timeout=10)
    except subprocess.TimeoutExpired as e:
        return (e.stdout or b"").decode(errors="replace"), "timeout", "", ""
    err = proc.stderr.decode(errors="replace")
    report = re.search(r"SUMMARY: AddressSanitizer: ([\w-]+)", err) or \
        re.search(r"ERROR: AddressSanitizer: (?:attempting )?([\w-]+)", err)
    return proc.stdout.decode(errors="replace"), proc.returncode, \
        report.group(1) if report else "", err


def compile_failure(errors, name, files, headers):
    """The one Check of a program that does not compile or link: FILES
    maps the student's files as compiled to their names in the tree.  A
    name the kernel has and the stand-in lacks is the stand-in's fault,
    and said so; anything else is the compiler's first errors."""
    lacks = standin.lacking(errors, headers, files)
    if lacks:
        return Check(name, False, None, "\n".join(
            "%s: the lab's stand-in kernel does not have %s: tell your instructor (the "
            "kernel has it, so your code may well be right; the check cannot run it "
            "until labs/standin has it)" % (where, what) for what, where in lacks[:5]))
    for path, shown in files.items():
        errors = errors.replace(path, shown)
    detail = "\n".join(ln for ln in errors.splitlines()
                       if "error" in ln or "undefined reference" in ln)[:1500] or errors[-1500:]
    first = re.search(r"^(kernel/gcov/\S+?):(\d+):\d+: error", detail, re.M)
    if first:
        detail = "the compiler's first error is at line %s of %s:\n%s" % (
            first.group(2), first.group(1), detail)
    return Check(name, False, None, detail)


def steps5(out):
    """{step: its lines} and the state each step ended in {step: (held, allocated)}."""
    lines, states, step = {}, {}, None
    for line in out.splitlines():
        m = re.match(r"H: step (.*)$", line)
        if m:
            step = m.group(1)
            lines[step] = []
            continue
        m = re.match(r"H: state (.*) held=(-?\d+) allocated=(-?\d+)$", line)
        if m:
            states[m.group(1)] = (int(m.group(2)), int(m.group(3)))
        elif step is not None:
            lines[step].append(line)
    return lines, states


def stopped5(out, status, sanitizer, report, steps):
    """(ended, the step it stopped in, why, the TODO to blame, whether a
    mutex was left held) of one run of Lab 5's harness."""
    lines, states = steps5(out)
    stopped = re.search(r"^H: FAIL (.*)$", out, re.M)
    last = list(lines)[-1] if lines else "start"
    if "H: done" in out:
        return True, last, "", None, False
    freed = report.split("freed by thread", 1)[-1].split("previously allocated", 1)[0]
    why = "the harness stopped in step '%s': %s" % (
        last, stopped.group(1).rsplit(" (step ", 1)[0] if stopped else
        "it ran over 10 s (a loop that never ends?)" if status == "timeout" else
        "AddressSanitizer stopped it (%s): the memory was a module's, freed when it "
        "unloaded: the registry still pointed into it (an object of that module left "
        "in the list, or one of another module taken for it)" % sanitizer
        if sanitizer and "module_memory_free" in freed else
        "AddressSanitizer stopped it (%s: memory used outside what was allocated, "
        "or after it was freed)" % sanitizer if sanitizer else
        "exit status %s (a crash: a NULL or freed pointer?)" % status)
    locked = bool(stopped) and "mutex" in stopped.group(1)
    # a mutex left held shows at the next lock: blame the step that left it
    held = [step for step, (h, _a) in states.items() if h]
    if locked and held:
        why = "the mutex was still held after step '%s'; then %s" % (held[0], why)
    blame = steps.get(held[0] if locked and held else last)
    if sanitizer and "module_memory_free" in freed:
        blame = 4
    return False, last, why, blame, locked


def check_lab5(src, harness, headers):
    """TODO 1 decodes the data version, 2 refuses other GCC releases, 3
    registers an object, 4 is the module notifier.  The student's base.c
    runs on the host (labs/lab05/harness), twice: as a kernel whose
    built-in code is profiled, and as one whose modules only are.
    Seconds, no kernel build."""
    name = "kernel/gcov/base.c compiles against the check's stand-in kernel"
    with tempfile.TemporaryDirectory(prefix="gcovlab-lab5.") as tmp:
        failed, prog = host_program(src, headers, ["base.c"], harness, tmp, 5, name)
        if failed:
            return [failed]
        out, status, sanitizer, report = run_host_program(prog)
        mod_run = run_host_program(prog, ["modules"])
    checks = [Check(name, True)]
    lines, states = steps5(out)
    said = [ln.split(": ", 1)[1] for step in lines.values() for ln in step
            if ln.startswith(("info: ", "warn: "))]
    ended, last, why_stopped, blame, locked = stopped5(out, status, sanitizer, report,
                                                       STEPS5)
    run_to_end = Check("gcov_lock is taken and released on every path" if locked else
                       "the harness runs to its end", ended, blame, why_stopped)
    if not ended:
        # what the later checks miss follows from this: say it first
        checks.append(run_to_end)
    held = [step for step, (h, _a) in states.items() if h]

    def judged(check, needed):
        """A check whose steps did not all run cannot be judged: say so."""
        missing = [step for step in needed if step not in states]
        if not missing:
            return check
        return Check(check.name, False, None,
                     "not judged: the harness stopped in step '%s' and never finished "
                     "step '%s' (see the first failure above)" % (last, missing[0]))

    # TODO 1: the version, printed once, decoded.
    printed = [s for s in said if s.startswith("gcov: gcov data version")]
    good = printed == [VERSION5]
    misread = sorted({m.group(1) for s in said
                      for m in [re.search(r"data version 0x4232322a \((GCC [\d.]+)\)", s)] if m})
    checks.append(judged(Check(
        'the data version is printed once, decoded: "B22*" is GCC 12.2', good,
                        1, "" if good else "printed: %s; want exactly one line: %s%s" % (
                            "; ".join(printed) or "nothing", VERSION5,
                            "\nGCC 12.2's data (0x4232322a) was decoded as %s" % (
                                " and ".join(misread)) if misread else "")), ["core initcall"]))

    # TODO 2: objects of another GCC major release are refused by name.
    want = [REFUSED5 % ("/foreign/made-up.gcda", "4231332a", "11.3"),
            REFUSED5 % ("/foreign/newer.gcda", "4233312a", "13.1"),
            REFUSED5 % ("/foreign/older.gcda", "4139332a", "9.3")]
    foreign = lines.get("load foreign", [])
    got = [ln.split(": ", 1)[1] for ln in foreign if ln.startswith("warn: ")]
    taken = [ln for ln in foreign if "registered /foreign" in ln]
    before, after = states.get("load multi"), states.get("load foreign")
    kept = before is not None and after is not None and after[1] != before[1]
    good = got == want and not taken and not kept
    detail = ""
    # a refusal that names the release wrongly is TODO 1's decoding
    expected = {"/foreign/made-up.gcda": "11.3", "/foreign/newer.gcda": "13.1",
                "/foreign/older.gcda": "9.3"}
    misdecoded = ["%s as GCC %s (want %s)" % (m.group(1), m.group(2), expected[m.group(1)])
                  for m in (re.match(r"gcov: (\S+): data version 0x[0-9a-f]{8} "
                                     r"\(GCC ([\d.]+)\)", ln) for ln in got)
                  if m and m.group(1) in expected and m.group(2) != expected[m.group(1)]]
    blame = 1 if misdecoded else 2
    if misdecoded:
        detail = "the versions were decoded wrongly: %s\n" % "; ".join(misdecoded)
    if not good:
        detail += ("a module's objects written by GCC 11.3, 13.1 and 9.3 must each be "
                  "refused with pr_warn(): want\n  %s\ngot %s" % (
                      "\n  ".join(want), "\n  ".join(got) or "no warning"))
        if taken or kept:
            detail += "\nand they were registered (or allocated) all the same"
    checks.append(judged(Check(
        "an object of another GCC release is refused by name, not kept", good, blame,
        detail), ["load multi", "load foreign"]))

    # TODO 2 again: every GCC 12 release has the same layout.
    mine = lines.get("load minor (another GCC 12 release)", [])
    kept = any("registered /build/minor/minor.gcda" in ln for ln in mine)
    checks.append(judged(Check(
        "an object of another GCC 12 release is kept", kept, 2,
        "" if kept else "module minor's object was written by another GCC 12 release than "
        "this compiler's (its version word differs in the minor digit only); every GCC 12 "
        "release has the same gcov_info layout, so only the major release decides: it "
        "said %s" % ("; ".join(ln.split(": ", 1)[-1] for ln in mine
                               if not ln.startswith("H: ")) or "nothing")),
        ["load minor (another GCC 12 release)"]))

    # TODO 2 in a kernel whose modules only are profiled: the first object
    # seen is foreign, and the reference is still the compiler's release.
    m_out, m_status, m_sanitizer, m_report = mod_run
    m_lines, _m_states = steps5(m_out)
    m_said = [ln.split(": ", 1)[1] for step in m_lines.values() for ln in step
              if ln.startswith(("info: ", "warn: "))]
    m_ended, _m_last, m_why, m_blame, _m_locked = stopped5(
        m_out, m_status, m_sanitizer, m_report, STEPS5_MODULES)
    m_warn = [ln.split(": ", 1)[1] for ln in m_lines.get("load foreign first", [])
              if ln.startswith("warn: ")]
    m_regs = [s for s in m_said if s.startswith("gcov: registered /build/multi/")]
    m_version = [s for s in m_said if s.startswith("gcov: gcov data version")]
    problems = []
    if m_warn != want:
        problems.append("the foreign module, loaded first, must be refused: want\n  %s\n"
                        "got %s" % ("\n  ".join(want), "\n  ".join(m_warn) or "no warning"))
    if len(m_regs) != 2:
        problems.append("module multi's two GCC 12 objects, loaded after it, must be "
                        "kept: got %s" % ("; ".join(m_regs) or "no 'registered' line"))
    if m_version != [VERSION5]:
        problems.append("the version printed must be GCC 12's, once: got %s" % (
            "; ".join(m_version) or "nothing"))
    if not m_ended:
        problems.insert(0, m_why)
    good = not problems
    m_misdecoded = any(m and expected.get(m.group(1), m.group(2)) != m.group(2) for m in (
        re.match(r"gcov: (\S+): data version 0x[0-9a-f]{8} \(GCC ([\d.]+)\)", w)
        for w in m_warn))
    checks.append(Check(
        "with modules only, a foreign object loaded first is refused and GCC 12's kept",
        good, None if good else m_blame if not m_ended else 1 if m_misdecoded else 2,
        "" if good else "a kernel whose built-in code is not profiled: the first object it "
        "sees is a module's of GCC 11.3; the reference is the compiler's release "
        "(__GNUC__), not the first object's.\n" + "\n".join(problems)))

    # TODO 3: registration: boot summary, names, the running count.
    boot = "gcov: 3 objects registered during boot" in said
    regs = [s for s in said if s.startswith("gcov: registered ")]
    want = ["gcov: registered /build/multi/core.gcda, 4 in all",
            "gcov: registered /build/multi/lib/helper.gcda, 5 in all"]
    allocated = states.get("load multi", (0, None))[1]
    # the structure kept for an object must point at its gcov_info (the
    # harness looks for the pointer in what __gcov_init() allocated)
    unpointed = list(dict.fromkeys(m.group(1) for m in re.finditer(
        r"^H: kept (\S+) no-pointer$", out, re.M)))
    good = boot and regs[:2] == want and allocated == 5 and not unpointed
    if unpointed:
        detail = ("the gcov_object allocated for %s does not point at its gcov_info: set "
                  "obj->info = info (the notifier finds a module's objects by that "
                  "pointer)" % ", ".join(unpointed[:3]))
    else:
        detail = ("3 built-in objects at boot, then a module of 2: want 'gcov: 3 objects "
                  "registered during boot', then\n  %s\ngot %s; objects allocated: %s "
                  "(want 5: one gcov_object each)" % (
                      "\n  ".join(want),
                      "; ".join([s for s in said if "during boot" in s] + regs[:2])
                      or "nothing", allocated))
    checks.append(judged(Check(
        "each GCC 12 object is kept in the list, counted and named", good, 3,
        "" if good else detail), ["late initcall", "load multi"]))

    # TODO 3 again: an allocation that fails keeps nothing and says so once.
    tight = lines.get("load tight (kzalloc fails)", [])
    before = states.get("load pre (before a failure)", (0, None))[1]
    after = states.get("load tight (kzalloc fails)", (0, None))[1]
    # exactly the one warning, and nothing else
    said_tight = [ln for ln in tight if not ln.startswith("H: ")]
    noisy = [] if said_tight == ["warn: " + NOMEM5] else said_tight or ["nothing"]
    # and the count stays right: the next load prints it again, one more
    # than the load just before the failure did
    pre = [re.search(r", (\d+) in all$", s) for s in lines.get("load pre (before a failure)",
                                                              [])]
    kept = ([int(m.group(1)) for m in pre if m] or [4])[-1]
    want = ["gcov: registered /build/multi/core.gcda, %d in all" % (kept + 1),
            "gcov: registered /build/multi/lib/helper.gcda, %d in all" % (kept + 2)]
    again = [s.split(": ", 1)[1] for s in lines.get("load multi after the failure", [])
             if s.startswith("info: gcov: registered ")]
    good = not noisy and before == after and again == want
    if noisy:
        detail = "kzalloc() returned NULL for the object of module tight, and the code " \
            "said: %s (the TODO wants exactly one pr_warn(): '%s')" % (
                "; ".join(noisy), NOMEM5)
    elif before != after:
        detail = "kzalloc() returned NULL for the object of module tight: objects " \
            "allocated went from %s to %s" % (before, after)
    else:
        detail = "after kzalloc() failed for module tight's object, module multi loaded: " \
            "want\n  %s\ngot %s (an object that was not kept is not counted)" % (
                "\n  ".join(want), "; ".join(again) or "nothing")
    checks.append(judged(Check(
        "an allocation that fails keeps nothing and warns once", good, 3,
        "" if good else detail),
        ["load pre (before a failure)", "load tight (kzalloc fails)",
         "load multi after the failure"]))

    # Every step leaves the mutex unlocked (and locks it only once).
    if not locked:
        bad = "the mutex is still held after step '%s'" % held[0] if held else ""
        checks.append(Check("gcov_lock is taken and released on every path", not bad,
                            STEPS5.get(held[0]) if held else None, bad))

    # TODO 4: the notifier.
    gone = [s for s in said if " unloaded: " in s]
    want = ["gcov: module multi unloaded: 2 objects unregistered, 3 left"] * 2 + [
        "gcov: module failing unloaded: 1 object unregistered, 3 left",
        "gcov: module multi unloaded: 2 objects unregistered, 4 left",
        "gcov: module pre unloaded: 1 object unregistered, 3 left",
        "gcov: module minor unloaded: 1 object unregistered, 3 left",
        "gcov: module lib unloaded: 1 object unregistered, 5 left",
        "gcov: module nic unloaded: 2 objects unregistered, 3 left"]
    unloads = ("unload multi", "unload multi again", "load failing (its init fails)",
               "unload multi after the failure", "unload pre", "unload minor", "unload lib",
               "unload nic")
    freed = [states.get(s, (0, None))[1] for s in unloads]
    notifier = "H: module notifier registered" in out
    good = gone == want and freed == [3, 3, 3, 4, 3, 3, 5, 3] and notifier
    checks.append(judged(Check(
        "a module's objects leave the list and are freed when it goes away", good, 4,
        "" if good else
        "%swant\n  %s\ngot %s; objects allocated after each unload: %s (want 3, 3, 3, 4, "
        "3, 3, 5, 3: kfree() what list_del() takes out).  A module's objects are the ones "
        "whose gcov_info lies in its memory (within_module()): module nic's objects' paths "
        "do not name it, and module lib's name is in one of nic's paths" % (
            "" if notifier else "no module notifier was registered; ",
            "\n  ".join(want), "; ".join(gone) or "nothing", freed)), list(unloads)))
    loads = [step for step in lines if step.startswith("load ") and "fails)" not in step]
    early = [s for step in loads for s in lines.get(step, []) if " unloaded: " in s]
    checks.append(judged(Check(
        "only MODULE_STATE_GOING takes objects out", not early, 4,
                        "objects were taken out while the module loaded: %s" %
                        "; ".join(early) if early else ""), ["load multi", "load multi again"]))
    if ended:
        checks.append(run_to_end)
    elif locked:
        checks.append(Check("the harness runs to its end", False, None,
                            "it stopped in step '%s' (see the first failure above)" % last))
    return checks


# --- Lab 7: the debugfs files (kernel/gcov/fs.c), in a host harness ---------

# (name, TODO, the harness's observations it reads, the checks it needs to
# have passed first, a message the code must print in a step).  In the
# order the harness's steps need them: a file must open and read before
# its reset, ghost or revive can be seen.
CHECKS7 = [
    ("gcov/ mirrors the build paths after boot, with a reset file", None, ["tree"], [], None),
    ("open() of a .gcda file for reading succeeds", 1, ["open"], [], None),
    ("open() of a file that is going away fails with -ENOENT, and unlocks", 1,
     ["open-removed"], [], None),
    ("read() gives the whole image, then 0, in reads of any size and from any position", 2,
     ["read-whole", "read-chunks", "seek"], ["open"], None),
    ("open() makes the image of the file's data: one copy, or the sum of its copies", 1,
     ["sum"], ["read"], None),
    ("the image is made once, at open(): later counts are not in it", 1,
     ["image-at-open", "p0-reader"], ["read"], None),
    ("an open() that cannot allocate fails with -ENOMEM and keeps nothing", 1,
     ["open-nomem"], ["read"], None),
    ("each open() holds what close() gives back", 1, ["close-balance", "open-leak"],
     ["read"], None),
    ("writing to a .gcda file zeroes it, every loaded copy of it", 3,
     ["write-resets", "reset-copies"], ["read"], None),
    ("writing to gcov/reset zeroes every file", 3, ["reset-all"], ["read"], None),
    ("an unloaded module's counters stay readable (a ghost), alone or beside other copies", 4,
     ["ghost", "ghost-sum"], ["read"], None),
    ("writing to a ghost's file discards the ghost, and the file goes", 3, ["discard"],
     ["ghost"], None),
    ("writing to a file with a ghost beside a loaded copy zeroes the copy and drops the "
     "ghost", 3, ["reset-ghost"], ["ghost"], None),
    ("an unloaded copy that cannot be kept is dropped, with a warning", 4, ["ghost-nomem"],
     ["ghost"], ("unload with no memory for a ghost", "warn: gcov: /build/drivers/lone.gcda: "
                 "out of memory, counters of the unloaded copy dropped")),
    ("a reader keeps its image while the file goes", 1, ["reader-survives"], ["ghost"], None),
    ("a module loaded again continues from its saved counters", 5, ["revive"], ["ghost"],
     ("load drv again", "info: gcov: /build/drivers/drv/drv.gcda: counters continue from "
      "the unloaded copy")),
    ("a changed module starts from zero, with a warning", 5, ["changed"], ["ghost"],
     ("load a changed drv", "warn: gcov: /build/drivers/drv/drv.gcda: changed since it "
      "was unloaded, old counters dropped")),
    ("with gcov_persist=0 a module's file goes with it, and comes back empty", None,
     ["p0-gone", "p0-fresh"], ["read"], None),
    ("a write() through a file that went fails with ENOENT", None, ["write-removed"],
     ["ghost"], None),
    ("nothing is left allocated once every module and ghost is gone", None,
     ["no-leak", "p0-no-leak"], ["read"], None),
]
# The short names CHECKS7's "needs" use: an observation of the check
# needed, and how a failure's detail names it.
NEEDS7 = {n: next(k for k, c in enumerate(CHECKS7) if key in c[2])
          for n, key in (("open", "open"), ("read", "read-whole"), ("ghost", "ghost"))}
SAID7 = {"open": "open()", "read": "read()", "ghost": "the ghost"}
# The TODO whose function a crash happened in (the first frame in fs.c).
FUNCS7 = {"gcov_file_open": 1, "gcov_file_data": 1, "gcov_file_close": 1,
          "gcov_file_read": 2, "gcov_file_llseek": 2, "gcov_file_reset": 3,
          "gcov_file_write": 3, "gcov_reset_write": 3, "gcov_file_doom": 3,
          "gcov_file_save": 4, "gcov_fs_remove": 4, "gcov_file_join": 5}


def crash_blame7(report):
    """(the TODO to blame for an AddressSanitizer report, why)."""
    freed = report.split("freed by thread", 1)
    if len(freed) == 2:
        if "module_memory_free" in freed[1].split("previously allocated", 1)[0]:
            return 4, "the memory was a module's, freed when it unloaded: a ghost must be " \
                "a copy (gcov_info_dup), never the module's own data"
        if "gcov_file_release_ref" in freed[1].split("previously allocated", 1)[0]:
            return 1, "the gcov_file was freed by its last kref_put(), while still in use: " \
                "each open file must hold a reference of its own"
        # memory freed in the student's code and used after: blame the free
        for m in re.finditer(r"#\d+ 0x[0-9a-f]+ in (\w+) (\S+)",
                             freed[1].split("previously allocated", 1)[0]):
            if m.group(2).rsplit("/", 1)[-1].startswith("fs.c:") and m.group(1) in FUNCS7:
                return FUNCS7[m.group(1)], "the memory was freed in %s() (%s), and used " \
                    "after: a pointer to it was kept (set it to NULL when freeing)" % (
                        m.group(1), m.group(2).rsplit("/", 1)[-1])
    # the harness's user buffers carry STANDIN_USER_TAG (labs/standin/standin.h)
    user = re.search(r"on (?:unknown )?address 0x5a[0-9a-f]{14}\b", report)
    for m in re.finditer(r"#\d+ 0x[0-9a-f]+ in (\w+) (\S+)", freed[0]):
        if m.group(2).rsplit("/", 1)[-1].startswith("fs.c:") and m.group(1) in FUNCS7:
            where = "%s() (%s)" % (m.group(1), m.group(2).rsplit("/", 1)[-1])
            if user:
                return FUNCS7[m.group(1)], "%s touched the user's buffer directly: buf " \
                    "is a __user address, which the kernel reaches only through " \
                    "copy_to_user() or simple_read_from_buffer() (on x86, SMAP makes a " \
                    "direct access fault)" % where
            return FUNCS7[m.group(1)], "it happened in " + where
    return None, ""


def run7(src, harness, headers):
    """Both runs of Lab 7's harness: (the failed compile Check or None, [(persist, output,
    status, sanitizer, report)])."""
    with tempfile.TemporaryDirectory(prefix="gcovlab-lab7.") as tmp:
        failed, prog = host_program(src, headers, ["base.c", "fs.c"], harness, tmp, 7,
                                    "kernel/gcov/fs.c compiles against the check's stand-in "
                                    "kernel")
        if failed:
            return failed, []
        return None, [(p,) + run_host_program(prog, [p]) for p in ("1", "0")]


def check_lab7(src, harness, headers):
    """TODO 1 is open(), 2 read(), 3 the reset, 4 the ghost, 5 the revive.
    The student's fs.c runs on the host with the tree's base.c
    (labs/lab07/harness): seconds, no kernel build."""
    name = "kernel/gcov/fs.c compiles against the check's stand-in kernel"
    failed, runs = run7(src, harness, headers)
    if failed:
        return [failed]
    checks = [Check(name, True)]
    seen, said, stops = {}, {}, []
    for persist, out, status, sanitizer, report in runs:
        step, todo = "start", None
        for line in out.splitlines():
            m = re.match(r"H: step (.*) todo (\d+)$", line)
            if m:
                step, todo = m.group(1), int(m.group(2)) or None
                continue
            m = re.match(r"H: obs (\S+) (ok|bad)(?: (.*))?$", line)
            if m:
                # the first bad observation of a key is the one to show
                if m.group(1) not in seen or seen[m.group(1)] is None:
                    seen[m.group(1)] = None if m.group(2) == "ok" else m.group(3)
                continue
            if line.startswith(("info: ", "warn: ", "err: ", "notice: ")):
                said.setdefault(step, []).append(line)
        if "H: done" in out:
            continue
        fail = re.search(r"^H: FAIL (.*) \(step .*\) todo (\d+)$", out, re.M)
        blame, why = crash_blame7(report) if sanitizer else (None, "")
        if fail:
            blame = blame or int(fail.group(2)) or None
            what = fail.group(1)
        elif status == "timeout":
            what = "it ran over 10 s (a loop that never ends?)"
        elif sanitizer:
            what = "AddressSanitizer stopped it (%s)%s" % (sanitizer, ": " + why if why else "")
        else:
            what = "exit status %s (a crash: a NULL or freed pointer?)" % status
        stops.append(Check("gcov_lock is held throughout each handler's critical section, "
                           "taken once" if fail and "not held throughout" in fail.group(1)
                           else "gcov_lock is taken and released on every path"
                           if fail and "mutex" in fail.group(1) else
                           "the harness runs to its end", False, blame or todo,
                           "with gcov_persist=%s the harness stopped in step '%s': %s" % (
                               persist, step, what)))
    results = []
    for cname, todo, keys, needs, message in CHECKS7:
        missing = [k for k in keys if k not in seen]
        unmet = [SAID7[n] for n in needs if not results[NEEDS7[n]].passed]
        if missing and stops:
            results.append(Check(cname, False, None, "not judged: the harness stopped "
                                 "before it (see the first failure)"))
            continue
        if unmet:
            results.append(Check(cname, False, todo, "not judged yet: needs the check of "
                                 "%s above to pass first" % unmet[0]))
            continue
        bad = [seen.get(k, "%s: not looked at, a step before it failed" % k)
               for k in keys if seen.get(k, "") is not None]
        if message and not bad and message[1] not in said.get(message[0], []):
            level, text = message[1].split(": ", 1)
            bad = ["want the message '%s' (%s, ending with \\n); it printed: %s" % (
                text, "pr_warn()" if level == "warn" else "pr_info()",
                "; ".join(said.get(message[0], [])) or "nothing")]
        results.append(Check(cname, not bad, todo, bad[0] if bad else ""))
    if stops:
        # the stop goes where the harness stopped judging
        at = next((k for k, c in enumerate(results) if c.detail.startswith("not judged:")),
                  len(results))
        results[at:at] = stops[:1]
    return checks + results
