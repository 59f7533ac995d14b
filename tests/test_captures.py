# SPDX-License-Identifier: GPL-2.0
"""The captured output on the lab pages is what the tooling prints now.

labs/capture.sh runs the commands of the Lab 0 page and stores their output
in docs/captures/lab0/.  This test runs it again into a temporary directory
and compares every .txt file with the committed one, after masking what
legitimately changes from one run to the next (durations, kernel
timestamps, gcov stamps, ...) and folding the extra lines of a cold run
(tree extraction, kernel build) into what a warm run prints.  The PNG
screenshot is not compared.

The re-run uses a private HOME, so it never touches a student's ~/lab0 and
two test runs never share an OUT directory.  That HOME gets a
.cache/gcov-kernel-labs symbolic link to the real work directory: the run
reads the kernel tree and uses the mainline kernel, which the test builds
first (normally it is built already, and this only checks that).  gcovlab
locks a kernel build, so another test building at the same time makes this
one wait, not fail.

Run with:  /usr/bin/python3 -m pytest tests/test_captures.py
"""

import difflib
import os
import re
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO, "labs", "capture.sh")
GCOVLAB = os.path.join(REPO, "vm", "gcovlab")
CAPTURES = os.path.join(REPO, "docs", "captures", "lab0")
PAGE = os.path.join(REPO, "docs", "labs", "lab0.rst")

# A cold cache means extracting the tree and building a kernel.
TIMEOUT = 3600

FIX = "run `make captures` and commit docs/captures"


def work_dir():
    return os.path.abspath(os.environ.get("GCOVLAB_WORK") or os.path.join(
        os.path.expanduser("~"), ".cache", "gcov-kernel-labs"))


# --- masking ---------------------------------------------------------------

# Lines only a cold run prints (tree made, worktree checked out, kernel
# configured and built) or a run that waited for another one.  Each is a
# "gcovlab: ..." line; the pattern is matched against what follows.
COLD_ONLY = [
    r"removing .*, left by an interrupted run",
    r"extracting .*",
    r"committing the pristine tree to git .*",
    r"making the baseline .*",
    r"checking out the pristine tree for mainline builds .*",
    r"configuring \S+ kernel: .*",
    r"building the \S+ kernel in .*",
    r" +\.\.\. .*files compiled so far",
    r"waiting for another gcovlab command .*",
]
COLD_ONLY_RE = re.compile(r"^gcovlab: (?:%s)$" % "|".join(COLD_ONLY))

# (pattern, replacement), applied in order to every line.
MASKS = [
    # a cold run's last words, in a warm run's words
    (re.compile(r"^(gcovlab: kernel tree ready: Linux \S+ at \S+), branch \S+$"),
     r"\1 (nothing to do)"),
    (re.compile(r"^gcovlab: built the (\S+) kernel in .*\): (\S+)$"),
     r"gcovlab: \1 kernel is up to date (\2)"),
    # durations
    (re.compile(r"\bin (?:\d+ min \d+ s|\d+(?:\.\d+)? s)\b"), "in <time>"),
    (re.compile(r"\b\d+ files compiled\b"), "<n> files compiled"),
    # kernel printk timestamps
    (re.compile(r"^\[ *\d+\.\d+\]"), "[<timestamp>]"),
    # gcov-dump: the stamp changes with every compile; GCC hashes the
    # source path (under HOME, which differs here) into lineno_checksum
    # and into the ident of static functions
    (re.compile(r"(\bstamp )\d+"), r"\1<stamp>"),
    # od of the .gcda header: magic, version, stamp, checksum
    (re.compile(r"^(0000000 [0-9a-f]{8} [0-9a-f]{8}) [0-9a-f]{8}\b"), r"\1 <stamp>"),
    (re.compile(r"\bident=\d+"), "ident=<ident>"),
    (re.compile(r"\blineno_checksum=0x[0-9a-f]+"), "lineno_checksum=<checksum>"),
    # git decorations name whatever branch the tree is on, and any branch
    # of the student's that points there; the tags are what the page uses
    (re.compile(r"^((?:commit )?[0-9a-f]{7,40}) \(([^)]*)\)"), None),
]


def _tags_only(match):
    tags = [d for d in match.group(2).split(", ") if d.startswith("tag: ")]
    return match.group(1) + (" (%s)" % ", ".join(tags) if tags else "")


def mask(text):
    out = []
    for line in text.split("\n"):
        if COLD_ONLY_RE.match(line):
            continue
        if re.match(r"^gcovlab: .*: done in ", line) and COLD_ONLY_RE.match(
                re.sub(r": done in .*$", " ...", line)):
            continue
        for pattern, repl in MASKS:
            line = pattern.sub(repl if repl is not None else _tags_only, line)
        out.append(line)
    return "\n".join(out)


# --- the re-run ------------------------------------------------------------

@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """Run labs/capture.sh into a temporary directory; return its path."""
    work = work_dir()
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, GCOVLAB_WORK=work)
    # The tree and the mainline kernel, made or checked in the real
    # environment, so that nothing in the work directory ever records the
    # temporary HOME below.
    prep = subprocess.run([GCOVLAB, "build", "--mainline"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)
    if prep.returncode != 0:
        pytest.fail("vm/gcovlab build --mainline failed before the capture "
                    "run:\n" + (prep.stdout + prep.stderr)[-4000:], pytrace=False)

    home = tmp_path_factory.mktemp("home")
    os.makedirs(os.path.join(home, ".cache"))
    os.symlink(work, os.path.join(home, ".cache", "gcov-kernel-labs"))
    dest = str(tmp_path_factory.mktemp("captures"))
    env = dict(os.environ, HOME=str(home))
    env.pop("GCOVLAB_WORK", None)
    proc = subprocess.run([SCRIPT, dest], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)
    if proc.returncode != 0:
        pytest.fail("labs/capture.sh failed (exit %d):\n%s" % (
            proc.returncode, (proc.stdout + proc.stderr)[-6000:]), pytrace=False)
    return dest


def txt_files(directory):
    return sorted(n for n in os.listdir(directory) if n.endswith(".txt"))


def test_same_set_of_captures(fresh):
    """capture.sh writes exactly the .txt files that are committed."""
    committed, now = set(txt_files(CAPTURES)), set(txt_files(fresh))
    if committed != now:
        pytest.fail("the set of captures changed: new %s, gone %s; %s" % (
            sorted(now - committed) or "none", sorted(committed - now) or "none",
            FIX), pytrace=False)


def test_screenshot_made(fresh):
    """The report screenshot is a PNG (its pixels are not compared)."""
    with open(os.path.join(fresh, "report.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_captures_match(fresh):
    """Each committed capture equals what the tooling prints now, masked."""
    problems = []
    for name in txt_files(CAPTURES):
        path = os.path.join(fresh, name)
        if not os.path.exists(path):
            continue  # reported by test_same_set_of_captures
        with open(os.path.join(CAPTURES, name), encoding="utf-8") as f:
            old = mask(f.read())
        with open(path, encoding="utf-8") as f:
            new = mask(f.read())
        if old != new:
            diff = difflib.unified_diff(
                old.split("\n"), new.split("\n"), lineterm="",
                fromfile="docs/captures/lab0/" + name + " (committed)",
                tofile=name + " (printed now)")
            problems.append("\n".join(diff))
    if problems:
        pytest.fail("%d capture(s) drifted from what the tooling prints now "
                    "(after masking times, timestamps and stamps); %s:\n\n%s"
                    % (len(problems), FIX, "\n\n".join(problems)), pytrace=False)


# --- the page and the script agree (no kernel needed) ----------------------

def script_steps():
    """(name, command) of every step in labs/capture.sh."""
    with open(SCRIPT, encoding="utf-8") as f:
        return re.findall(r"^step (\S+) '([^']*)'", f.read(), re.M)


def page_text():
    with open(PAGE, encoding="utf-8") as f:
        # a command the page wraps with "\" at the end of a line is one line
        return re.sub(r"\s*\\\n\s*", " ", f.read())


def test_page_shows_the_commands_that_were_captured():
    """Every command capture.sh runs is on the Lab 0 page as typed, and
    followed by its capture."""
    steps = script_steps()
    assert len(steps) >= 10, "labs/capture.sh: steps not found"
    text = page_text()
    missing = [cmd for _name, cmd in steps if "$ " + cmd not in text]
    assert not missing, ("docs/labs/lab0.rst does not show these commands as "
                         "labs/capture.sh runs them:\n  " + "\n  ".join(missing))
    for name, cmd in steps:
        after = text[text.index("$ " + cmd):]
        include = re.search(r"\.\. literalinclude:: \.\./captures/lab0/(\S+)\.txt", after)
        assert include and include.group(1) == name, (
            "docs/labs/lab0.rst: the first capture after '$ %s' should be "
            "%s.txt" % (cmd, name))


def test_page_includes_only_existing_captures():
    with open(PAGE, encoding="utf-8") as f:
        names = re.findall(r"\.\./captures/lab0/(\S+)", f.read())
    assert names, "docs/labs/lab0.rst includes no capture"
    missing = [n for n in names if not os.path.exists(os.path.join(CAPTURES, n))]
    assert not missing, "missing in docs/captures/lab0: %s; %s" % (missing, FIX)


def test_mask_folds_a_cold_run_into_a_warm_one():
    """The masking itself: a cold run's build output compares equal to a
    warm run's."""
    cold = (
        "gcovlab: kernel tree ready: Linux 6.1.1 at ~/.cache/x/linux, branch baseline\n"
        "gcovlab: checking out the pristine tree for mainline builds at ~/m ...\n"
        "gcovlab: checking out the pristine tree for mainline builds at ~/m: done in 9.1 s\n"
        "gcovlab: configuring mainline kernel: tinyconfig + vm/kernel.config ...\n"
        "gcovlab: configuring mainline kernel: tinyconfig + vm/kernel.config: done in 4.0 s\n"
        "gcovlab: building the mainline kernel in ~/b (log: ~/b/l) ...\n"
        "gcovlab:   ... 15.0 s, 120 files compiled so far\n"
        "gcovlab: waiting for another gcovlab command that is building the mainline kernel ...\n"
        "gcovlab: built the mainline kernel in 2 min 21 s (613 files compiled): ~/b/bzImage\n"
        "[    0.837809] version magic: 0x4232322a\n"
        "gcovdemo.gcda:stamp 985699233\n"
        "0000000 67636461 4232322a 3acaf717 00000000\n")
    warm = (
        "gcovlab: kernel tree ready: Linux 6.1.1 at ~/.cache/x/linux (nothing to do)\n"
        "gcovlab: mainline kernel is up to date (~/b/bzImage)\n"
        "[    1.000001] version magic: 0x4232322a\n"
        "gcovdemo.gcda:stamp 1\n"
        "0000000 67636461 4232322a 00000001 00000000\n")
    assert mask(cold) == mask(warm)
    assert mask("2dd21bc (HEAD -> lab-3, tag: gcovlab-baseline, mine) x") == \
        mask("2dd21bc (tag: gcovlab-baseline) x")
    assert mask("f213cf2 (baseline) x") == "f213cf2 x"
