# SPDX-License-Identifier: GPL-2.0
"""Kernel and module builds: O= build directories, one per configuration."""

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import time

from . import tree as treemod
from . import config as config_mod
from .config import Config
from .util import (GcovlabError, Lock, Step, checkpoint, probe, run, say, seconds, spawn,
                   tail, warn)
from .work import VM, kconfig_defines

# Every kernel starts from tinyconfig plus the shared VM fragment; the
# configuration then adds only its gcov options.
CONFIGS = {
    "mainline": ["kernel.config", "mainline.config"],
    "lab": ["kernel.config", "lab.config"],
    # Variants, each with its own build directory (build/<name>): whole-kernel
    # profiling (Lab 9) and SMP (Lab 10).
    "lab-all": ["kernel.config", "lab.config", "all.config"],
    "lab-smp": ["kernel.config", "lab.config", "smp.config"],
    "mainline-all": ["kernel.config", "mainline.config", "all.config"],
    "mainline-smp": ["kernel.config", "mainline.config", "smp.config"],
    # The debug kernel (Lab 11): SMP with the kernel's own checkers.
    "lab-debug": ["kernel.config", "lab.config", "smp.config", "debug.config",
                  "lab-debug.config"],
    "mainline-debug": ["kernel.config", "mainline.config", "smp.config",
                       "debug.config"],
    # vm/gcovlab kunit: the suites' options come in a fragment of the
    # command's own (EXTRA_FRAGMENTS), the covered files' profiling on
    # make's command line (EXTRA_MAKE_VARS)
    "lab-kunit": ["kernel.config", "lab.config", "kunit.config"],
    "mainline-kunit": ["kernel.config", "mainline.config", "kunit.config"],
}
# Mainline with its own fix (patches/mainline-fix/, Lab 11): mainline's
# configuration in a build directory of its own.
CONFIGS.update({"fixed" + name[len("mainline"):]: fragments
                for name, fragments in list(CONFIGS.items()) if name.startswith("mainline")})
VARIANTS = config_mod.VARIANTS

# What one command adds to a configuration, for this process: vm/gcovlab
# kunit's suites (a fragment it writes) and covered objects (make
# variables).  Part of the configuration's hash and build state, so a
# build of other suites or other covered files is another state.
EXTRA_FRAGMENTS = {}
EXTRA_MAKE_VARS = {}


def config_name(base, variant=None):
    """'lab' or 'mainline', with a variant: 'lab-all', 'mainline-smp', ..."""
    return Config(base, variant)


def vcpus(config):
    """How many vCPUs the guest of a configuration gets."""
    return Config.parse(config).vcpus

def uses_ccache(config):
    """Whether the builds of CONFIG go through ccache: not the mainline
    kernels.  Their tree is the read-only mainline worktree, so their build
    directories never need a file compiled twice, and on a cold cache
    ccache only costs: measured on the mainline kernel (593 files, 2
    cores), 282 s without it, 338 s with an empty cache.  The lab kernels
    move between lab states and students' branches, where it pays."""
    if config is None:
        return True
    try:
        return not Config.parse(config).is_mainline
    except GcovlabError:
        return True


def make_vars(work, config=None):
    """Variables on the make command line of every kernel and module build.

    The same every time, so kbuild's rebuild decisions never change; the
    build stamp is the tarball's date, so captured output stays the same
    across machines and rebuilds.
    """
    try:
        when = time.gmtime(os.stat(work.tarball).st_mtime)
    except OSError:
        when = time.gmtime(0)
    return ["ARCH=x86_64", "CC=ccache gcc" if uses_ccache(config) else "CC=gcc",
            "KBUILD_BUILD_USER=gcovlab",
            "KBUILD_BUILD_HOST=gcovlab",
            "KBUILD_BUILD_TIMESTAMP=" + time.strftime("%a %b %d %H:%M:%S UTC %Y", when)] + \
        EXTRA_MAKE_VARS.get(str(config), [])


def make_env(work):
    env = dict(os.environ)
    env["CCACHE_DIR"] = work.ccache
    env.setdefault("CCACHE_MAXSIZE", "5G")
    # ccache in its default mode, not depend mode: see CCACHE_MODE.  (No
    # CCACHE_BASEDIR: ccache would hand gcc relative paths, and the .gcno
    # files and __FILE__ would then name ../../linux/... instead of the
    # tree.)
    env.pop("CCACHE_DEPEND", None)
    # make imports the environment: variables kbuild reads must not leak
    # in from the user's shell.
    for var in ("ARCH", "CROSS_COMPILE", "O", "M", "KBUILD_EXTMOD", "KCFLAGS",
                "KBUILD_OUTPUT", "LLVM", "CC", "CCACHE_BASEDIR"):
        env.pop(var, None)
    # Called from 'make -s demo', the outer make's flags would silence
    # kbuild and with it the progress count; gcovlab sets -j itself.
    for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
        env.pop(var, None)
    return env


# ccache's depend mode (CCACHE_DEPEND, used here until 2026-12-07) knows a
# file's inputs from the compiler's -MD list alone, which never names the
# file an assembler .incbin reads: arch/x86/boot/compressed/piggy.S
# includes the compressed kernel that way, and its text changes only with
# the kernel's size.  A relinked vmlinux of the same size (a profiled
# object compiled again: a new gcov stamp, the same bytes count) got the
# cached piggy.o of an earlier kernel, so the bzImage booted an older
# kernel than vmlinux and the .gcno files ("stamp mismatch with notes
# file" from gcov).  In its default mode ccache sees the .incbin and does
# not cache such a file, but an entry that depend mode stored is still
# found, so the cache is emptied once, and each build directory loses
# its objects made from .incbin and is built again before its next use.
CCACHE_MODE = "default mode (no depend mode): 2026-12-07"
INCBIN_OBJECTS = ("arch/x86/boot/compressed/piggy.o", "usr/initramfs_data.o",
                  "kernel/configs.o", "kernel/kheaders.o", "certs/system_certificates.o",
                  "certs/revocation_certificates.o")


def ccache_mode_ok(out):
    """Whether the build directory OUT was built since CCACHE_MODE."""
    return not os.path.isdir(out) or read_stamp(os.path.join(out, ".gcovlab-ccache")) == \
        CCACHE_MODE


def retire_depend_mode(work, out):
    """Empty the cache once, and make OUT build its .incbin objects again
    (see CCACHE_MODE).  Called with OUT's exclusive lock held."""
    mark = os.path.join(work.ccache, "gcovlab-mode")
    if read_stamp(mark) != CCACHE_MODE:
        if os.path.isdir(work.ccache) and os.listdir(work.ccache):
            say("emptying the ccache cache once (%s): entries stored in ccache's depend "
                "mode can hold the compressed kernel of an earlier build" % work.ccache)
            probe(["ccache", "-C"], env=make_env(work))
        os.makedirs(work.ccache, exist_ok=True)
        write_stamp(mark, CCACHE_MODE)
    if os.path.isdir(out):
        say("build/%s: its objects made with .incbin are built again (the bzImage "
            "among them)" % os.path.basename(out))
        for rel in INCBIN_OBJECTS:
            try:
                os.remove(os.path.join(out, rel))
            except FileNotFoundError:
                pass
        try:
            os.remove(os.path.join(out, ".gcovlab-built"))
        except FileNotFoundError:
            pass
        write_stamp(os.path.join(out, ".gcovlab-ccache"), CCACHE_MODE)


def jobs():
    return str(os.cpu_count() or 1)


def source_dir(work, config):
    return Config.parse(config).source(work)


def fragments(config):
    return [os.path.join(VM, name) for name in CONFIGS[config]] + \
        EXTRA_FRAGMENTS.get(str(config), [])


def config_lines(path):
    """The CONFIG_X=value settings of a .config or a fragment, as a dict."""
    got = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("CONFIG_") and "=" in line:
                key, value = line.split("=", 1)
                got[key] = value
    return got


def wanted_options(config):
    """CONFIG_X=value lines the fragments ask for (later fragments win)."""
    want = {}
    for frag in fragments(config):
        want.update(config_lines(frag))
    return want


def config_hash(config):
    h = hashlib.sha256(b"tinyconfig\0")
    for frag in fragments(config):
        with open(frag, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def read_stamp(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def write_stamp(path, value):
    with open(path, "w", encoding="utf-8") as f:
        f.write(value + "\n")


def undefined_options(src, options):
    """The options no Kconfig file of the tree defines (yet): in the lab
    tree, CONFIG_GCOV_PROFILE exists only from the first patch on."""
    return [opt for opt in sorted(options) if not kconfig_defines(src, opt[len("CONFIG_"):])]


def read_config(out):
    return config_lines(os.path.join(out, ".config"))


def configure(work, config, out=None):
    src = source_dir(work, config)
    out = out or work.build_dir(config)
    os.makedirs(out, exist_ok=True)
    stamp = os.path.join(out, ".gcovlab-config")
    undefined = undefined_options(src, wanted_options(config)) \
        if str(config) not in ("mainline", "fixed") else []
    # The tree's Kconfig changes between lab states: reconfigure when the
    # set of options it defines changes, or make would quietly say n.
    want_hash = config_hash(config) + " undefined=" + ",".join(undefined)
    for opt in undefined:
        say("note: this tree has no %s yet (the patch series adds it); "
            "building without it" % opt)
    if os.path.exists(os.path.join(out, ".config")) and read_stamp(stamp) == want_hash:
        # make's syncconfig drops an option the checked-out Kconfig does
        # not know; after a trip through such a state, configure again.
        got = read_config(out)
        if all(got.get(k) == v for k, v in wanted_options(config).items()
               if k not in undefined):
            return
    # The same Kconfig files and fragments make the same .config: one made
    # before for this state of the tree is taken again (make's syncconfig
    # at the build does the rest) instead of 15 s of tinyconfig, merge and
    # olddefconfig at every move between lab states.
    saved = os.path.join(out, ".gcovlab-configs", kconfig_key(src, want_hash))
    if os.path.exists(saved):
        shutil.copyfile(saved, os.path.join(out, ".config"))
        write_stamp(stamp, want_hash)
        return
    env = make_env(work)
    base = ["make", "-s", "-C", src, "O=" + out] + make_vars(work, config)
    with Step("configuring %s kernel: tinyconfig + %s" % (config, " + ".join("vm/" + c for c in CONFIGS[config]))):
        run(base + ["tinyconfig"], env=env, capture=True, what="make tinyconfig")
        run([os.path.join(src, "scripts/kconfig/merge_config.sh"), "-m", "-O", out,
             os.path.join(out, ".config")] + fragments(config),
            cwd=out, env=env, capture=True, what="merge_config.sh")
        run(base + ["olddefconfig"], env=env, capture=True, what="make olddefconfig")
    got = read_config(out)
    missing = {k: v for k, v in wanted_options(config).items()
               if got.get(k, "n") != v and k not in undefined}
    if missing:
        from . import kunit     # its Kconfig reader; kunit imports kbuild
        with open(os.path.join(out, ".config"), encoding="utf-8") as f:
            why = kunit.unmet(src, f.read(), missing)
        raise GcovlabError("the %s kernel config did not take these options (as "
                           "kunit.py would report too, a dependency is not met):\n    %s"
                           % (config, "\n    ".join(why)))
    os.makedirs(os.path.dirname(saved), exist_ok=True)
    shutil.copyfile(os.path.join(out, ".config"), saved + ".tmp")
    os.replace(saved + ".tmp", saved)
    write_stamp(stamp, want_hash)


def kconfig_key(src, want_hash):
    """A digest of what a configuration is made from: the fragments, the
    options the tree lacks, the compiler, and every Kconfig file of the
    tree as it is on disk (committed, changed or new)."""
    h = hashlib.sha256(want_hash.encode() + b"\0")
    h.update(probe(["gcc", "--version"], text=False).stdout)
    for args in (["ls-files", "-s"], ["diff", "HEAD"]):
        h.update(probe(["git", "-C", src] + args + ["--", "*Kconfig*"], text=False).stdout)
    new = probe(["git", "-C", src, "ls-files", "-z", "--others", "--exclude-standard",
                 "--", "*Kconfig*"], text=False).stdout
    for rel in sorted(new.split(b"\0")):
        if rel:
            try:
                with open(os.path.join(src, rel.decode()), "rb") as f:
                    h.update(rel + b"\0" + f.read())
            except OSError:
                pass
    return h.hexdigest()[:32]


def run_copy(src, dst):
    """A copy of the build directory SRC at DST (links kept; reflinked
    where the file system can)."""
    run(["cp", "-a", "--reflink=auto", src, dst], what="cp -a")


def bzimage(work, config):
    return os.path.join(work.build_dir(config), "arch/x86/boot/bzImage")


def state(work, config):
    return "%s config=%s make=%s" % (treemod.source_state(work, config), config_hash(config),
                                     " ".join(make_vars(work, config)))


# --- builds kept per tree state ----------------------------------------------
#
# A lab kernel's build directory holds one state of the tree at a time, and
# every move between lab states rebuilt it: kbuild recompiles what the
# checkout touched (ccache hits, mostly) and links again, about 20 s a move
# even when the state was built a minute before.  So a complete build of a
# committed state (no uncommitted change, no untracked file), as its make
# left it (kbuild.contents), is kept when the directory moves on, under
# build/.kept/<directory>/<key>, and put back by a rename when the tree
# returns to that state: build/lab stays the one
# path that objects, .gcno files and the pages name.  At most KEEP_BUILDS
# per directory, the least recently used go first (GCOVLAB_KEEP_BUILDS
# sets another number; 0 keeps none).

KEEP_BUILDS = 8
CLEAN_TREE = "+" + hashlib.sha256(b"").hexdigest()[:16]


def keep_limit():
    value = os.environ.get("GCOVLAB_KEEP_BUILDS", "")
    try:
        return max(0, int(value)) if value else KEEP_BUILDS
    except ValueError:
        raise GcovlabError("GCOVLAB_KEEP_BUILDS=%r is not a number (how many earlier "
                           "builds to keep per build directory; 0 keeps none)" % value) \
            from None


def kept_root(work, out):
    return os.path.join(work.root, "build", ".kept", os.path.basename(out))


def compiler_id():
    return probe(["gcc", "--version"]).stdout.split("\n")[0]


def kept_dir(work, out, built_state):
    """Where the build of BUILT_STATE is kept; the key names the compiler
    too, so a kept build never outlives a compiler upgrade."""
    key = hashlib.sha256(("%s\0%s\0%s" % (built_state, compiler_id(), CCACHE_MODE)).encode()
                         ).hexdigest()[:20]
    return os.path.join(kept_root(work, out), key)


def complete_state(out):
    """The state a build directory holds, if its build finished."""
    if not os.path.exists(os.path.join(out, "arch/x86/boot/bzImage")):
        return None
    return read_stamp(os.path.join(out, ".gcovlab-built"))


def build_files(out):
    """(directory, name) of every file and link below the build directory
    OUT but the tool's own at its top (.gcovlab-*); a link to a directory
    is listed, not followed."""
    for dirpath, dirnames, filenames in os.walk(out):
        if dirpath == out:
            dirnames[:] = [d for d in dirnames if not d.startswith(".gcovlab")]
            filenames = [f for f in filenames if not f.startswith(".gcovlab")]
        for name in filenames + [d for d in dirnames
                                 if os.path.islink(os.path.join(dirpath, d))]:
            yield dirpath, name


def contents(out):
    """A digest of what the build directory OUT holds: every file's path and
    size and time, every link's target.  What a build writes there is the
    build; what is done to it afterwards (make gcov_links pointing the
    .gcda links elsewhere, gcov's .gcov files, a student's own make) is
    not, and a kept build must not carry it.  Left out: the tool's own
    files at the top (.gcovlab-*), and the times of the .gcno files, which
    notes_after_sources moves."""
    entries = []
    for dirpath, name in build_files(out):
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, out)
        try:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                entries.append("%s -> %s" % (rel, os.readlink(path)))
            elif stat.S_ISREG(st.st_mode):
                when = 0 if name.endswith(".gcno") else st.st_mtime_ns
                entries.append("%s %d %d" % (rel, st.st_size, when))
        except OSError:
            entries.append("%s gone" % rel)
    h = hashlib.sha256()
    for entry in sorted(entries):
        h.update(entry.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


def mark_built(out, built_state):
    """OUT holds a complete build of BUILT_STATE: its stamp, and the digest
    of its contents that says later whether it is still as built."""
    write_stamp(os.path.join(out, ".gcovlab-contents"), contents(out))
    write_stamp(os.path.join(out, ".gcovlab-built"), built_state)


def as_built(out):
    """Whether OUT holds what its build left and nothing done since (a
    build made before this digest existed is taken as changed)."""
    recorded = read_stamp(os.path.join(out, ".gcovlab-contents"))
    return recorded is not None and recorded == contents(out)


def changed_since_built(out):
    """Whether OUT holds a complete build that was changed afterwards: make
    builds the next state over it, and what make does not rewrite (the
    links of objects it does not compile again, a .gcov file) would pass
    into that state's build."""
    return complete_state(out) is not None and not as_built(out)


def undo_changes_after_build(work, src, out, config):
    """After make, in a directory that was changed after its last build:
    remove the .gcov files and, in a tree with patch 0009's gcov_links
    target, run it with the default GCOV_DATA_DIR, so that every .gcda
    link is the one kbuild makes.  Return False when that could not be
    done (the build is then not kept: only kbuild knows the rest)."""
    for dirpath, name in build_files(out):
        if name.endswith(".gcov"):
            os.remove(os.path.join(dirpath, name))
    try:
        with open(os.path.join(src, "Makefile"), encoding="utf-8", errors="replace") as f:
            has_links = re.search(r"^gcov_links:", f.read(), re.M) is not None
    except OSError:
        has_links = False
    if not has_links:
        return True
    env = make_env(work)
    env.pop("GCOV_DATA_DIR", None)
    proc = probe(["make", "-s", "-C", src, "O=" + out] + make_vars(work, config) +
                 ["gcov_links"], env=env)
    if proc.returncode != 0:
        warn("make gcov_links in %s failed, so this build will not be kept:\n%s" % (
            out, tail(proc.stdout + proc.stderr, 10)))
        return False
    return True


def finish_build(work, src, out, config, built_state, changed):
    """Mark OUT as a complete build of BUILT_STATE; CHANGED: it was built
    over a directory changed after its last build (changed_since_built)."""
    if changed and not undo_changes_after_build(work, src, out, config):
        try:
            os.remove(os.path.join(out, ".gcovlab-contents"))
        except FileNotFoundError:
            pass
        write_stamp(os.path.join(out, ".gcovlab-built"), built_state)
        return
    mark_built(out, built_state)


def notes_after_sources(out):
    """Give the .gcno files of the objects compiled with the gcov flags the
    time now.  The build of a state that comes back (put back from
    build/.kept, or still in OUT after the tree went elsewhere and back)
    is older than the files the checkout wrote, and gcov would say
    "source file is newer than notes file" of objects that the state's key
    shows are the very sources they were compiled from.  A .gcno left from
    an earlier build with other flags (kbuild does not remove it) keeps
    its time: of that one, gcov's warning is right.  The object's saved
    command line (.<object>.o.cmd) says which is which, as patch 0009's
    gcov_links decides."""
    for dirpath, name in build_files(out):
        if not name.endswith(".gcno"):
            continue
        cmd = os.path.join(dirpath, ".%s.o.cmd" % name[:-len(".gcno")])
        try:
            with open(cmd, encoding="utf-8", errors="replace") as f:
                if "-ftest-coverage" not in f.read():
                    continue
            os.utime(os.path.join(dirpath, name))
        except OSError:
            pass


def worth_keeping(built_state):
    """A committed state: a tree with uncommitted edits is seldom built twice."""
    return bool(built_state) and CLEAN_TREE + " " in built_state


def discard(path):
    """Remove a build directory so that no part of it can pass for a
    complete build if the removal is cut short: the stamp goes first."""
    try:
        os.remove(os.path.join(path, ".gcovlab-built"))
    except FileNotFoundError:
        pass
    except NotADirectoryError:
        os.remove(path)
        return
    shutil.rmtree(path, ignore_errors=True)


def prune_kept(work, out, limit):
    """Keep the LIMIT most recently used builds of OUT's directory; copies
    an interrupted keep left (*.tmp) go too (the lock is held)."""
    root = kept_root(work, out)
    try:
        names = os.listdir(root)
    except FileNotFoundError:
        return
    for name in [n for n in names if n.endswith(".tmp")]:
        discard(os.path.join(root, name))
    names = [n for n in names if not n.endswith(".tmp")]
    names.sort(key=lambda n: os.stat(os.path.join(root, n)).st_mtime, reverse=True)
    for name in names[limit:]:
        discard(os.path.join(root, name))
    if limit == 0 and os.path.isdir(root):
        shutil.rmtree(root, ignore_errors=True)


def keep_copy(work, out, built_state):
    """Copy OUT's complete build of BUILT_STATE to its kept place.  Only a
    help: a failure (a full disk) is said and the build goes on."""
    dest = kept_dir(work, out, built_state)
    if os.path.isdir(dest):
        os.utime(dest)
        return
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    discard(dest + ".tmp")
    # cp -a: symbolic links (source) and times as they are, and faster
    # than shutil.copytree for the 5,000 files of a build
    proc = probe(["cp", "-a", out, dest + ".tmp"])
    if proc.returncode != 0:
        discard(dest + ".tmp")
        warn("could not keep the build of the state %s holds, to put it back later "
             "(%s); building on" % (out, (proc.stderr or "cp -a failed").strip()))
        return
    os.replace(dest + ".tmp", dest)
    os.utime(dest)


def restore_or_keep(work, out, want):
    """Before a build of state WANT in OUT (the configuration's lock held):
    put back a kept build of WANT and return True, or keep a copy of the
    complete build OUT holds now (it is about to change), if nothing was
    done to it since its build, and return False."""
    limit = keep_limit()
    if limit == 0:
        prune_kept(work, out, 0)        # GCOVLAB_KEEP_BUILDS=0 frees the disk
        return False
    current = complete_state(out)
    if current == want:
        return False
    # only a build as its make left it is kept: not one that was changed
    # afterwards (links made again elsewhere, files written into it)
    keep_current = worth_keeping(current) and as_built(out)
    kept = kept_dir(work, out, want)
    if complete_state(kept) == want:
        if not as_built(kept):
            discard(kept)
        else:
            if keep_current and not os.path.isdir(kept_dir(work, out, current)):
                os.replace(out, kept_dir(work, out, current))
            elif os.path.lexists(out):
                discard(out)
            os.replace(kept, out)
            os.utime(out)
            notes_after_sources(out)
            prune_kept(work, out, limit)
            return True
    if keep_current:
        keep_copy(work, out, current)
        prune_kept(work, out, limit)
    return False


def build_kernel(work, config, force=False):
    """Build (incrementally) the kernel of a configuration.  Returns the
    state the build directory now holds, or None when the tree changed
    while make ran (no stamp written)."""
    with Lock(os.path.join(work.root, "locks", config), "building the %s kernel" % config):
        return _build_kernel(work, config, force)


# A build directory is changed (made, put back, kept away) only under the
# exclusive lock locks/<config>.use, and read (a module built against it,
# its bzImage booted, its .gcno files reported) under the shared one: a
# second terminal's build waits for a boot in the first, instead of
# renaming build/lab away under it (kept builds) or rewriting its objects.

def use_lock(work, config):
    return os.path.join(work.root, "locks", "%s.use" % config)


def changing(work, config):
    """The exclusive lock that changing build/<dir> of CONFIG takes."""
    return Lock(use_lock(work, config), "using build/%s (a module build, a boot or a "
                "report against it)" % os.path.basename(work.build_dir(config)))


def using(work, config):
    """The shared lock that reading build/<dir> of CONFIG takes."""
    return Lock(use_lock(work, config), "changing build/%s" % os.path.basename(
        work.build_dir(config)), shared=True)


@contextlib.contextmanager
def built(work, config):
    """Build the kernel of CONFIG, then hold its build directory (the shared
    lock) for the block: a module build, a boot and a report read it."""
    for _attempt in range(3):
        want = build_kernel(work, config)
        with using(work, config):
            # between the build and the shared lock, another command may
            # have put another state in the directory: build again then
            if want is None or complete_state(work.build_dir(config)) == want:
                yield
                return
        say("another gcovlab command changed build/%s meanwhile: building this "
            "state again" % os.path.basename(work.build_dir(config)))
    raise GcovlabError("another gcovlab command keeps changing build/%s (three times "
                       "while this one waited): run one command at a time against "
                       "one kernel" % os.path.basename(work.build_dir(config)))


def _build_kernel(work, config, force):
    base = Config.parse(config).base
    mainline = Config.parse(config).is_mainline
    if base == "mainline":
        treemod.ensure_mainline(work)
    elif base == "fixed":
        treemod.ensure_fixed(work)
    out = work.build_dir(config)
    want = state(work, config)
    stale = uses_ccache(config) and not ccache_mode_ok(out)
    if not force and not stale and complete_state(out) == want:
        say("%s kernel is up to date (build/%s in the work directory)" % (
            config, os.path.basename(out)))
        if not mainline:
            # only the .gcno times, under the build lock that every
            # writer of the directory holds too
            notes_after_sources(out)
        return want
    with changing(work, config):
        if stale:
            retire_depend_mode(work, out)
        return _change_build(work, config, force, out, want)


def _change_build(work, config, force, out, want):
    if not Config.parse(config).is_mainline:
        if not force and restore_or_keep(work, out, want):
            say("%s kernel is up to date (build/%s: the build of this tree state "
                "kept in build/.kept, put back)" % (config, os.path.basename(out)))
            return want
    changed = changed_since_built(out)
    configure(work, config, out)
    src = source_dir(work, config)
    took, compiled = make_all(work, src, out, config, os.path.join(out, "gcovlab-build.log"))
    if uses_ccache(config):
        write_stamp(os.path.join(out, ".gcovlab-ccache"), CCACHE_MODE)
    # The state the build started from: if the tree changed while make
    # ran (an editor saved a file), the objects may be of either, and no
    # stamp is written, so the next build runs make again.
    done = state(work, config) == want
    if done:
        finish_build(work, src, out, config, want, changed)
    else:
        say("the tree changed while the %s kernel was built: the next build runs "
            "make again" % config)
    say("built the %s kernel in %s (%d files compiled): %s" % (
        config, seconds(took), compiled, os.path.join(out, "arch/x86/boot/bzImage")))
    return want if done else None


def make_all(work, src, out, label, log, keep_going=False):
    """make all of the tree SRC in OUT, its output in LOG, a progress line
    every 15 s; return (seconds, files compiled).  A failure raises the
    error with the log's first error lines (tools/bench-read.py builds its
    kernels with this too).  KEEP_GOING: make -k, to see every part that
    fails (Lab 9's check), not only the first."""
    cmd = ["make", "-C", src, "O=" + out, "-j", jobs()] + (["-k"] if keep_going else []) + \
        make_vars(work, label) + ["all"]
    # Until this make finishes, the directory is not the state its stamp
    # names: a build interrupted here (Ctrl-C, a crash) must be made again
    # next time, not taken as up to date (an interrupted make can leave
    # half-written files, such as an empty Makefile in OUT).
    try:
        os.remove(os.path.join(out, ".gcovlab-built"))
    except FileNotFoundError:
        pass
    start = time.monotonic()
    say("building the %s kernel in %s (log: %s) ..." % (label, out, log))
    with open(log, "w", encoding="utf-8") as logf:
        logf.write("$ %s\n" % " ".join(cmd))
        logf.flush()
        proc = spawn(cmd, env=make_env(work), stdout=logf, stderr=subprocess.STDOUT)
        checkpoint("make")      # make runs, the stamp is gone
        last = start
        while proc.poll() is None:
            time.sleep(0.5)
            now = time.monotonic()
            if now - last >= 15:
                last = now
                say("  ... %s, %d files compiled so far" %
                    (seconds(now - start), count_compiled(log)))
    if proc.returncode != 0:
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        # "error" as a word, not in kbuild's progress line of a file whose
        # name has it (CC tools/objtool/str_error_r.o); and the linker's
        # undefined references, which say no "error" but are the cause
        errors = [line for line in text.split("\n")
                  if (re.search(r"\berror\b", line, re.I) or "undefined reference" in line)
                  and not re.match(r"\s+[A-Z0-9_]+\s{2,}\S", line)][:20]
        raise GcovlabError("building the %s kernel failed (make exit %d).\n"
                           "First error lines:\n    %s\nEnd of the log:\n%s\n"
                           "Full log: %s" % (label, proc.returncode,
                                             "\n    ".join(errors) or "(none found)",
                                             tail(text, 25), log))
    return time.monotonic() - start, count_compiled(log)


def count_compiled(log):
    n = 0
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("  CC "):
                n += 1
    return n


# Files that a module build produces; never copied from the instructor's
# directory (a stale .o or .gcno there must not mix with ours).
BUILD_PRODUCTS = (".o", ".ko", ".mod", ".mod.c", ".cmd", ".gcno", ".gcda",
                  ".gcov", ".order", ".symvers", ".a", ".d", ".tmp", ".dwo")


def is_product(name):
    return name.endswith(BUILD_PRODUCTS) or name in ("Module.symvers", "modules.order")


def sync_sources(src, dst):
    """Mirror a module's sources into dst, touching only changed files."""
    os.makedirs(dst, exist_ok=True)
    seen = set()
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = os.path.relpath(dirpath, src)
        for name in filenames:
            if is_product(name) or name.startswith("."):
                continue
            relfile = os.path.normpath(os.path.join(rel, name))
            seen.add(relfile)
            s = os.path.join(src, relfile)
            d = os.path.join(dst, relfile)
            with open(s, "rb") as f:
                data = f.read()
            try:
                with open(d, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                os.makedirs(os.path.dirname(d), exist_ok=True)
                with open(d, "wb") as f:
                    f.write(data)
                shutil.copymode(s, d)
    # Sources deleted by the instructor go from the copy too.
    for dirpath, dirnames, filenames in os.walk(dst):
        rel = os.path.relpath(dirpath, dst)
        for name in filenames:
            relfile = os.path.normpath(os.path.join(rel, name))
            if not is_product(name) and not name.startswith(".") and relfile not in seen:
                os.remove(os.path.join(dst, relfile))


def shown(path):
    """A path as a person typed it: relative to the current directory if below it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def forget_other_kernel(kout, dst):
    """Remove a module's objects built against another kernel build than
    the one KOUT holds now (its stamp, in DST/.gcovlab-kernel): a build put
    back from build/.kept has older files than the module's objects, so
    make would not see that the kernel under them changed."""
    against = "%s %s" % (kout, read_stamp(os.path.join(kout, ".gcovlab-built")))
    mark = os.path.join(dst, ".gcovlab-kernel")
    if read_stamp(mark) == against:
        return
    for dirpath, _d, filenames in os.walk(dst):
        for name in filenames:
            if is_product(name):
                os.remove(os.path.join(dirpath, name))
    write_stamp(mark, against)


def build_module(work, config, src, dst, profile_var, extra=()):
    """Build an out-of-tree module with every object instrumented
    (PROFILE_VAR=y), or with what EXTRA's variables say (PROFILE_VAR None)."""
    sync_sources(src, dst)
    kout = work.build_dir(config)
    forget_other_kernel(kout, dst)
    # Stale data of an earlier run must not be read as this run's.
    for dirpath, _d, filenames in os.walk(dst):
        for name in filenames:
            if name.endswith((".gcda", ".gcov")):
                os.remove(os.path.join(dirpath, name))
    profile = ["%s=y" % profile_var] if profile_var else []
    cmd = ["make", "-C", kout, "M=" + dst, "-j", jobs()] + make_vars(work, config) + \
        profile + list(extra) + ["modules"]
    with Step("building the module in %s against the %s kernel (%s)" % (
            shown(src), config, " ".join(profile + [e for e in extra if "GCOV" in e]))):
        proc = run(cmd, env=make_env(work), check=False, capture=True)
        with open(os.path.join(dst, "gcovlab-module-build.log"), "w", encoding="utf-8") as f:
            f.write("$ %s\n%s" % (" ".join(cmd), proc.stdout))
        if proc.returncode != 0:
            # Name the instructor's files, not our copy of them.
            said = proc.stdout.replace(dst.rstrip("/") + "/", src.rstrip("/") + "/")
            errors = [line for line in said.split("\n")
                      if ": error:" in line or ("modpost:" in line and "undefined!" in line)]
            hint = ""
            if any("undefined!" in line for line in errors):
                hint = ("\nHint: the lab kernels are tinyconfig plus vm/kernel.config; a "
                        "symbol modpost cannot find belongs to a subsystem they leave "
                        "out.  Add its CONFIG_ option to vm/kernel.config (both "
                        "kernels share it) and run again.")
            raise GcovlabError("the module in %s did not build (make exit %d).\n"
                               "Errors:\n%s\nThe compiler's output:\n%s%s" % (
                                   src, proc.returncode, "\n".join(errors[:10]) or "(none)",
                                   tail(said, 40), hint))
    # modules.order lists what this build made; a stale .ko of an earlier
    # build in the same directory must not reach the guest.
    kos = []
    try:
        with open(os.path.join(dst, "modules.order"), encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line.endswith(".ko"):
                    kos.append(line if os.path.isabs(line) else os.path.join(dst, line))
    except OSError:
        pass
    kos = [k for k in kos if os.path.isfile(k)]
    if not kos:
        raise GcovlabError("the module build in %s made no .ko file: does its "
                           "Kbuild or Makefile set obj-m?" % src)
    return sorted(kos)
