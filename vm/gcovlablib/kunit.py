# SPDX-License-Identifier: GPL-2.0
"""vm/gcovlab kunit: the kernel's own KUnit suites in the guest, and the
coverage of the code they test.

The kernel of the request (mainline or the series) gets a build directory
of its own, build/<base>-kunit, made the first time from a copy of the
kernel's usual one, so that kbuild rebuilds only what the suites' options
and the covered files change.  The suites' options (from --suite names,
found in the tree, and from a --kunitconfig fragment in kunit.py's format)
are merged into its configuration: a tristate suite is a module, loaded by
the guest after boot, once the gcov counters are zeroed, so that boot does
not count (Documentation/dev-tools/gcov.rst's advice); a bool one is built
in and runs at boot.  The covered files are profiled from make's command
line, with the per-object variable of the kernel's kbuild (mainline's
GCOV_PROFILE_<obj>.o, the series' GCOV_<obj>.o).  The results are parsed
by the tree's own tools/testing/kunit/kunit.py parse, and lcov, genhtml
and gcovr report the covered files only.
"""

import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess

from . import gcovjson, guest, kbuild, report, runs
from .config import Config
from .util import EXIT_USAGE, GcovlabError, Step, probe, say, warn

# The two lines the guest writes into the kernel log around the modules'
# suites: the framing KUnit's own executor prints for built-in suites
# (its header), and an end the host cuts the log at before parsing.
START = "gcovlab: kunit: loading the modules of the suites"
END = "gcovlab: kunit: the modules of the suites are loaded"

SUITE_NAME = re.compile(r"\.name\s*=\s*\"([^\"]+)\"")
KUNITCONFIG_LINE = re.compile(r"^(CONFIG_\w+)=(y|m|n|\S.*)$")
UNSET_LINE = re.compile(r"^# (CONFIG_\w+) is not set$")


@dataclasses.dataclass
class Request(runs.Request):
    """A kunit run: runs.Request's kernel and guest fields, and the suites."""
    kunitconfig: str = None
    suites: list = dataclasses.field(default_factory=list)
    filter_glob: str = None
    cover: list = dataclasses.field(default_factory=list)


# --- which suites, as Kconfig options ----------------------------------------

def read_kunitconfig(path):
    """{CONFIG_X: value} of a kunit.py .kunitconfig (a config fragment)."""
    if not os.path.isfile(path):
        raise GcovlabError("--kunitconfig %s is not a file" % path, EXIT_USAGE)
    if os.path.isdir(path):
        path = os.path.join(path, ".kunitconfig")
    options = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            m = KUNITCONFIG_LINE.match(line) or UNSET_LINE.match(line)
            if m:
                options[m.group(1)] = m.group(2) if m.lastindex == 2 else "n"
            elif line and not line.startswith("#"):
                raise GcovlabError("%s:%d: %r is not a config line (CONFIG_NAME=y, =m or "
                                   "=VALUE, or '# CONFIG_NAME is not set')" % (path, n, line),
                                   EXIT_USAGE)
    return options


def git_grep(src, pattern, paths):
    """Files of the tree SRC (tracked or new) whose text matches PATTERN."""
    proc = probe(["git", "-C", src, "grep", "-l", "--untracked", "-E", pattern, "--"] + paths)
    return sorted(set(proc.stdout.split())) if proc.returncode == 0 else []


def kconfig_entry(src, option):
    """The lines of OPTION's Kconfig entry (without CONFIG_), or None."""
    name = option[len("CONFIG_"):]
    for rel in git_grep(src, r"^(menu)?config %s$" % name, ["*Kconfig*"]):
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for i, line in enumerate(lines):
            if re.fullmatch(r"(menu)?config %s" % name, line.strip()):
                entry = []
                for body in lines[i + 1:]:
                    if re.match(r"^(config|menuconfig|menu|endmenu|if|endif|choice|"
                                r"endchoice|source|comment)\b", body.strip()):
                        break
                    entry.append(body.strip())
                return rel, entry
    return None


def option_type(src, option):
    entry = kconfig_entry(src, option)
    if entry is None:
        return None
    for line in entry[1]:
        word = line.split()[0] if line.split() else ""
        if word in ("bool", "tristate", "def_bool", "def_tristate", "int", "hex", "string"):
            return word.replace("def_", "")
    return None


def makefile_option(src, obj):
    """The option that builds OBJ (a path like lib/cmdline_kunit.o) in its
    directory's Makefile or Kbuild: obj-$(CONFIG_X) += name.o, directly or
    through a composite object (name-y += obj.o)."""
    directory, name = os.path.split(obj)
    text = ""
    for kbuild_file in ("Kbuild", "Makefile"):
        path = os.path.join(src, directory, kbuild_file)
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read().replace("\\\n", " ")
            break
    wanted = [name]
    for _depth in range(3):
        for line in text.split("\n"):
            m = re.match(r"^\s*obj-\$\((CONFIG_\w+)\)\s*[+:]?=\s*(.*)$", line)
            if m and set(m.group(2).split()) & set(wanted):
                return m.group(1)
        # a composite object: foo-y / foo-objs / foo-$(CONFIG_X) += name.o
        parents = []
        for line in text.split("\n"):
            m = re.match(r"^\s*([\w-]+)-(?:y|objs|\$\(CONFIG_\w+\))\s*[+:]?=\s*(.*)$", line)
            if m and set(m.group(2).split()) & set(wanted):
                parents.append(m.group(1) + ".o")
        if not parents:
            break
        wanted = parents
    return None


def find_suite(src, suite):
    """(the .c file that defines the KUnit suite SUITE, the option that
    builds it)."""
    files = [rel for rel in git_grep(src, r"\.name\s*=\s*\"%s\"" % re.escape(suite), ["*.c"])
             if "kunit_suite" in read(os.path.join(src, rel))]
    if not files:
        raise GcovlabError("no KUnit suite named %r in %s: no .c file with a struct "
                           "kunit_suite has .name = \"%s\".  Suite names are the ones "
                           "kunit.py prints (\"# Subtest: NAME\")." % (suite, src, suite),
                           EXIT_USAGE)
    if len(files) > 1:
        raise GcovlabError("more than one KUnit suite is named %r: %s; name its option "
                           "in a --kunitconfig instead" % (suite, ", ".join(files)),
                           EXIT_USAGE)
    option = makefile_option(src, files[0][:-2] + ".o") or included_option(src, files[0])
    if option is None:
        raise GcovlabError("suite %r is in %s, but no obj-$(CONFIG_...) line of its "
                           "directory's Makefile builds it; name its option in a "
                           "--kunitconfig" % (suite, files[0]), EXIT_USAGE)
    return files[0], option


def included_option(src, rel):
    """The option of a suite whose file another .c file includes (the
    kernel's way for tests of static functions: #include "x_test.c" under
    #ifdef CONFIG_X or #if IS_ENABLED(CONFIG_X))."""
    name = os.path.basename(rel)
    for other in git_grep(src, r"^#\s*include\s+\"%s\"" % re.escape(name),
                          [os.path.dirname(rel) + "/*.c"]):
        guard = None
        for line in read(os.path.join(src, other)).split("\n"):
            m = re.match(r"^#\s*(?:ifdef\s+|if\s+.*\b(?:IS_ENABLED|IS_BUILTIN|defined)"
                         r"\s*\(\s*)(CONFIG_\w+)", line)
            if m:
                guard = m.group(1)
            elif re.match(r"^#\s*endif", line):
                guard = None
            elif re.match(r"^#\s*include\s+\"%s\"" % re.escape(name), line) and guard:
                return guard
    return None


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def suite_options(src, req):
    """{CONFIG_X: value} for the request: the --kunitconfig's lines, then
    each --suite's option, as a module where it is tristate."""
    options = read_kunitconfig(req.kunitconfig) if req.kunitconfig else {}
    for opt in options:
        if option_type(src, opt) is None:
            raise GcovlabError("%s names %s, which no Kconfig file of %s defines" % (
                req.kunitconfig, opt, src), EXIT_USAGE)
    for suite in req.suites:
        where, opt = find_suite(src, suite)
        kind = option_type(src, opt)
        value = "m" if kind == "tristate" else "y"
        say("suite %s: %s, built by %s (%s: %s)" % (
            suite, where, opt, kind, "a module, loaded after boot" if value == "m"
            else "built in, runs at boot"))
        options.setdefault(opt, value)
    if not options and not req.module:
        raise GcovlabError("name the suites to run: --suite NAME (repeat it), "
                           "--kunitconfig FILE, or --module DIR", EXIT_USAGE)
    return options


def unmet(src, config_text, options):
    """Why Kconfig did not take OPTIONS: one line each, with its entry's
    dependencies and what the .config has of them."""
    got = {}
    for line in config_text.split("\n"):
        if line.startswith("CONFIG_") and "=" in line:
            key, value = line.split("=", 1)
            got[key] = value
    lines = []
    for opt, value in options.items():
        if got.get(opt, "n") == value or (value == "n" and opt not in got):
            continue
        entry = kconfig_entry(src, opt)
        deps = [line[len("depends on "):] for line in (entry[1] if entry else [])
                if line.startswith("depends on ")]
        names = sorted(set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", " ".join(deps))))
        state = ", ".join("CONFIG_%s=%s" % (n, got.get("CONFIG_" + n, "n")) for n in names)
        lines.append("%s=%s (got %s)%s" % (
            opt, value, got.get(opt, "not set"),
            ": it depends on %s; in this kernel %s" % (" && ".join(deps), state)
            if deps else ""))
    return lines


# --- what to cover ----------------------------------------------------------

def cover_objects(src, paths):
    """{covered source file (relative to SRC): its object} for --cover's
    files and directories (a directory: its .c files, recursively)."""
    covered = {}
    for path in paths:
        rel = os.path.normpath(path)
        if os.path.isabs(rel):
            if not rel.startswith(src + os.sep):
                raise GcovlabError("--cover %s is not inside the kernel tree %s" % (path, src),
                                   EXIT_USAGE)
            rel = os.path.relpath(rel, src)
        full = os.path.join(src, rel)
        if rel.startswith("..") or not os.path.exists(full):
            raise GcovlabError("--cover %s: no such file or directory in the kernel tree %s "
                               "(give a path relative to the tree's top, e.g. "
                               "lib/cmdline.c)" % (path, src), EXIT_USAGE)
        if os.path.isdir(full):
            found = [os.path.relpath(os.path.join(d, n), src)
                     for d, _s, names in os.walk(full) for n in names if n.endswith(".c")]
            if not found:
                raise GcovlabError("--cover %s: the directory has no .c file" % path,
                                   EXIT_USAGE)
        elif rel.endswith(".c"):
            found = [rel]
        else:
            raise GcovlabError("--cover %s: name a .c file or a directory (coverage is "
                               "measured per object, and a header's lines count in the "
                               "objects that include it)" % path, EXIT_USAGE)
        for c in found:
            covered[c] = c[:-2] + ".o"
    return covered


def module_cover(module, paths):
    """{covered source file of the out-of-tree MODULE (relative to it): its
    object}, for --cover with --module: the module's own files."""
    covered = {}
    for path in paths:
        full = os.path.abspath(path if os.path.isabs(path) or not os.path.exists(
            os.path.join(module, path)) else os.path.join(module, path))
        rel = os.path.relpath(full, module)
        if rel.startswith("..") or not os.path.isfile(full) or not rel.endswith(".c"):
            raise GcovlabError("--cover %s: with --module, name a .c file of %s (relative "
                               "to it or to here)" % (path, module), EXIT_USAGE)
        covered[rel] = rel[:-2] + ".o"
    return covered


def profile_vars(config, objects):
    """make's command line: each covered object profiled, with the variable
    the kernel's kbuild reads for one object (mainline's
    GCOV_PROFILE_<name>.o, the series' GCOV_<name>.o).  A variable of make's
    command line reaches every directory, and objects of one name live in
    several (lib/cmdline.o, but also the decompressor's
    arch/x86/boot/compressed/cmdline.o, which must never be profiled): its
    value is y in the covered object's directory only, empty elsewhere,
    which leaves the directory's own setting in force.  (kbuild expands
    it in each directory's make, where $(obj) is that directory.)"""
    prefix = "GCOV_PROFILE_" if Config.parse(config).is_mainline else "GCOV_"
    dirs = {}
    for obj in objects:
        dirs.setdefault(os.path.basename(obj), set()).add(os.path.dirname(obj) or ".")
    return ["%s%s=$(if $(filter %s,$(obj)),y)" % (prefix, name, " ".join(sorted(d)))
            for name, d in sorted(dirs.items())]


# --- the guest ------------------------------------------------------------------

def suite_count(ko):
    """How many suites a module registers: its .kunit_test_suites section
    holds one pointer per suite."""
    proc = probe(["objdump", "-h", ko])
    for line in proc.stdout.split("\n"):
        fields = line.split()
        if len(fields) > 2 and fields[1] == ".kunit_test_suites":
            return int(fields[2], 16) // 8
    return 0


def module_suites(build_dir, src, ko):
    """The names of the suites a module's sources define (for the glob)."""
    names = []
    mod = ko[:-3] + ".mod"
    try:
        objects = read(mod).split()
    except OSError:
        return names
    for obj in objects:
        rel = os.path.relpath(os.path.join(build_dir, obj), build_dir) \
            if not os.path.isabs(obj) else os.path.relpath(obj, build_dir)
        c = os.path.join(src, rel[:-2] + ".c")
        if os.path.isfile(c):
            text = read(c)
            if "kunit_suite" in text:
                names += SUITE_NAME.findall(text)
    return names


def workload(path, modules, counted, reset):
    """The guest's script: zero the counters (if RESET), frame the
    modules' KTAP output as KUnit's executor does (its header), load each
    module (KUnit runs its suites in insmod), then end the frame."""
    lines = ["#!/bin/sh", "# made by vm/gcovlab kunit", "failed="]
    if reset:
        lines += ["# boot does not count: every counter back to zero",
                  "echo 1 > /sys/kernel/debug/gcov/reset || exit 1"]
    lines += ["echo '%s' > /dev/kmsg" % START]
    if modules:
        # (no module, no plan: "1..0" would be a run of no test)
        lines += ["echo 'KTAP version 1' > /dev/kmsg",
                  "echo '1..%d' > /dev/kmsg" % counted]
    for ko in modules:
        name = os.path.basename(ko)
        lines.append("insmod %s > /tmp/insmod.out 2>&1 || failed=\"$failed %s\"" % (name, name))
    lines += ["echo '%s' > /dev/kmsg" % END,
              "for m in $failed; do echo \"gcovlab: insmod $m failed\"; done",
              "cat /tmp/insmod.out 2>/dev/null",
              "[ -z \"$failed\" ]"]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def ktap_parts(console):
    """The console's text cut into what KUnit printed at boot (built-in
    suites) and what the modules' suites printed between the guest's two
    framing lines."""
    text = guest.read_text(console).replace("\r\n", "\n").replace("\r", "\n")
    start = text.find(START)
    if start < 0:
        return text, ""
    head = text[:text.rfind("\n", 0, start) + 1]
    body = text[text.find("\n", start) + 1:]
    end = body.find(END)
    if end >= 0:
        body = body[:body.rfind("\n", 0, end) + 1]
    return head, body


TOP_RESULT = re.compile(r"^((?:\[[^\]]*\] )?)(ok|not ok) \d+\b", re.M)


def numbered_from_one(text):
    """The modules' part with its suites' results numbered 1, 2, ...:
    KUnit numbers every suite of a boot with one counter
    (kunit_suite_counter, lib/kunit/test.c), so a module's suites go on
    after the built-in ones ('ok 2 cmdline' after gcov_gcc_12), while the
    frame around them starts a document of its own.  Test cases, indented,
    keep their numbers."""
    count = iter(range(1, 1 << 30))
    return TOP_RESULT.sub(lambda m: "%s%s %d" % (m.group(1), m.group(2), next(count)), text)


def parse(src, log, json_out):
    """The tree's own KTAP parser on LOG: what it printed, its status."""
    parser = os.path.join(src, "tools", "testing", "kunit", "kunit.py")
    if not os.path.isfile(parser):
        raise GcovlabError("%s is missing: the tree has no KUnit parser" % parser)
    proc = subprocess.run(["/usr/bin/python3", parser, "parse", "--json=%s" % json_out, log],
                          capture_output=True, text=True, check=False)
    return proc.stdout + proc.stderr, proc.returncode


def merge_json(parts, path):
    """One JSON of kunit.py's format from the parts' files (boot, modules)."""
    merged = None
    for part in parts:
        try:
            with open(part, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        if merged is None:
            merged = data
        else:
            merged.setdefault("sub_groups", []).extend(data.get("sub_groups", []))
            merged.setdefault("test_cases", []).extend(data.get("test_cases", []))
    with open(path, "w", encoding="utf-8") as f:
        json.dump(merged or {}, f, indent=1)


# --- the report -----------------------------------------------------------------

def functions(info):
    """{source file: (functions called, functions)} from FN/FNDA records."""
    result, current, seen = {}, None, {}
    with open(info, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("SF:"):
                current = line[3:]
                seen = result.setdefault(current, {})
            elif line.startswith("FNDA:") and current:
                count, name = line[5:].split(",", 1)
                seen[name] = seen.get(name, 0) + int(count)
            elif line.startswith("FN:") and current:
                seen.setdefault(line[3:].split(",", 1)[1], 0)
    return {k: (sum(1 for c in v.values() if c), len(v)) for k, v in result.items()}


def cover_report(out, build_dir, src, covered, title):
    """lcov.info, html/, coverage.xml and coverage.json of the covered files
    only, and one summary line per covered file."""
    stage = os.path.join(out, "kernel-data")
    staged, _foreign = report.stage_kernel_data(os.path.join(out, "gcda"), build_dir, stage)
    wanted = {os.path.join(src, c) for c in covered}
    mine = [g for g in staged
            if os.path.join(src, os.path.relpath(g, stage))[:-len(".gcda")] + ".c" in wanted]
    if not mine:
        raise GcovlabError("no .gcda of the covered files came back (%s): were they "
                           "built into the kernel, or into a module the guest loaded?"
                           % ", ".join(sorted(covered)))
    log = os.path.join(out, "lcov.log")
    raw = os.path.join(out, "all.info")
    info = os.path.join(out, "lcov.info")
    html = os.path.join(out, "html")
    for stale in (log, raw, info):
        if os.path.exists(stale):
            os.remove(stale)
    if os.path.isdir(html):
        shutil.rmtree(html)
    with Step("lcov, genhtml and gcovr over the %d covered object%s" % (
            len(mine), "" if len(mine) == 1 else "s")):
        said = gcovjson.capture(mine, report.test_name(title), raw, log)
        said += report.run_filtered(["lcov", "--quiet"] + report.BRANCHES +
                                    ["--extract", raw] + sorted(wanted) +
                                    ["--output-file", info], log)
        said += report.run_filtered(["genhtml", "--quiet", "--branch-coverage", "--title",
                                     title, "--output-directory", html, info], log)
        xml = os.path.join(out, "coverage.xml")
        js = os.path.join(out, "coverage.json")
        filters = []
        for path in sorted(wanted):
            filters += ["--filter", re.escape(path) + "$"]
        said += report.run_filtered(["gcovr", "--root", src, "--object-directory", stage] +
                                    filters + ["--gcov-executable", "gcov", "--cobertura", xml,
                                               "--json", js, stage],
                                    os.path.join(out, "gcovr.log"))
    os.remove(raw)
    lines = []
    funcs = functions(info)
    for path, (hit, total, taken, branches) in sorted(report.coverage(info).items()):
        called, fns = funcs.get(path, (0, 0))
        lines.append("%s: lines %d / %d (%.1f%%), branches %d / %d (%.1f%%), "
                     "functions %d / %d (%.1f%%)" % (
                         os.path.relpath(path, src), hit, total, report.percent(hit, total),
                         taken, branches, report.percent(taken, branches),
                         called, fns, report.percent(called, fns)))
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return lines, os.path.join(html, "index.html"), said


# --- the command ------------------------------------------------------------------

def kunit_config(req):
    """The kunit kernel of the request: (Config, its label)."""
    if req.variant:
        raise GcovlabError("vm/gcovlab kunit builds a kernel of its own (build/<kernel>-"
                           "kunit); --variant does not apply", EXIT_USAGE)
    config, _var, label = runs.pick_kernel(req)
    return Config(config.base, "kunit"), label


def seed(work, config):
    """The first kunit build of a kernel starts from a copy of its usual
    build: kbuild then rebuilds what the suites' options change, not the
    whole kernel."""
    out = work.build_dir(config)
    base = Config(config.base)
    origin = work.build_dir(base)
    if os.path.exists(os.path.join(out, ".config")) or not kbuild.complete_state(origin):
        return
    with kbuild.using(work, base), Step("copying build/%s to build/%s, to build on it" % (
            os.path.basename(origin), os.path.basename(out))):
        if os.path.isdir(out):
            shutil.rmtree(out)
        kbuild.run_copy(origin, out)
        repoint_tools(origin, out)


def repoint_tools(origin, out):
    """objtool's build (tools/build, not kbuild) records the absolute
    paths of its objects in its .cmd and .d files: left naming ORIGIN, the
    copy's objtool is built again, and with it, since every object depends
    on objtool, the whole kernel.  Name OUT in them instead (their times
    kept)."""
    old, new = (origin + "/").encode(), (out + "/").encode()
    for dirpath, _dirs, names in os.walk(os.path.join(out, "tools")):
        for name in names:
            if not name.endswith((".cmd", ".d")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                data = f.read()
            if old in data:
                st = os.stat(path)
                with open(path, "wb") as f:
                    f.write(data.replace(old, new))
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@dataclasses.dataclass
class Plan:
    """What a kunit request resolved to: the kernel, its tree, the suites'
    options and the covered objects ({path: object})."""
    config: Config
    label: str
    out: str
    src: str
    options: dict
    covered: dict
    module: str = None


def plan(work, req):
    """Resolve REQ (the tree made ready, its suites found, the covered
    paths checked) and write the kunit kernel's fragment and make variables."""
    module = runs.check_module(req.module) if req.module else None
    out = runs.check_out(req.out, module)
    config, label = kunit_config(req)
    runs.prepare_tree(work, req)
    src = kbuild.source_dir(work, config)
    if not config.is_mainline and not os.path.isfile(os.path.join(src, "kernel", "gcov",
                                                                  "fs.c")):
        raise GcovlabError("%s has no debugfs gcov export yet (the series adds it in Lab "
                           "7): give --lab 7 or later, --tree on such a branch, or "
                           "--mainline" % label, EXIT_USAGE)
    options = suite_options(src, req)
    if module:
        covered = module_cover(module, req.cover)
    else:
        covered = cover_objects(src, req.cover) if req.cover else {}
    runs.mark_out(out, kernel=config, title="KUnit on %s" % label)
    # one file per set of options: two kunit commands at once (two
    # terminals, the two streams of make check) each build with their own;
    # the build directory's lock then takes them one after the other
    text = "# the suites of a vm/gcovlab kunit on this kernel\n" + "".join(
        "%s=%s\n" % kv if kv[1] != "n" else "# %s is not set\n" % kv[0]
        for kv in sorted(options.items()))
    fragment = os.path.join(work.root, "kunit", "%s-%s.config" % (
        config, hashlib.sha256(text.encode()).hexdigest()[:12]))
    os.makedirs(os.path.dirname(fragment), exist_ok=True)
    if not os.path.isfile(fragment):
        with open(fragment + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(fragment + ".tmp", fragment)
    kbuild.EXTRA_FRAGMENTS[str(config)] = [fragment]
    kbuild.EXTRA_MAKE_VARS[str(config)] = [] if module else profile_vars(config,
                                                                         covered.values())
    if covered and not module:
        say("covered: %s (profiled: %s)" % (", ".join(sorted(covered)), " ".join(
            kbuild.EXTRA_MAKE_VARS[str(config)])))
    seed(work, config)
    return Plan(config, label, out, src, options, covered, module)


def cmd_kunit(work, req):
    p = plan(work, req)
    with kbuild.built(work, p.config):
        if p.module:
            return run_module(work, req, p)
        return run_built(work, req, p)


def run_module(work, req, p):
    """--module DIR: build the out-of-tree module against the kunit kernel,
    its --cover files profiled (every file when none is named), and load
    it in the guest as the suites' modules are."""
    build = os.path.join(p.out, "build")
    if p.covered:
        # the per-object variable: GCOV_PROFILE_x.o (mainline), GCOV_x.o
        kos = kbuild.build_module(work, p.config, p.module, build, None, [
            "%s_%s=y" % (p.config.profile_var, os.path.basename(o))
            for o in sorted(p.covered.values())])
    else:
        kos = kbuild.build_module(work, p.config, p.module, build, p.config.profile_var)
    return run_built(work, req, p, extra_modules=kos, module_build=build)


def run_built(work, req, p, modules=None, extra_modules=(), module_build=None):
    """Boot the built kunit kernel of plan P with the suites' modules (or
    MODULES, .ko files built elsewhere) and EXTRA_MODULES (--module's),
    parse what they printed, and report the covered files (of
    MODULE_BUILD, --module's build, when given)."""
    config, label, out, src, options, covered = (p.config, p.label, p.out, p.src, p.options,
                                                 p.covered)
    build_dir = work.build_dir(config)
    got = kbuild.read_config(build_dir)
    given = modules is not None
    modules = list(modules or [])
    order = os.path.join(build_dir, "modules.order")
    if not given and os.path.isfile(order):
        modules = [os.path.join(build_dir, line.strip()) for line in read(order).split("\n")
                   if line.strip().endswith((".ko", ".o"))]
        modules = [m[:-2] + ".ko" if m.endswith(".o") else m for m in modules]
    # built-in suites: what the request sets to y that the kernel's usual
    # configuration does not have (CONFIG_KUNIT=y of a .kunitconfig is not one)
    usual = kbuild.wanted_options(Config(config.base))
    builtin = [opt for opt in options if got.get(opt) == "y" and usual.get(opt) != "y"]
    suite_glob, _sep, test_glob = (req.filter_glob or "").partition(".")
    if suite_glob:
        chosen = [m for m in modules if any(fnmatch.fnmatchcase(s, suite_glob)
                                            for s in module_suites(build_dir, src, m))]
        if test_glob and chosen:
            warn("the test part of the glob (%s) applies to built-in suites only: this "
                 "kernel's KUnit runs every test of a module's suites" % test_glob)
        modules = chosen
    modules += list(extra_modules)
    if not modules and not builtin:
        raise GcovlabError("no suite to run: no module of the suites was built%s" % (
            " whose suites match %r" % suite_glob if suite_glob else ""))
    counted = sum(suite_count(m) for m in modules)
    script = os.path.join(out, "workload.sh")
    workload(script, modules, counted, reset=not builtin)
    if builtin:
        warn("built-in suites (%s) run at boot: the coverage includes the boot" %
             ", ".join(builtin))
    req.append = " ".join(filter(None, [req.append, "kunit.filter_glob=%s" % req.filter_glob
                                        if req.filter_glob else ""]))
    crashed = None
    try:
        status = runs.boot_and_collect(work, req, config, out, script, modules)
    except GcovlabError as e:
        crashed = str(e)
        status = e.code
    head, body = ktap_parts(os.path.join(out, "console.log"))
    parts, printed, failed = [], [], False
    # the boot's KTAP is parsed when the request has a built-in suite: the
    # series' kernels run their own suites at every boot, which a run of
    # module suites did not ask for
    at_boot = [opt for opt in options if got.get(opt) == "y" and opt != "CONFIG_KUNIT"]
    for name, text in (("boot", head if at_boot else ""),
                       ("modules", numbered_from_one(body))):
        if "KTAP version" not in text and "TAP version" not in text:
            continue
        log = os.path.join(out, "kunit-%s.log" % name)
        with open(log, "w", encoding="utf-8") as f:
            f.write(text)
        js = os.path.join(out, "kunit-%s.json" % name)
        said, code = parse(src, log, js)
        printed.append(said)
        parts.append(js)
        failed = failed or code != 0
    merge_json(parts, os.path.join(out, "results.json"))
    for said in printed:
        print(said.rstrip("\n"), flush=True)
    if module_build and not crashed:
        title = "KUnit on %s" % label
        if not runs.make_report(out, module_build, title):
            warn("no .gcda of the module came back")
    elif covered and not crashed:
        title = "KUnit on %s" % label
        lines, index, said = cover_report(out, build_dir, src, covered, title)
        say("HTML report: %s" % index)
        say("for CI systems: %s, %s" % (os.path.join(out, "coverage.xml"),
                                        os.path.join(out, "coverage.json")))
        for line in lines:
            say("coverage, %s" % line)
        if said:
            print("\n".join(said))
    if crashed:
        raise GcovlabError("the guest did not finish the suites: %s" % crashed, status)
    if not parts:
        raise GcovlabError("no KTAP output from the suites in %s/console.log: did "
                           "the modules load (see %s/workload.log)?" % (out, out))
    if failed:
        raise GcovlabError("a KUnit test failed, or a suite did not finish (kunit.py "
                           "parse's verdict above; the log is in %s)" % out, 1)
    if status:
        raise GcovlabError("loading a suite's module failed (see %s/workload.log)" % out,
                           status)
    return 0
