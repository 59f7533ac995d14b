#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run a lab page exactly as a reader types it.

A lab page (docs/labs/labN.rst) is the one source of what a student runs:
every ``.. code-block:: console`` block holds commands after ``$``, and a
``.. literalinclude:: ../captures/...`` right after a block shows what
that block printed.  This runner reads the page, types its commands into
ONE shell (bash), in page order, from the top of the checkout, with a
fresh HOME, and then

* checks each command's exit status (0 unless a ``.. runner: exit N``
  comment before the block says otherwise);
* checks that each text the prose tells the reader to look for
  (``look for ``X````) is in the output the page shows just before;
* with --capture, stores each block's output (paths made
  machine-independent) as the capture the page includes, and the lab's
  measured duration in docs/captures/times.json; without it, compares
  each capture with the committed one after masking what changes from
  run to run (times, timestamps, stamps), and reports drift.

The content of a ``.. solution::`` (folded on the rendered page) is read
as if it were not indented: its commands run in their place.

Comments the runner reads (invisible on the rendered page), put on the
line before a console block:

  .. runner: exit 1        the block's last command must exit 1 ("any":
                           its status is not checked, a race decides it)
  .. runner: skip          the block is not run (say why after "skip")
  .. runner: timeout 1800  seconds for the block (default 1200)
  .. runner: digits        numbers in the output vary (a race, a size):
                           compare the capture with every number masked
  .. runner: unordered     lines come in any order (two CPUs print):
                           compare the capture's lines sorted
  .. runner: race          what the output shows is decided by a race
                           (which tasks a deadlock catches, how often each
                           worker ran): the capture is shown, not
                           compared; the exit status and the texts the
                           prose cites still are

The "Exercises" section and everything after it is not run.

Usage:
  tools/pagerun.py N [N ...]        run Lab N's page, check against the captures
  tools/pagerun.py --capture N ...  run it and rewrite its captures
  tools/pagerun.py --list N         print the steps without running them
  tools/pagerun.py --capture --exercise N ...
                                    only Start and reset and the Exercise section
  tools/pagerun.py --capture --all  every lab, in course order (make captures)
  tools/pagerun.py --cold --all     every lab from an empty work directory (a
                                    new one under /tmp, or GCOVLAB_WORK if it is
                                    empty), checked against the captures; each
                                    lab's time is recorded as its cold one: the
                                    time of a student who does the course in
                                    order on a new machine (the captures stay)
"""

import argparse
import datetime
import difflib
import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import artifacts  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABS_TOML = os.path.join(REPO, "labs", "index.toml")
CAPTURES = os.path.join(REPO, "docs", "captures")
TIMES = os.path.join(CAPTURES, "times.json")
DEFAULT_TIMEOUT = 1200


class PageError(Exception):
    """A page the runner cannot read: names the file and line."""


# --- the lab list ----------------------------------------------------------

def labs():
    with open(LABS_TOML, "rb") as f:
        return {lab["number"]: lab for lab in tomllib.load(f)["lab"]}


def page_of(number):
    lab = labs().get(number)
    if lab is None:
        raise PageError("lab %s is not in labs/index.toml" % number)
    return os.path.join(REPO, lab["page"])


# --- reading a page --------------------------------------------------------

class Block:
    """One console block: its commands, where it is, what it shows."""

    def __init__(self, page, line, section):
        self.page = page
        self.line = line            # 1-based line of the code-block directive
        self.section = section      # the heading it sits under
        self.commands = []          # as typed (continuations joined)
        self.inline = []            # output lines written in the block itself
        self.capture = None         # path of the literalinclude after it
        self.options = {}           # that literalinclude's options
        self.exit = 0               # expected status of the last command
        self.skip = None
        self.timeout = DEFAULT_TIMEOUT
        self.digits = False         # numbers masked when comparing
        self.unordered = False      # lines compared sorted
        self.race = False           # the capture is not compared
        self.cited = []             # (line, text) the prose says to look for

    def where(self):
        return "%s:%d (%s)" % (os.path.relpath(self.page, REPO), self.line, self.section)


HEADING_RULE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
CITE = re.compile(r"[Ll]ook for ``(.+?)``")
STOP_SECTIONS = ("Exercises",)


def unfold(lines):
    """A ``.. solution::`` folds what it holds on the rendered page (the
    reader opens it); the reader still types what is inside, in its
    place: read its content as if it were not indented (same line
    numbers)."""
    out = []
    inside = False
    for line in lines:
        if re.match(r"^\.\. solution::", line):
            inside = True
            out.append("")
            continue
        if inside and line.strip() and not line.startswith("   "):
            inside = False
        out.append(line[3:] if inside and line.startswith("   ") else line)
    return out


def read_page(path):
    """The page's console blocks, in order, up to the Exercises section."""
    with open(path, encoding="utf-8") as f:
        lines = unfold(f.read().split("\n"))
    blocks = []
    section = "top"
    pending = {}
    last = None
    prose = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if (i + 1 < len(lines) and line.strip() and not line.startswith(" ")
                and HEADING_RULE.match(lines[i + 1])
                and len(lines[i + 1].rstrip()) >= len(line.rstrip())):
            section = line.strip()
            if section in STOP_SECTIONS:
                prose.clear()
                break
            i += 2
            continue
        m = re.match(r"^\.\. runner: (exit|skip|timeout|digits|unordered|race)\b\s*(.*)$", line)
        if m:
            key, value = m.groups()
            if key == "exit":
                if not re.fullmatch(r"\d+|any", value):
                    raise PageError("%s:%d: '.. runner: exit' wants a number or "
                                    "'any'" % (path, i + 1))
                pending["exit"] = None if value == "any" else int(value)
            elif key == "timeout":
                pending["timeout"] = int(value)
            elif key in ("digits", "unordered", "race"):
                pending[key] = True
            else:
                pending["skip"] = value or "skipped"
            i += 1
            continue
        if line.strip() == ".. code-block:: console" and not line.startswith(" "):
            cite(last, prose)
            block = Block(path, i + 1, section)
            block.exit = pending.get("exit", 0)
            block.skip = pending.get("skip")
            block.timeout = pending.get("timeout", DEFAULT_TIMEOUT)
            block.digits = pending.get("digits", False)
            block.unordered = pending.get("unordered", False)
            block.race = pending.get("race", False)
            pending = {}
            i += 1
            body = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                body.append(lines[i])
                i += 1
            parse_body(block, body, path)
            blocks.append(block)
            last = block
            # A capture directly after the block (blank lines between) is its output.
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            m = re.match(r"^\.\. literalinclude:: (\.\./captures/\S+)$", lines[j]) \
                if j < len(lines) else None
            if m:
                block.capture = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
                j += 1
                while j < len(lines) and re.match(r"^   :(\S+):\s*(.*)$", lines[j]):
                    k, v = re.match(r"^   :(\S+):\s*(.*)$", lines[j]).groups()
                    block.options[k] = v
                    j += 1
                i = j
            continue
        if last is not None and not line.startswith(".. "):
            prose.append((i + 1, line))
        i += 1
    cite(last, prose)
    return blocks


def cite(block, prose):
    """Record the texts the prose after a block tells the reader to look for."""
    if block is None or not prose:
        return
    text = " ".join(line.strip() for _n, line in prose)
    for m in CITE.finditer(text):
        # the line of the page where the citation starts
        pos, line = 0, prose[0][0]
        for n, chunk in prose:
            if pos + len(chunk.strip()) + 1 > m.start():
                line = n
                break
            pos += len(chunk.strip()) + 1
        block.cited.append((line, re.sub(r"\s+", " ", m.group(1))))
    prose.clear()


def parse_body(block, body, path):
    text = "\n".join(body)
    # a command the page breaks with "\" at the end of a line is one line
    text = re.sub(r"\\\n\s*", "", text)
    for raw in text.split("\n"):
        s = raw.strip()
        if not s or s.startswith(":"):
            continue
        if s.startswith("$ "):
            block.commands.append(s[2:])
        elif block.commands:
            block.inline.append(s)
        else:
            raise PageError("%s: the console block has text before its first "
                            "'$ ' command: %r" % (block.where(), s))
    if not block.commands:
        raise PageError("%s: a console block with no '$ ' command" % block.where())


def shown_lines(text, options):
    """What the page shows of a capture: literalinclude's line options."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for key in ("start-at", "start-after"):
        if key in options:
            hits = [n for n, s in enumerate(lines) if options[key] in s]
            if not hits:
                return None
            lines = lines[hits[0] + (key == "start-after"):]
    for key in ("end-at", "end-before"):
        if key in options:
            hits = [n for n, s in enumerate(lines) if options[key] in s]
            if not hits:
                return None
            lines = lines[:hits[0] + (key == "end-at")]
    if "lines" in options:
        keep = []
        for part in options["lines"].split(","):
            a, _, b = part.strip().partition("-")
            lo = int(a) if a else 1
            hi = (int(b) if b else len(lines)) if "-" in part else lo
            keep.extend(lines[lo - 1:hi])
        lines = keep
    return lines


# --- what differs between machines and runs --------------------------------

def normalise(text, home, work):
    """Paths as the pages write them: ~/gcov-kernel-labs, ~/.cache/..., ~."""
    pairs = [(REPO, "~/gcov-kernel-labs"),
             (os.path.realpath(work), "~/.cache/gcov-kernel-labs"),
             (work, "~/.cache/gcov-kernel-labs")]
    for path, name in sorted(pairs, key=lambda p: -len(p[0])):
        text = re.sub(r"(?<![\w.~/-])%s(?![\w.-])" % re.escape(path), name, text)
    text = re.sub(r"(?<![\w.~/-])%s(?![\w.-])" % re.escape(home), "~", text)
    text = re.sub(r"%s(?=/)" % re.escape(home), "/<home>", text)
    # inside another path (the guest's debugfs mirrors build paths): the
    # work directory as it is on a student's machine, under their home
    for path in {os.path.realpath(work), work}:
        text = re.sub(r"%s(?=/)" % re.escape(path), "/<home>/.cache/gcov-kernel-labs", text)
    return text


# Lines only a cold run prints (tree made, kernel configured and built), or
# a run that waited for another one: dropped before comparing.
COLD_ONLY = re.compile(r"^gcovlab: (?:%s)$" % "|".join([
    r"removing .*, left by an interrupted run",
    r"extracting .*",
    r"committing the pristine tree to git .*",
    r"making the baseline .*",
    r"checking out the pristine tree for mainline builds .*",
    r"configuring \S+ kernel: .*",
    r"building the \S+ kernel in .*",
    r" +\.\.\. .*files compiled so far",
    r"waiting for another gcovlab command .*",
    r"the \S+ kernel is up to date .*",
    r"\S+ kernel is up to date .*",
    r"built the \S+ kernel in .*",
    # printed only when the configuration is made again
    r"note: this tree has no CONFIG_\w+ yet .*",
    # a tool branch made again (another run deleted it, or patches/ changed)
    r"making branch lab-\d+: .*",
    # the tree's stand-in git identity, given when HOME has none (a page
    # run's fresh HOME) and taken back when it has one (a run between)
    r"git has no identity for your commits: .*",
    r"your commits in the kernel tree now use your own git identity .*",
    # once per machine and build directory, after the ccache change of
    # 2026-12-07 (kbuild.CCACHE_MODE)
    r"emptying the ccache cache once .*",
    r"build/\S+: its objects made with \.incbin are built again .*",
]))

# Kernel messages that come whenever the device or timer gets to it, not at
# a fixed point of the workload: dropped before comparing.
# The clocksource watchdog's verdict on the TSC, under TCG on a busy host,
# comes as a group: "clocksource: ...", "tsc: Marking TSC unstable ...",
# "TSC found unstable after boot ...", "sched_clock: Marking unstable ...".
NOISE = re.compile(r"^\[ *\d+\.\d+\] (?:input: |random: |clocksource: |tsc: |"
                   r"TSC found unstable |sched_clock: |"
                   r"Freeing unused|Run /init|workqueue: )")

MASKS = [
    # uname: the kernel's build count (.version) grows with every build
    (re.compile(r"(Linux \S+ \d+\.\d+\.\d+\S* )#\d+ "), r"\1#<n> "),
    # ls -l of a symbolic link: its size is the length of the path it
    # names, which holds the work directory's (another user's HOME)
    (re.compile(r"^(l[rwx-]{9} +\d+ +\S+ +\S+) +\d+ "), r"\1 <n> "),
    # a tree made just now names its branch; one that was ready does not
    (re.compile(r"^(gcovlab: kernel tree ready: Linux \S+ at \S+)(?:,| \().*$"), r"\1"),
    # ls -l: the date and time of a file
    (re.compile(r"\b[A-Z][a-z]{2} [ \d]\d (?:\d\d:\d\d| \d{4}) "), "<date> "),
    # a branch just made names its patches; one that existed does not
    (re.compile(r"^(gcovlab: kernel tree now on branch lab-\d+) \(.*\)$"), r"\1"),
    # the tree may or may not be on the branch already
    (re.compile(r"^gcovlab: kernel tree (?:already|now) on branch "), "gcovlab: kernel tree on branch "),
    (re.compile(r"\bin (?:\d+ min \d+ s|\d+(?:\.\d+)? s)\b"), "in <time>"),
    (re.compile(r"\b\d+(?:\.\d+)? s\b"), "<n> s"),
    (re.compile(r"\b\d+ files compiled\b"), "<n> files compiled"),
    # the tool's excerpt of a failed build's log: its cut depends on how
    # make's parallel jobs interleaved
    (re.compile(r"^\[\.\.\. \d+ lines before \.\.\.\]$"), "[... <n> lines before ...]"),
    # kunit.py's report: the wall-clock time of each line
    (re.compile(r"^\[\d\d:\d\d:\d\d\] "), "[<clock>] "),
    (re.compile(r"^\[ *\d+\.\d+\]"), "[<timestamp>]"),
    (re.compile(r"\[ *\d+\.\d+\]"), "[<timestamp>]"),
    (re.compile(r"(\bstamp )\d+"), r"\1<stamp>"),
    (re.compile(r"^(0000000 [0-9a-f]{8} [0-9a-f]{8}) [0-9a-f]{8}\b"), r"\1 <stamp>"),
    (re.compile(r"\bident=\d+"), "ident=<ident>"),
    (re.compile(r"\blineno_checksum=0x[0-9a-f]+"), "lineno_checksum=<checksum>"),
    (re.compile(r"\b[0-9a-f]{12,40}\b"), "<hash>"),
    # git log --oneline: a student's commits get new ids on every run
    (re.compile(r"^[0-9a-f]{7,11} "), "<hash> "),
    (re.compile(r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?"), "<date>"),
    (re.compile(r"/tmp/[\w.-]+"), "/tmp/<tmp>"),
]


# A kernel message on the console can land in the middle of a line the
# workload is printing (on two vCPUs, Lab 10's "online CPUs: 0-1" once
# ended "...0-1[ 0.912345] gcovrace: loading out-of-tree module taints
# kernel." and the workload's newline followed as an empty line): put the
# message on a line of its own, as it is on a quiet console.
GLUED = re.compile(r"(?<=[^\n])(\[ *\d+\.\d{6}\] [^\n]*)(\n\n|\n|$)")


def unglue(text):
    return GLUED.sub(lambda m: "\n" + m.group(1) + ("\n" if m.group(2) else ""), text)


def mask(text):
    out = []
    in_tail = False
    for line in unglue(text).split("\n"):
        # a failed build's "End of the log:": which lines are last depends
        # on how make's parallel jobs interleaved, and on what a cold build
        # still had to compile; the page cites its "First error lines"
        if line == "End of the log:":
            in_tail = True
            out.append(line)
            continue
        if in_tail:
            if not line.startswith("Full log: "):
                continue
            in_tail = False
        if COLD_ONLY.match(line) or COLD_ONLY.match(re.sub(r": done in .*$", " ...", line)) \
                or NOISE.match(line):
            continue
        for pattern, repl in MASKS:
            line = pattern.sub(repl, line)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


# --- running ---------------------------------------------------------------

def work_dir():
    return os.path.abspath(os.environ.get("GCOVLAB_WORK") or os.path.join(
        os.path.expanduser("~"), ".cache", "gcov-kernel-labs"))


# Every run's HOME has this one path: GCC hashes the paths of the files it
# compiles into the .gcno and .gcda (checksums, record offsets), and ls -l
# shows a link's length, so a HOME of another length would change what
# the pages show.
HOME = "/tmp/gcovlab-pagerun/home"
HOME_MARK = "/tmp/gcovlab-pagerun/.made-by-pagerun"


def make_home(base, work):
    """A fresh HOME (always HOME above), empty but for ~/.cache.  What an
    earlier run left there is removed first; a folder of that name that
    the runner did not make is refused."""
    top = os.path.dirname(HOME)
    if os.path.lexists(top):
        if os.path.islink(top) or not os.path.exists(HOME_MARK):
            raise PageError("%s exists and was not made by tools/pagerun.py; move it "
                            "away and run again" % top)
        shutil.rmtree(top)
    os.makedirs(os.path.join(HOME, ".cache"))
    with open(HOME_MARK, "w", encoding="utf-8") as f:
        f.write("tools/pagerun.py\n")
    home = HOME
    # No link to the work directory under ~/.cache and no ~/.gitconfig: the
    # page finds the work directory through GCOVLAB_WORK, which is not
    # this HOME's default, and its commits need the identity gcovlab gives
    # the tree when git has none.
    return home


def script_for(blocks, outdir):
    """One bash session: each command's output and status to files."""
    lines = ["cd %s || exit 99" % shlex.quote(REPO), "exec </dev/null"]
    for b, block in enumerate(blocks):
        if block.skip:
            continue
        for c, cmd in enumerate(block.commands):
            base = os.path.join(outdir, "%03d.%02d" % (b, c))
            lines.append("printf '%%s\\n' %s >&2" % shlex.quote("$ " + cmd))
            lines.append("date +%%s.%%N >%s.start" % shlex.quote(base))
            lines.append("{\n%s\n} >%s.out 2>&1" % (cmd, shlex.quote(base)))
            lines.append("echo $? >%s.rc" % shlex.quote(base))
    lines.append("echo done >%s" % shlex.quote(os.path.join(outdir, "finished")))
    return "\n".join(lines) + "\n"


class Result:
    def __init__(self, number):
        self.number = number
        self.problems = []
        self.seconds = 0.0
        self.outputs = {}           # block index -> normalised output


# Every run uses the one HOME: two at once (a capture and the tests, say)
# would swap each other's work directory link.  A run holds this lock.
LOCK = "/tmp/gcovlab-pagerun.lock"


def run_lab(number, capture=False, base=None, log=sys.stderr, page=None, first=None,
            exercise=False):
    """Run Lab NUMBER's page (or PAGE, a page file of the same form); with
    FIRST, only its first FIRST console blocks; with EXERCISE, only its
    "Start and reset" and "Exercise: ..." sections (an exercise is made
    to be done right after the start).  One run at a time: a second one
    waits for the first."""
    fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("pagerun: waiting for another page run, which uses %s ..." % HOME,
                  file=log, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        return run_lab_locked(number, capture, base, log, page, first, exercise)
    finally:
        os.close(fd)


def run_lab_locked(number, capture, base, log, page, first, exercise):
    page = page or page_of(number)
    blocks = read_page(page)
    if first is not None:
        blocks = blocks[:first]
    if exercise:
        blocks = [b for b in blocks
                  if b.section == "Start and reset" or b.section.startswith("Exercise:")]
        if len({b.section for b in blocks}) < 2:
            raise PageError("%s has no 'Exercise: ...' section" % os.path.relpath(page, REPO))
    work = work_dir()
    keep = base is not None
    base = base or tempfile.mkdtemp(prefix="pagerun.")
    os.makedirs(base, exist_ok=True)
    try:
        return _run(number, page, blocks, work, base, capture, log,
                    artifacts_too=first is None and not exercise)
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
            if os.path.exists(HOME_MARK):
                shutil.rmtree(os.path.dirname(HOME), ignore_errors=True)


def git(tree, *args):
    return subprocess.run(["git", "-C", tree] + list(args), capture_output=True,
                          text=True, check=False)


def my_branches(tree):
    out = git(tree, "for-each-ref", "--format=%(refname:short)", "refs/heads/my-lab*").stdout
    return out.split()


def refuse_unless_clean(tree):
    """The page starts from a clean tree; the run must not take a student's names."""
    if not os.path.isdir(os.path.join(tree, ".git")):
        return
    dirty = git(tree, "status", "--porcelain").stdout.strip()
    if dirty:
        raise PageError("the kernel tree %s has uncommitted changes:\n%s\nA page "
                        "starts from a clean tree: commit or stash them, then run "
                        "again." % (tree, dirty[:2000]))
    mine = my_branches(tree)
    if mine:
        raise PageError("branches %s exist in %s; the pages make branches of these "
                        "names.  Rename them (git -C %s branch -m NAME NAME-mine) "
                        "and run again." % (", ".join(mine), tree, tree))


def end_state(tree, number, result):
    """Every lab ends on a clean baseline; put it there for the next one."""
    if not os.path.isdir(os.path.join(tree, ".git")):
        return
    branch = git(tree, "symbolic-ref", "--short", "-q", "HEAD").stdout.strip()
    dirty = git(tree, "status", "--porcelain").stdout.strip()
    if branch != "baseline" or dirty:
        result.problems.append("lab %d: the page leaves the kernel tree on %s%s, not "
                               "on a clean baseline where the next lab starts" % (
                                   number, branch or "a detached HEAD",
                                   " with changes" if dirty else ""))
        git(tree, "am", "--abort")
        git(tree, "checkout", "--quiet", "--force", "baseline")
        git(tree, "clean", "-fdq")
    for b in my_branches(tree):
        git(tree, "branch", "-D", b)


def _run(number, page, blocks, work, base, capture, log, artifacts_too=True):
    tree = os.path.join(work, "linux")
    refuse_unless_clean(tree)
    home = make_home(base, work)
    outdir = tempfile.mkdtemp(prefix="lab%d." % number, dir=base)
    script = os.path.join(outdir, "page.sh")
    with open(script, "w", encoding="utf-8") as f:
        f.write(script_for(blocks, outdir))
    # A reader's fresh shell: none of the variables a calling make (make
    # check) or git exports, which change what make and git print.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GCOVLAB_", "GIT_", "OLDPWD", "MAKE", "MFLAGS"))}
    env.update(HOME=home, LC_ALL="C.UTF-8", SHELL="/bin/bash",
               PATH="/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
    # The work directory as the setup page has a reader set it: in
    # GCOVLAB_WORK, somewhere other than this HOME's default, so that a
    # page spelling ~/.cache/gcov-kernel-labs fails here.
    if os.path.realpath(work) == os.path.realpath(
            os.path.join(home, ".cache", "gcov-kernel-labs")):
        raise PageError("the work directory %s is the fresh HOME's default; the "
                        "runner needs one elsewhere" % work)
    env["GCOVLAB_WORK"] = work
    # what changes no page's output: the tarball to use, and how many
    # builds to keep (make check keeps 24, so that the bisect test's and
    # the lab tests' states outlive a page's moves; without it a page
    # pruned them to the default 8; only 'vm/gcovlab status', which no
    # page runs, prints the number)
    for var in ("GCOVLAB_TARBALL", "GCOVLAB_KEEP_BUILDS"):
        if os.environ.get(var):
            env[var] = os.environ[var]
    result = Result(number)
    limit = sum(b.timeout for b in blocks if not b.skip) + 60
    print("pagerun: lab %d: %d blocks from %s, HOME=%s" % (
        number, len(blocks), os.path.relpath(page, REPO), home), file=log, flush=True)
    start = time.monotonic()
    try:
        subprocess.run(["bash", "--noprofile", "--norc", script], cwd=REPO, env=env,
                       stdout=log, stderr=log, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        result.problems.append("lab %d: the page did not finish in %d s" % (number, limit))
    result.seconds = time.monotonic() - start
    examine(blocks, outdir, home, work, result, capture)
    end_state(tree, number, result)
    # what the whole page makes (a report the site shows), not a part of it
    if capture and artifacts_too and not result.problems and number in artifacts.MAKERS:
        try:
            made = artifacts.MAKERS[number](home, lambda t: normalise(t, home, work))
            print("pagerun: lab %d: made %s" % (number, made), file=log, flush=True)
        except (OSError, RuntimeError) as e:
            result.problems.append("lab %d: %s" % (number, e))
    return result


def examine(blocks, outdir, home, work, result, capture):
    for b, block in enumerate(blocks):
        if block.skip:
            continue
        text = []
        for c, cmd in enumerate(block.commands):
            base = os.path.join(outdir, "%03d.%02d" % (b, c))
            try:
                with open(base + ".rc", encoding="utf-8") as f:
                    rc = int(f.read())
                with open(base + ".out", encoding="utf-8", errors="replace") as f:
                    out = f.read()
            except (OSError, ValueError):
                result.problems.append("%s: `%s` did not run (an earlier command "
                                       "ended the shell?)" % (block.where(), cmd))
                return
            want = block.exit if c == len(block.commands) - 1 else 0
            if want is not None and rc != want:
                result.problems.append(
                    "%s: `%s` exited %d, the page expects %d; its last lines:\n%s" % (
                        block.where(), cmd, rc, want,
                        "\n".join("    " + s for s in out.rstrip().split("\n")[-15:])))
            text.append(normalise(out, home, work))
        output = "".join(text)
        result.outputs[b] = output
        check_inline(block, output, result)
        if block.capture:
            check_capture(block, output, result, capture)
        elif block.cited:
            result.problems.append("%s: the prose cites %s, but the block shows no "
                                   "output" % (block.where(), block.cited[0][1]))


def check_inline(block, output, result):
    got = "\n".join(mask(output))
    for line in block.inline:
        if "\n".join(mask(line)) not in got:
            result.problems.append("%s: the block shows the line %r, not in what "
                                   "`%s` printed" % (block.where(), line, block.commands[-1]))


def check_capture(block, output, result, capture):
    rel = os.path.relpath(block.capture, REPO)
    if capture:
        os.makedirs(os.path.dirname(block.capture), exist_ok=True)
        with open(block.capture, "w", encoding="utf-8") as f:
            f.write(output)
        committed = output
    else:
        try:
            with open(block.capture, encoding="utf-8") as f:
                committed = f.read()
        except OSError:
            result.problems.append("%s: the page includes %s, which does not exist; "
                                   "run tools/pagerun.py --capture %d" % (
                                       block.where(), rel, result.number))
            return
        old, new = mask(committed), mask(output)
        if block.digits:
            old = [re.sub(r"\d+", "<n>", s) for s in old]
            new = [re.sub(r"\d+", "<n>", s) for s in new]
        if block.unordered:
            old, new = sorted(old), sorted(new)
        if old != new and not block.race:
            diff = difflib.unified_diff(old, new, lineterm="", n=2,
                                        fromfile=rel + " (committed)",
                                        tofile="printed now")
            result.problems.append("%s: the capture has drifted from what `%s` prints "
                                   "now (times, timestamps and stamps masked); run "
                                   "tools/pagerun.py --capture %d and review:\n%s" % (
                                       block.where(), block.commands[-1], result.number,
                                       "\n".join(list(diff)[:40])))
    shown = shown_lines(committed, block.options)
    if shown is None:
        result.problems.append("%s: the :start-*/:end-* text of the include of %s "
                               "is not in it" % (block.where(), rel))
        return
    for line, text in block.cited:
        if not any(text in s for s in shown):
            result.problems.append("%s:%d: the page says to look for ``%s``, but the "
                                   "output shown above it (%s%s) has no such text" % (
                                       os.path.relpath(block.page, REPO), line, text, rel,
                                       ", " + ", ".join(":%s: %s" % kv for kv in
                                                        block.options.items()
                                                        if kv[0] != "language")
                                       if len(block.options) > 1 else ""))


def record_time(number, seconds, kind):
    try:
        with open(TIMES, encoding="utf-8") as f:
            times = json.load(f)
    except (OSError, ValueError):
        times = {}
    entry = times.setdefault(str(number), {})
    entry[kind] = round(seconds)
    entry[kind + "_date"] = datetime.date.today().isoformat()
    with open(TIMES, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(times.items(), key=lambda kv: int(kv[0]))), f, indent=1)
        f.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labs", nargs="*", type=int, metavar="N")
    ap.add_argument("--all", action="store_true",
                    help="every lab of labs/index.toml, in course order")
    ap.add_argument("--capture", action="store_true",
                    help="rewrite the captures the page includes and its time")
    ap.add_argument("--cold", action="store_true",
                    help="run from an empty work directory and record each lab's time as "
                    "its cold one (the captures are compared, not rewritten)")
    ap.add_argument("--list", action="store_true", help="print the steps only")
    ap.add_argument("--keep", metavar="DIR", help="keep the run's files in DIR")
    ap.add_argument("--blocks", type=int, metavar="K",
                    help="run only the first K console blocks (no time recorded)")
    ap.add_argument("--exercise", action="store_true",
                    help="run only the page's Start and reset and its Exercise section "
                    "(no time recorded): with --capture, after a change to a TODO's text")
    args = ap.parse_args(argv)
    if args.all:
        args.labs = sorted(labs())
    if not args.labs:
        ap.error("name a lab (N) or --all")
    if args.cold and args.capture:
        ap.error("--cold records times only: the captures are taken warm (--capture)")
    if args.cold:
        work = os.environ.get("GCOVLAB_WORK")
        if work and os.path.exists(work) and os.listdir(work):
            ap.error("--cold: GCOVLAB_WORK=%s is not empty; name an empty directory, or "
                     "leave GCOVLAB_WORK unset for a new one under /tmp" % work)
        if not work:
            os.environ["GCOVLAB_WORK"] = tempfile.mkdtemp(prefix="gcovlab-cold.")
        print("pagerun: cold run: work directory %s (delete it afterwards)" %
              os.environ["GCOVLAB_WORK"], file=sys.stderr)
    failed = 0
    for number in args.labs:
        try:
            if args.list:
                for block in read_page(page_of(number)):
                    tag = " [skip: %s]" % block.skip if block.skip else ""
                    for cmd in block.commands:
                        print("lab %d %s: $ %s%s" % (number, block.where(), cmd, tag))
                continue
            result = run_lab(number, capture=args.capture, base=args.keep, first=args.blocks,
                             exercise=args.exercise)
        except PageError as e:
            print("pagerun: %s" % e, file=sys.stderr)
            return 2
        print("pagerun: lab %d: %d s, %s" % (
            number, result.seconds,
            "%d problem(s)" % len(result.problems) if result.problems else "all steps as the page says"))
        for p in result.problems:
            print("  - " + p)
        if (args.capture or args.cold) and not result.problems and args.blocks is None \
                and not args.exercise:
            record_time(number, result.seconds, "cold" if args.cold else "warm")
        failed += bool(result.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
