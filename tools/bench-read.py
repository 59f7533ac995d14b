#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/bench-read.py - how fast the series' debugfs .gcda files read,
next to mainline's (make bench-read).

Two kernels are built from worktrees of their own under WORK/bench/ (the
series: baseline + patches/*.patch; mainline: the pristine commit) with
every object of kernel/, lib/ and fs/ profiled, and booted in QEMU (TCG)
with the same settings.  In the guest:

1. a large object set: all .gcda files of the kernel are read, by one
   process, in several timed passes;
2. one file: a generated module (N functions with a branch each, at three
   sizes) is loaded and its .gcda read many times per pass.

The figures are printed, nothing is asserted about speed; the script fails
only when a step breaks (build, boot, missing files), naming the cause.
The trees at WORK/linux and WORK/mainline are never checked out, edited
or built in; the bench worktrees are only registered in WORK/linux's git
(remove one with 'git -C WORK/linux worktree remove --force PATH').
"""

import argparse
import glob
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "vm"))

from gcovlablib import guest, kbuild  # noqa: E402
from gcovlablib import tree as treemod  # noqa: E402
from gcovlablib.runs import workload_output  # noqa: E402
from gcovlablib.util import (EXIT_TIMEOUT, GcovlabError, Lock, output,  # noqa: E402
                             run, seconds, tail, warn)
from gcovlablib.work import REPO, Work  # noqa: E402

# The directories whose objects are all profiled, on both sides.
PROFILED_DIRS = ("kernel", "lib", "fs")

# Objects of PROFILED_DIRS left unprofiled on both sides: "dir/obj.o" ->
# why.  (Each tree's own per-object exclusions in those Makefiles are
# found and mirrored to the other side by exclusions().)
EXCLUDE = {}

# First line of the block appended to each profiled directory's Makefile;
# a Makefile that differs from the commit by more than this block is not ours.
MARKER = "# tools/bench-read.py: profile every object of this directory"

LAB7_TIP = "gcovlab.lab-7.tip"
LAB7_KEY = "gcovlab.lab-7.key"
AM_IDENT = ["-c", "user.name=gcov-kernel-labs",
            "-c", "user.email=maintainers@gcov-kernel-labs.invalid"]
MODULE_PREFIX = "benchread"


def note(msg):
    """A progress line of this script."""
    print("bench-read: %s" % msg, flush=True)


class Side:
    """One of the two kernels: where its source, build and runs live."""

    def __init__(self, name, config, var, bench):
        self.name = name            # "series" or "mainline"
        self.config = config        # gcovlab's configuration: "lab" / "mainline"
        self.var = var              # kbuild's profiling variable
        self.src = os.path.join(bench, "src-" + name)
        self.out = os.path.join(bench, "build-" + name)
        self.mod = os.path.join(bench, "mod-" + name)
        self.runs = os.path.join(bench, "run-" + name)
        self.commit = None
        self.build_time = None      # seconds of this run's build, None if up to date
        self.last_build = None      # (seconds, files compiled) of the last build
        self.results = []           # one parsed guest result per boot


class BenchWork(Work):
    """The work directory, with build_dir() pointing at the bench builds,
    so that gcovlablib's module build runs against them."""

    def __init__(self, sides):
        super().__init__()
        self.sides = {s.config: s for s in sides}

    def build_dir(self, config):
        return self.sides[config].out


# ---------------------------------------------------------------- git

def git(path, *args, check=True):
    """Run git in `path`; return its stdout (stripped)."""
    if check:
        return output(["git", "-C", path] + list(args)).strip()
    proc = subprocess.run(["git", "-C", path] + list(args), capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def commit_exists(repo, commit):
    """Is `commit` a commit object of `repo`?"""
    return git(repo, "cat-file", "-e", commit + "^{commit}", check=False) is not None


def patch_id(text):
    """git's stable patch id of a diff (a patch file or 'git show' output)."""
    proc = subprocess.run(["git", "patch-id", "--stable"], input=text,
                          capture_output=True, text=True)
    return proc.stdout.split()[0] if proc.stdout.split() else None


def series_patches():
    """patches/*.patch of this checkout, in order."""
    patches = sorted(glob.glob(os.path.join(REPO, "patches", "*.patch")))
    if not patches:
        raise GcovlabError("no patches/*.patch in %s" % REPO)
    return patches


def lab7_tip(work, patches):
    """The commit of gcovlab's lab-7 branch, if it is baseline + exactly
    the patches of this checkout; else None (with the reason printed)."""
    tip = treemod.config_get(work.tree, LAB7_TIP)
    if not tip or not commit_exists(work.tree, tip):
        note("git config %s is not set (or names no commit): applying the "
             "series with baseline + git am of patches/ instead" % LAB7_TIP)
        return None
    with open(patches[-1], encoding="utf-8", errors="replace") as f:
        # The patch files write blank context lines without their space
        # (git am takes both); patch-id needs the space back.
        last = patch_id(re.sub(r"(?m)^$", " ", f.read()))
    if last != patch_id(git(work.tree, "show", tip)):
        note("lab-7's tip %s is not %s: using baseline + git am of patches/ instead"
             % (tip[:12], os.path.basename(patches[-1])))
        return None
    if treemod.config_get(work.tree, LAB7_KEY) != treemod.series_key(patches):
        note("patches/ changed since lab-7 (%s) was made: using baseline + git am "
             "of patches/ instead" % tip[:12])
        return None
    return tip


# ---------------------------------------------------------------- worktrees

def makefile_block(side, excluded):
    """The text appended to a profiled directory's Makefile."""
    per_object = "GCOV_%s.o" if side.var == "GCOV" else "GCOV_PROFILE_%s.o"
    lines = ["", MARKER, "%s := y" % side.var]
    for obj in sorted(excluded):
        lines.append("%s := n" % (per_object % obj))
    return "\n".join(lines) + "\n"


def head_blob(src, rel):
    """A file's text as the checked-out commit has it."""
    return output(["git", "-C", src, "show", "HEAD:" + rel])


def check_worktree(work, src):
    """Refuse a directory that is not our worktree, or one with changes
    other than the block this script appends to the Makefiles."""
    top = git(src, "rev-parse", "--show-toplevel", check=False)
    common = git(src, "rev-parse", "--path-format=absolute", "--git-common-dir", check=False)
    if top != src or common != os.path.join(work.tree, ".git"):
        raise GcovlabError(
            "%s exists but is not a worktree of %s; it was not made by this "
            "script, so it is left alone.  Move it away (or remove it) and run "
            "again." % (src, work.tree))
    # Not stripped: the first line's leading space is part of its status.
    status = output(["git", "-C", src, "-c", "core.untrackedCache=false", "status",
                     "--porcelain=v1"])
    mine = {"%s/Makefile" % d for d in PROFILED_DIRS}
    strange = []
    for line in status.split("\n"):
        if not line.strip():
            continue
        rel = line[3:]
        if line[:3] != " M " or rel not in mine or not is_our_edit(src, rel):
            strange.append(line)
    if strange:
        raise GcovlabError(
            "the bench worktree %s has changes this script did not make:\n    %s\n"
            "Nothing was changed.  If they are not needed, remove the worktree "
            "(git -C %s worktree remove --force %s) and run again; it is made "
            "afresh." % (src, "\n    ".join(strange[:20]), work.tree, src))


def is_our_edit(src, rel):
    """Does `rel` differ from HEAD only by our appended block?"""
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        text = f.read()
    base = head_blob(src, rel)
    return text.startswith(base) and text[len(base):].lstrip("\n").startswith(MARKER)


def restore_makefiles(src):
    """Take our block out again (before the worktree moves to another commit)."""
    run(["git", "-C", src, "checkout", "--quiet", "HEAD", "--"] +
        ["%s/Makefile" % d for d in PROFILED_DIRS], what="git checkout")


def add_worktree(work, src, commit):
    """A new detached worktree of the kernel repository at `commit`."""
    os.makedirs(os.path.dirname(src), exist_ok=True)
    note("making the worktree %s at %s (about 78,000 files, a minute or two) ..."
         % (src, commit[:12]))
    start = time.monotonic()
    run(["git", "-C", work.tree, "-c", "checkout.workers=0", "worktree", "add",
         "--quiet", "--detach", src, commit], what="git worktree add")
    note("worktree ready in %s" % seconds(time.monotonic() - start))


def move_worktree(src, commit):
    """Check out `commit` (detached) in our own worktree."""
    if git(src, "rev-parse", "HEAD") == commit:
        return
    note("moving %s to %s" % (src, commit[:12]))
    restore_makefiles(src)
    run(["git", "-C", src, "checkout", "--quiet", "--detach", commit], what="git checkout")


def apply_series(src, patches):
    """baseline + git am of every patch, in the bench worktree."""
    move_worktree(src, git(src, "rev-parse", "baseline"))
    note("applying %d patches with git am in %s" % (len(patches), src))
    proc = subprocess.run(["git"] + AM_IDENT + ["-C", src, "am", "--quiet"] + patches,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        subprocess.run(["git", "-C", src, "am", "--abort"], capture_output=True)
        raise GcovlabError("git am of patches/ failed in %s:\n%s\nAre the patches "
                           "of this checkout made for the baseline?" % (
                               src, tail(proc.stdout + proc.stderr, 20)))
    return git(src, "rev-parse", "HEAD")


def prepare_series(work, side, bench):
    """The series worktree at baseline + patches/ (lab-7's tip if it is that)."""
    patches = series_patches()
    key = treemod.series_key(patches)
    commit = lab7_tip(work, patches)
    state = os.path.join(bench, "series-am")
    if commit is None:
        saved = kbuild.read_stamp(state)
        if saved and saved.split()[0] == key and commit_exists(work.tree, saved.split()[1]):
            commit = saved.split()[1]
            note("reusing the earlier git am of these patches: %s" % commit[:12])
    if not os.path.exists(side.src):
        add_worktree(work, side.src, commit or git(work.tree, "rev-parse", "baseline"))
    check_worktree(work, side.src)
    if commit:
        move_worktree(side.src, commit)
    else:
        commit = apply_series(side.src, patches)
        kbuild.write_stamp(state, "%s %s" % (key, commit))
    side.commit = commit


def prepare_mainline(work, side):
    """The mainline worktree at the commit WORK/mainline has checked out."""
    if not os.path.isdir(work.mainline):
        raise GcovlabError("%s does not exist: run 'vm/gcovlab build --mainline' "
                           "once (it makes it), then run this again" % work.mainline)
    commit = git(work.mainline, "rev-parse", "HEAD")
    if not os.path.exists(side.src):
        add_worktree(work, side.src, commit)
    check_worktree(work, side.src)
    move_worktree(side.src, commit)
    side.commit = commit


def own_exclusions(side):
    """Per-object exclusions ('<var>_obj.o := n') in a tree's profiled Makefiles."""
    if side.var == "GCOV":
        pattern = re.compile(r"^\s*GCOV_(?!PROFILE_)([\w-]+)\.o\s*:=\s*n", re.M)
    else:
        pattern = re.compile(r"^\s*GCOV_PROFILE_([\w-]+)\.o\s*:=\s*n", re.M)
    found = {}
    for d in PROFILED_DIRS:
        for obj in pattern.findall(head_blob(side.src, "%s/Makefile" % d)):
            found["%s/%s.o" % (d, obj)] = "%s/Makefile of the %s tree excludes it" % (
                d, side.name)
    return found


def exclusions(sides):
    """Every object left unprofiled, on both sides alike: EXCLUDE plus each
    tree's own exclusions (mirrored to the other tree)."""
    excluded = dict(EXCLUDE)
    for side in sides:
        for obj, why in own_exclusions(side).items():
            excluded.setdefault(obj, why)
    return excluded


def write_makefiles(side, excluded):
    """Append our block to kernel/, lib/ and fs/ Makefile (if not there yet)."""
    for d in PROFILED_DIRS:
        rel = "%s/Makefile" % d
        objs = [o[len(d) + 1:-2] for o in excluded if os.path.dirname(o) == d]
        want = head_blob(side.src, rel) + makefile_block(side, objs)
        path = os.path.join(side.src, rel)
        with open(path, encoding="utf-8") as f:
            if f.read() == want:
                continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(want)


# ---------------------------------------------------------------- kernels

DIR_MARKER = ".bench-read"


def make_env(work):
    """gcovlablib's build environment, without a GCOV or GCOV_PROFILE of the shell."""
    env = kbuild.make_env(work)
    env.pop("GCOV", None)
    env.pop("GCOV_PROFILE", None)
    return env


def own_dir(path):
    """Create `path` for this script, or check that this script made it."""
    if os.path.isdir(path) and os.listdir(path) and \
            not os.path.exists(os.path.join(path, DIR_MARKER)):
        raise GcovlabError("%s exists and was not made by tools/bench-read.py; "
                           "nothing was changed.  Move it away and run again." % path)
    os.makedirs(path, exist_ok=True)
    open(os.path.join(path, DIR_MARKER), "a").close()


def configure(work, side):
    """A copy of the project's config of this kernel, then olddefconfig."""
    own_dir(side.out)
    cfg = os.path.join(side.out, ".config")
    base = ["make", "-s", "-C", side.src, "O=" + side.out] + kbuild.make_vars(work)
    if not os.path.exists(cfg):
        origin = os.path.join(work.build_dir(side.config), ".config")
        if not os.path.exists(origin):
            raise GcovlabError("%s is missing: build the project's %s kernel once "
                               "(vm/gcovlab build %s), then run this again" % (
                                   origin, side.config,
                                   "--mainline" if side.config == "mainline" else "--lab 7"))
        shutil.copy(origin, cfg)
        note("%s config: copied from %s" % (side.name, origin))
    run(base + ["olddefconfig"], env=make_env(work), capture=True, what="make olddefconfig")
    if missing_options(side):
        note("%s config lacks %s; merging vm/ fragments %s" % (
            side.name, ", ".join(missing_options(side)), " + ".join(kbuild.CONFIGS[side.config])))
        run([os.path.join(side.src, "scripts/kconfig/merge_config.sh"), "-m", "-O",
             side.out, cfg] + kbuild.fragments(side.config), cwd=side.out,
            env=make_env(work), capture=True, what="merge_config.sh")
        run(base + ["olddefconfig"], env=make_env(work), capture=True,
            what="make olddefconfig")
    if missing_options(side):
        raise GcovlabError("the %s config in %s does not take %s" % (
            side.name, side.out, ", ".join(missing_options(side))))


def missing_options(side):
    """Options of vm/'s fragments the build's .config does not have."""
    got = kbuild.read_config(side.out)
    return ["%s=%s" % (k, v) for k, v in kbuild.wanted_options(side.config).items()
            if got.get(k) != v]


def build_state(work, side):
    """A digest of everything a rebuild depends on."""
    h = hashlib.sha256()
    # The tree, not the commit: the same patches applied again (another
    # commit date) need no rebuild.
    h.update(git(side.src, "rev-parse", "HEAD^{tree}").encode())
    h.update(subprocess.run(["git", "-C", side.src, "diff", "HEAD"],
                            capture_output=True).stdout)
    with open(os.path.join(side.out, ".config"), "rb") as f:
        h.update(f.read())
    h.update(" ".join(kbuild.make_vars(work)).encode())
    return h.hexdigest()


def bzimage(side):
    return os.path.join(side.out, "arch/x86/boot/bzImage")


def build_kernel(work, side):
    """Build (incrementally) one bench kernel; remember how long it took."""
    configure(work, side)
    stamp = os.path.join(side.out, ".bench-read-built")
    state = build_state(work, side)
    took = os.path.join(side.out, ".bench-read-build-time")
    if os.path.exists(bzimage(side)) and kbuild.read_stamp(stamp) == state:
        last = (kbuild.read_stamp(took) or "").split()
        side.last_build = (float(last[0]), int(last[1])) if len(last) == 2 else None
        note("%s kernel is up to date (%s)" % (side.name, side.out))
        return
    log = os.path.join(side.out, "bench-read-build.log")
    try:
        side.last_build = kbuild.make_all(work, side.src, side.out, side.name, log)
    except GcovlabError as e:
        raise build_failure(e, log) from None
    side.build_time = side.last_build[0]
    kbuild.write_stamp(stamp, state)
    kbuild.write_stamp(took, "%.1f %d" % side.last_build)
    note("built the %s kernel in %s (%d files compiled)" % (
        side.name, seconds(side.build_time), side.last_build[1]))


def build_failure(error, log):
    """kbuild's error for a failed build, naming the objects of the
    profiled directories that failed."""
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read()
    objs = sorted(set(re.findall(r"\[[\w/.-]+:\d+: ([\w/.-]+\.o)\] Error", text)))
    mine = [o for o in objs if o.split("/")[0] in PROFILED_DIRS]
    hint = ""
    if mine:
        hint = ("\nThese objects of the profiled directories failed: %s.  If one "
                "cannot be profiled, add it to EXCLUDE in tools/bench-read.py with "
                "the reason (both kernels leave it out then) and run again." % ", ".join(mine))
    return GcovlabError("%s%s" % (error, hint))


# ---------------------------------------------------------------- the module

def module_source(name, functions):
    """C source of a module with `functions` functions, one branch each."""
    parts = ["// SPDX-License-Identifier: GPL-2.0\n"
             "/* Generated by tools/bench-read.py: %d functions, a branch in each. */\n"
             "#include <linux/init.h>\n#include <linux/module.h>\n\n"
             "static int seed = 1;\nmodule_param(seed, int, 0444);\n" % functions]
    for i in range(functions):
        parts.append("\nstatic noinline int step%d(int x)\n{\n\tif (x & %d)\n"
                     "\t\treturn x * 3 + %d;\n\treturn x / 2 - %d;\n}\n"
                     % (i, 1 << (i % 8), i, i))
    calls = "".join("\tx = step%d(x);\n" % i for i in range(functions))
    parts.append("\nstatic int __init %s_init(void)\n{\n\tint x = seed;\n\n%s"
                 "\tpr_info(\"%s: %%d\\n\", x);\n\treturn 0;\n}\n\n"
                 "static void __exit %s_exit(void)\n{\n}\n\n"
                 "module_init(%s_init);\nmodule_exit(%s_exit);\n"
                 "MODULE_LICENSE(\"GPL\");\n"
                 "MODULE_DESCRIPTION(\"bench-read: a .gcda of a chosen size\");\n"
                 % (name, calls, name, name, name, name))
    return "".join(parts)


def module_names(sizes):
    return ["%s%d" % (MODULE_PREFIX, n) for n in sizes]


def write_modules(srcdir, sizes):
    """The generated modules' sources and their Kbuild."""
    names = module_names(sizes)
    with open(os.path.join(srcdir, "Kbuild"), "w", encoding="utf-8") as f:
        f.write("obj-m += %s\n" % " ".join(n + ".o" for n in names))
    for name, n in zip(names, sizes):
        with open(os.path.join(srcdir, name + ".c"), "w", encoding="utf-8") as f:
            f.write(module_source(name, n))


def build_modules(bwork, side, srcdir):
    """Build the generated modules against the side's bench kernel."""
    own_dir(side.mod)
    return kbuild.build_module(bwork, side.config, srcdir, side.mod, side.var)


# ---------------------------------------------------------------- the guest

WORKLOAD = r"""#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/bench-read.py (generated).  Prints "BENCH ..." lines.
passes=@PASSES@
reads=@READS@
read_passes=@READ_PASSES@
modules="@MODULES@"
gcov=/sys/kernel/debug/gcov

# Keep kernel messages off the console while we measure.
dmesg -n 1

fail() { echo "BENCH error $*"; exit 1; }

[ -d "$gcov" ] || fail "no $gcov: this kernel exports no gcov data"

# The clock: busybox ts prints gettimeofday() to the microsecond
# (adjtimex would need CONFIG_POSIX_TIMERS); /proc/uptime only to 10 ms.
# A stamp is one process; its cost is measured ("overhead") and reported.
echo . > /tmp/line
if ts '%.s' < /tmp/line 2>/dev/null | grep -q '^[0-9]*\.[0-9]* \.$'; then
	clock=ts
else
	clock=uptime
fi
stamp() {
	if [ "$clock" = ts ]; then ts '%.s' < /tmp/line > "$1"; else cat /proc/uptime > "$1"; fi
}
# Nanoseconds from stamp $1 to stamp $2 (seconds.fraction, first field).
elapsed() {
	awk '
	# The fraction as 9 digits behind a 1: busybox awk would read a
	# leading 0 as octal.
	{ split($1, p, "."); s[FILENAME] = p[1]
	  ns[FILENAME] = ("1" substr(p[2] "000000000", 1, 9)) + 0 }
	END {
		a = ARGV[1]; b = ARGV[2]
		printf "%.0f\n", (s[b] - s[a]) * 1000000000 + ns[b] - ns[a]
	}' "$1" "$2"
}
# One timed pass: every file of list $2 read by one cat (xargs).
pass() {
	stamp /tmp/t0
	xargs cat < "$2" > /dev/null || fail "reading the files of $2 failed"
	stamp /tmp/t1
	echo "BENCH $1 $(elapsed /tmp/t0 /tmp/t1)"
}
repeat() {
	i=0
	while [ $i -lt "$1" ]; do
		"$2" "$3 $i" "$4"
		i=$((i + 1))
	done
}
overhead() {
	stamp /tmp/t0
	stamp /tmp/t1
	echo "BENCH $1 $(elapsed /tmp/t0 /tmp/t1)"
}

echo "BENCH clock $clock"
repeat 5 overhead overhead

# 1. Every .gcda of the kernel (regular files only: not mainline's .gcno links).
find "$gcov" -type f -name '*.gcda' > /tmp/kernel.list
files=$(wc -l < /tmp/kernel.list)
[ "$files" -gt 0 ] || fail "no .gcda file under $gcov"
bytes=$(xargs cat < /tmp/kernel.list | wc -c)
echo "BENCH files $files $bytes"
pass warmup /tmp/kernel.list
repeat "$passes" pass pass /tmp/kernel.list

# 2. One file, read $reads times per pass.
for m in $modules; do
	insmod "/work/$m.ko" || fail "insmod $m.ko failed"
done
for m in $modules; do
	f=$(find "$gcov" -type f -name "$m.gcda")
	[ -n "$f" ] || fail "no $m.gcda under $gcov after insmod $m.ko"
	size=$(wc -c < "$f")
	# The reference: the same bytes in a tmpfs file, read the same way.
	cat "$f" > "/tmp/$m.copy"
	: > /tmp/rep
	: > /tmp/crep
	j=0
	while [ $j -lt "$reads" ]; do
		echo "$f" >> /tmp/rep
		echo "/tmp/$m.copy" >> /tmp/crep
		j=$((j + 1))
	done
	echo "BENCH module $m $size"
	pass "mwarmup $m" /tmp/rep
	repeat "$read_passes" pass "mpass $m" /tmp/rep
	repeat "$read_passes" pass "cpass $m" /tmp/crep
done
echo "BENCH end"
"""


def workload_script(path, args):
    """Write the guest's workload with this run's parameters."""
    text = WORKLOAD
    for key, value in (("PASSES", args.passes), ("READS", args.reads),
                       ("READ_PASSES", args.read_passes),
                       ("MODULES", " ".join(module_names(args.functions)))):
        text = text.replace("@%s@" % key, str(value))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def boot(side, kos, args, round_no):
    """Boot the side's kernel with the workload; return the parsed result."""
    own_dir(side.runs)
    outdir = os.path.join(side.runs, "round-%d" % round_no)
    os.makedirs(outdir, exist_ok=True)
    workload = os.path.join(outdir, "workload.sh")
    workload_script(workload, args)
    initrd = os.path.join(outdir, "initramfs.cpio")
    guest.initramfs(initrd, workload, kos)
    note("booting the %s kernel (round %d of %d) under TCG; the guest then sends "
         "every .gcda to the host, which takes a while ..." % (side.name, round_no, args.rounds))
    console = os.path.join(outdir, "console.log")
    files = None
    try:
        status, files = guest.boot(bzimage(side), initrd, outdir, accel="tcg",
                                   timeout=args.timeout)
    except GcovlabError as e:
        if e.code != EXIT_TIMEOUT or "BENCH end" not in guest.read_text(console):
            raise GcovlabError("the %s kernel's boot failed: %s\nIf a profiled object "
                               "breaks the boot, exclude it: EXCLUDE in "
                               "tools/bench-read.py." % (side.name, e))
        warn("the %s guest finished the benchmark but not the .gcda transfer within "
             "--timeout %d s; using its own counts (give it more time to have them "
             "checked on the host)" % (side.name, args.timeout))
        status = 0
    result = parse_output(workload_output(console), side, console)
    if status != 0:
        raise GcovlabError("the workload failed in the %s guest (status %d): %s\n"
                           "Console log: %s" % (side.name, status,
                                                result.get("error", "no reason given"), console))
    if files is not None:
        check_transfer(side, result, files)
    return result


def parse_output(text, side, console):
    """The BENCH lines of the workload, as a dict of figures."""
    result = {"overhead": [], "passes": [], "modules": {}, "mpasses": {}, "cpasses": {}}
    for line in text.split("\n"):
        m = re.match(r"^BENCH (\w+) ?(.*)$", line.strip())
        if not m:
            continue
        key, rest = m.group(1), m.group(2).split()
        if key == "error":
            result["error"] = m.group(2)
        elif key == "clock":
            result["clock"] = rest[0]
        elif key == "overhead":
            result["overhead"].append(int(rest[-1]))
        elif key == "files":
            result["files"], result["bytes"] = int(rest[0]), int(rest[1])
        elif key == "pass":
            result["passes"].append(int(rest[-1]))
        elif key == "module":
            result["modules"][rest[0]] = int(rest[1])
        elif key in ("mpass", "cpass"):
            result[key + "es"].setdefault(rest[0], []).append(int(rest[-1]))
        elif key == "end":
            result["end"] = True
    if "end" not in result and "error" not in result:
        raise GcovlabError("the %s guest did not finish the benchmark (no 'BENCH end' "
                           "line).  Console log: %s\nIts last lines:\n%s" % (
                               side.name, console, tail(guest.read_text(console), 20)))
    return result


def kernel_files(side, files):
    """The transferred .gcda files of the kernel: {path below the build dir: size}."""
    prefix = side.out.lstrip("/") + "/"
    return {rel[len(prefix):]: len(data) for rel, data in files.items()
            if rel.startswith(prefix)}


def check_transfer(side, result, files):
    """The host's copy must agree with what the guest counted."""
    kfiles = kernel_files(side, files)
    result["objects"] = kfiles
    if len(kfiles) != result.get("files") or sum(kfiles.values()) != result.get("bytes"):
        raise GcovlabError(
            "the %s guest counted %s .gcda files (%s bytes) but sent %d (%d bytes); "
            "the transfer log is in %s" % (side.name, result.get("files"), result.get("bytes"),
                                           len(kfiles), sum(kfiles.values()), side.runs))
    for name in result["modules"]:
        if not any(rel.endswith("/%s.gcda" % name) for rel in files):
            raise GcovlabError("%s.gcda of the %s guest did not reach the host"
                               % (name, side.name))


def check_same_objects(sides):
    """Both kernels must export the same object set, or the comparison is void."""
    sets = [set(s.results[0].get("objects", {})) for s in sides]
    if not all(sets):
        return
    only = [(s.name, sorted(a - b)) for s, a, b in ((sides[0], sets[0], sets[1]),
                                                    (sides[1], sets[1], sets[0]))]
    if any(o for _n, o in only):
        raise GcovlabError("the two kernels export different object sets:\n%s\n"
                           "Exclude an object on both sides (EXCLUDE in "
                           "tools/bench-read.py)." % "\n".join(
                               "  only in %s: %s" % (n, ", ".join(o[:20])) for n, o in only if o))


# ---------------------------------------------------------------- figures

def ms(ns):
    return "%.1f" % (ns / 1e6)


def pooled(side, key):
    """All values of `key` over the side's boots."""
    return [v for r in side.results for v in r[key]]


def pooled_module(side, name, key="mpasses"):
    """All pass times of one module's file (or, key "cpasses", of its tmpfs copy)."""
    return [v for r in side.results for v in r[key].get(name, [])]


def print_set_table(sides):
    """Part 1: the kernel's whole set of .gcda files."""
    s, m = sides
    rows = [("kernel .gcda files", lambda x: str(x.results[0]["files"])),
            ("bytes read per pass", lambda x: str(x.results[0]["bytes"])),
            ("timed passes", lambda x: str(len(pooled(x, "passes")))),
            ("pass time median (ms)", lambda x: ms(statistics.median(pooled(x, "passes")))),
            ("pass time min (ms)", lambda x: ms(min(pooled(x, "passes")))),
            ("pass time max (ms)", lambda x: ms(max(pooled(x, "passes")))),
            ("clock overhead median (ms)", lambda x: ms(statistics.median(pooled(x, "overhead")))),
            ("per file, net median (us)", lambda x: "%.1f" % (net_median(x) / 1e3 /
                                                              x.results[0]["files"])),
            ("kernel build time (-j%s)" % kbuild.jobs(), build_time)]
    print("\n1. Every .gcda of the kernel (kernel/, lib/, fs/ profiled), one process per pass")
    print("   %-30s %14s %14s" % ("", s.name, m.name))
    for label, fn in rows:
        print("   %-30s %14s %14s" % (label, fn(s), fn(m)))
    raw = statistics.median(pooled(s, "passes")) / statistics.median(pooled(m, "passes"))
    net = net_median(s) / net_median(m)
    print("   ratio series/mainline of the medians: %.3f (%+.1f%%); net of the clock "
          "overhead: %.3f (%+.1f%%)" % (raw, (raw - 1) * 100, net, (net - 1) * 100))
    if abs(net - 1) <= 0.10:
        verdict = "met"
    elif net < 1:
        verdict = "the series is %.1f%% faster, so not slower by more than 10%%" % (
            (1 - net) * 100)
    else:
        verdict = "not met: the series is %.1f%% slower" % ((net - 1) * 100)
    print("   target, the series within 10%% of mainline (net medians): %s" % verdict)


def build_time(side):
    """This run's build time, or the last one's for a kernel that was up to date."""
    if side.last_build is None:
        return "up to date"
    took, files = side.last_build
    return "%s%s, %d CC" % ("" if side.build_time is not None else "earlier ",
                            seconds(took), files)


def net_median(side):
    """Median pass time minus the median clock overhead, in ns."""
    return statistics.median(pooled(side, "passes")) - statistics.median(pooled(side, "overhead"))


def per_read(side, name, reads, key="mpasses"):
    """Median ns per read of one module's file, net of the clock overhead."""
    return (statistics.median(pooled_module(side, name, key)) -
            statistics.median(pooled(side, "overhead"))) / reads


def fit(points):
    """Least-squares line t = a + b * bytes; returns a, b, worst residual (share)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    worst = max(abs(y - (a + b * x)) / y for x, y in points)
    return a, b, worst


def module_size(side, name):
    return side.results[0]["modules"][name]


def print_file_table(sides, args):
    """Part 2: one file of three sizes, many reads per pass."""
    names = module_names(args.functions)
    print("\n2. One .gcda file, %d reads per pass (one process), median of %d passes, "
          "net of the clock overhead;\n   'tmpfs copy': the same bytes in a tmpfs file, "
          "read the same way (the cost of open, read and cat alone)"
          % (args.reads, args.read_passes * args.rounds))
    for side in sides:
        print("   %-13s %6s %8s %10s %9s %12s %12s" % (
            side.name, "funcs", "bytes", "us/read", "ns/byte", "copy us/read",
            "minus copy"))
        pts, extra = [], []
        for name, n in zip(names, args.functions):
            size = module_size(side, name)
            t = per_read(side, name, args.reads)
            c = per_read(side, name, args.reads, "cpasses")
            pts.append((size, t))
            extra.append((size, t - c))
            print("   %-13s %6d %8d %10.1f %9.2f %12.1f %12.1f" % (
                name, n, size, t / 1e3, t / size, c / 1e3, (t - c) / 1e3))
        print_linearity(pts, extra)
    ratios = ", ".join("%s %.2f" % (nm, per_read(sides[0], nm, args.reads) /
                                    per_read(sides[1], nm, args.reads)) for nm in names)
    print("   time per read, series/mainline: %s" % ratios)


def print_linearity(pts, extra):
    """Per-byte ratios against the smallest file, marginal costs, a line fit."""
    b0, t0 = pts[0]
    e0 = extra[0][1]
    ratios = ", ".join("%.2fx bytes %.2f" % (b / b0, (t / b) / (t0 / b0)) for b, t in pts[1:])
    ratios_x = ", ".join("%.2f" % ((e / b) / (e0 / b0)) for b, e in extra[1:])
    marginal = ", ".join("%d->%d bytes %.1f ns/byte" % (pts[i][0], pts[i + 1][0],
                                                        (pts[i + 1][1] - pts[i][1]) /
                                                        (pts[i + 1][0] - pts[i][0]))
                         for i in range(len(pts) - 1))
    a, b, worst = fit(pts)
    print("     per-byte time relative to the smallest file: %s (minus copy: %s)"
          % (ratios, ratios_x))
    print("     marginal cost: %s" % marginal)
    print("     line fit: t = %.1f us + %.2f ns/byte * bytes, worst point %.1f%% off the line"
          % (a / 1e3, b, worst * 100))


def config_differences(sides):
    """Options set differently in the two kernels' .config files."""
    a, b = (kbuild.read_config(s.out) for s in sides)
    return ["%s=%s/%s" % (k, a.get(k, "n"), b.get(k, "n"))
            for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


CLOCKS = {"ts": "busybox ts (gettimeofday, 1 us steps)",
          "uptime": "/proc/uptime (10 ms steps: busybox ts did not work)"}


def print_report(sides, excluded, args):
    """The final table."""
    s = sides[0]
    print("\n================ bench-read: .gcda read speed, series vs mainline ================")
    clock = s.results[0].get("clock")
    print("QEMU TCG, 1 vCPU, 256 MB, same settings for both kernels; clock in the guest: %s"
          % CLOCKS.get(clock, clock))
    for side in sides:
        print("%-8s commit %s, build %s" % (side.name, side.commit[:12], side.out))
    print("config options that differ (series/mainline): %s" % (
        ", ".join(config_differences(sides)) or "none"))
    print("module: generated, built with %s against each bench kernel build" % " / ".join(
        "%s=y (%s)" % (side.var, side.name) for side in sides))
    print("excluded from profiling on both sides: %s" % (
        "; ".join("%s (%s)" % kv for kv in sorted(excluded.items())) or "none"))
    print_set_table(sides)
    print_file_table(sides, args)
    print("\nNo assertion on speed is made; figures vary with the host's load.")


def save_report(sides, args, path):
    """The figures as data, for the site's "Performance and cost" page."""
    import datetime
    import json
    sys.path.insert(0, HERE)
    from bench import machine
    names = module_names(args.functions)
    series = []
    for side in sides:
        series.append({"label": "%s: one pass over every .gcda" % side.name, "unit": "ms",
                       "values": [round(v / 1e6, 3) for v in pooled(side, "passes")]})
    for side in sides:
        series.append({"label": "%s: us per read of one file" % side.name, "unit": "us",
                       "sizes": [module_size(side, nm) for nm in names],
                       "values": [round(per_read(side, nm, args.reads) / 1e3, 2)
                                  for nm in names]})
    data = {"figure": "read", "title": ".gcda read speed in the guest, the series' debugfs "
                                       "against mainline's (kernel/, lib/, fs/ profiled)",
            "measured": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M UTC"),
            "commit": output(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).strip(),
            "command": "tools/bench-read.py " + " ".join(sys.argv[1:]),
            "runs": args.rounds, "machine": machine(),
            "files": sides[0].results[0]["files"], "bytes": sides[0].results[0]["bytes"],
            "series": series, "notes": []}
    with open(path + ".new", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".new", path)
    note("saved %s" % path)


# ---------------------------------------------------------------- main

def sizes_arg(text):
    """--functions: three (or more) increasing function counts."""
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("a comma-separated list of numbers, not %r" % text)
    if len(sizes) < 2 or sizes != sorted(set(sizes)) or sizes[0] < 1:
        raise argparse.ArgumentTypeError("at least two increasing counts above 0, like 100,200,400")
    return sizes


def positive(text):
    if not re.fullmatch(r"\d+", text) or int(text) == 0:
        raise argparse.ArgumentTypeError("a whole number above 0, not %r" % text)
    return int(text)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tools/bench-read.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: /usr/bin/python3 tools/bench-read.py --passes 9")
    p.add_argument("--passes", type=positive, default=7,
                   help="timed passes over all kernel .gcda files per boot, after "
                        "one warm-up pass (default 7)")
    p.add_argument("--reads", type=positive, default=200,
                   help="reads of the one module file per pass (default 200)")
    p.add_argument("--read-passes", type=positive, default=7,
                   help="timed passes of --reads reads per module (default 7)")
    # Not 100,200,400: at 4 KB a read's fixed cost (open, image, close)
    # outweighs the part that grows with the size several times over, and
    # the host's noise hides the slope.
    p.add_argument("--functions", type=sizes_arg, default=[400, 800, 1600],
                   help="function counts of the generated modules, .gcda files "
                        "of about 1x, 2x, 4x the bytes (default 400,800,1600)")
    p.add_argument("--rounds", type=positive, default=2,
                   help="boot each kernel this many times, alternating, and pool "
                        "the passes (default 2)")
    p.add_argument("--save", metavar="FILE",
                   help="also write the figures as JSON to FILE (docs/bench/read.json "
                        "is what the site's Performance page shows)")
    p.add_argument("--timeout", type=positive, default=1500,
                   help="seconds each guest may run, transfer included (default 1500)")
    return p.parse_args(argv)


def prepare(work, sides, bench):
    """Worktrees, Makefiles, kernels and modules of both sides."""
    prepare_series(work, sides[0], bench)
    prepare_mainline(work, sides[1])
    excluded = exclusions(sides)
    for obj, why in sorted(excluded.items()):
        note("not profiled on either side: %s (%s)" % (obj, why))
    for side in sides:
        write_makefiles(side, [o for o in excluded])
    for side in sides:
        build_kernel(work, side)
    return excluded


def main(argv=None):
    args = parse_args(argv)
    try:
        work = Work()
        if not treemod.is_ours(work.tree):
            raise GcovlabError("no kernel tree at %s: run 'vm/gcovlab tree' first" % work.tree)
        bench = os.path.join(work.root, "bench")
        sides = [Side("series", "lab", "GCOV", bench),
                 Side("mainline", "mainline", "GCOV_PROFILE", bench)]
        with Lock(os.path.join(bench, "lock"), "running tools/bench-read.py"):
            excluded = prepare(work, sides, bench)
            srcdir = tempfile.mkdtemp(prefix="bench-read-modules.")
            try:
                write_modules(srcdir, args.functions)
                bwork = BenchWork(sides)
                kos = {s.name: build_modules(bwork, s, srcdir) for s in sides}
            finally:
                shutil.rmtree(srcdir)
            for r in range(1, args.rounds + 1):
                for side in sides:
                    side.results.append(boot(side, kos[side.name], args, r))
            check_same_objects(sides)
            print_report(sides, excluded, args)
            if args.save:
                save_report(sides, args, args.save)
        return 0
    except GcovlabError as e:
        print("bench-read: error: %s" % e, file=sys.stderr, flush=True)
        return e.code
    except KeyboardInterrupt:
        print("bench-read: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
