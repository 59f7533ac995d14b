# SPDX-License-Identifier: GPL-2.0
"""How a host check (Labs 5, 6 and 7) compiles the student's kernel code.

Imitate only what must be imitated.  The student's files are compiled as
kbuild compiles kernel code (-nostdinc, -D__KERNEL__, kconfig.h and
compiler_types.h forced in) against the tree's own headers: list.h,
err.h, minmax.h, overflow.h, kref.h and refcount.h, errno, the GFP flags,
ARRAY_SIZE, __force and __user are the kernel's.  labs/standin/include
comes first in the include path, with the headers of what a host program
must simulate: the allocator (counted, made to fail), locks (who holds
them), atomics on the host's builtins (which AddressSanitizer sees), BUG
and WARN, printk's output, initcalls, the module loader, the VFS and
debugfs.  The tree's lib/refcount.c, kstrtox.c, ctype.c, list_sort.c and
sort.c are compiled and linked as they are; labs/standin/lib.c has the other
library functions the headers declare.  The harness and
labs/standin/standin.c are host programs; labs/standin/standin.h is what
both sides share.

The tree those headers come from is the pristine mainline worktree of the
work directory (work.mainline), not the student's: the series changes no
file read here, the mainline tree stays as it is while the student's moves
from branch to branch or is half edited, and the tests can compile a
lab's files made from patches/ alone against it.
"""

import os
import re
import subprocess

from .util import probe
from .work import REPO

STANDIN = os.path.join(REPO, "labs", "standin")
TREE_LIB = ("lib/refcount.c", "lib/kstrtox.c", "lib/ctype.c", "lib/list_sort.c", "lib/sort.c")
# The Kbuild files whose generic-y and mandatory-y headers kbuild makes
# as one-line wrappers of asm-generic/ (scripts/Makefile.asm-generic).
KBUILDS = ("include/asm-generic/Kbuild", "include/uapi/asm-generic/Kbuild",
           "arch/x86/include/asm/Kbuild", "arch/x86/include/uapi/asm/Kbuild")


def headers(work):
    """The tree whose headers the checks compile against: see above."""
    from . import tree
    tree.ensure_mainline(work)
    return work.mainline


def asm_generic(src, out):
    """Write into OUT/asm the wrappers kbuild generates for x86 (a build's
    arch/x86/include/generated/asm), which a pristine tree lacks."""
    os.makedirs(os.path.join(out, "asm"), exist_ok=True)
    for kbuild in KBUILDS:
        with open(os.path.join(src, kbuild), encoding="utf-8") as f:
            names = re.findall(r"^(?:generic|mandatory)-y\s*\+=\s*(\S+\.h)", f.read(), re.M)
        for name in names:
            if not any(os.path.exists(os.path.join(src, d, name)) for d in (
                    "arch/x86/include/asm", "arch/x86/include/uapi/asm")):
                with open(os.path.join(out, "asm", name), "w", encoding="utf-8") as f:
                    f.write("#include <asm-generic/%s>\n" % name)


def kernel_flags(src, generated):
    gcc_include = probe(["gcc", "-print-file-name=include"]).stdout.strip()
    flags = ["-std=gnu11", "-nostdinc", "-isystem", gcc_include, "-D__KERNEL__",
             "-include", os.path.join(src, "include/linux/kconfig.h"),
             "-include", os.path.join(src, "include/linux/compiler_types.h"),
             "-I", os.path.join(STANDIN, "include")]
    for d in ("arch/x86/include", None, "arch/x86/include/uapi", "include", "include/uapi"):
        flags += ["-I", generated if d is None else os.path.join(src, d)]
    # as kbuild has them: a function the stand-in lacks is named at compile
    # time, not as an undefined reference at link time
    return flags + ["-fno-strict-aliasing", "-fno-common",
                    "-Werror=implicit-function-declaration", "-Werror=implicit-int",
                    "-Werror=return-type"]


def build(src, kernel, host, out, cflags=(), host_include=(), objects=()):
    """Compile the kernel-side sources KERNEL (with the stand-in's and the
    tree's library) and the host-side HOST (with standin.c), with CFLAGS,
    and link them with OBJECTS into OUT/prog.  (None, the program), or
    (the compiler's or linker's errors, None)."""
    obj = os.path.join(out, "obj")
    asm_generic(src, os.path.join(out, "generated"))
    os.makedirs(obj, exist_ok=True)
    sources = list(kernel) + [os.path.join(STANDIN, "lib.c")] + \
        [os.path.join(src, f) for f in TREE_LIB]
    proc = probe(["gcc", "-c"] + kernel_flags(src, os.path.join(out, "generated")) +
                 list(cflags) + sources, cwd=obj, text=False)
    if proc.returncode:
        return proc.stderr.decode(errors="replace"), None
    prog = os.path.join(out, "prog")
    includes = [a for d in [STANDIN, os.path.join(STANDIN, "host")] + list(host_include)
                for a in ("-I", d)]
    objs = [os.path.join(obj, os.path.splitext(os.path.basename(s))[0] + ".o")
            for s in sources]
    proc = probe(["gcc"] + list(cflags) + includes + ["-o", prog] + list(host) +
                 [os.path.join(STANDIN, "standin.c")] + objs + list(objects),
                 cwd=out, text=False)
    if proc.returncode:
        return proc.stderr.decode(errors="replace"), None
    return None, prog


# What the compiler and the linker say of a name they do not know (in
# quotes of either kind: gcc's depend on the locale).
UNKNOWN = [p.replace("'", "['\u2018\u2019`]") for p in (
    r"implicit declaration of function '(\w+)'", r"'(\w+)' undeclared",
    r"unknown type name '(\w+)'", r"invalid use of undefined type '(struct \w+)'",
    r"has no member named '(\w+)'", r"undefined reference to '(\w+)'")]


def in_kernel(src, name):
    """Whether the kernel's headers have NAME (a word; 'struct x' as x)."""
    word = name.split()[-1]
    r = subprocess.run(["git", "-C", src, "grep", "-q", "-w", "-F", "-e", word, "--",
                        "include", "arch/x86/include"], capture_output=True)
    if r.returncode in (0, 1):
        return r.returncode == 0
    r = subprocess.run(["grep", "-r", "-q", "-w", "-F", "-e", word, "include",
                        "arch/x86/include"], cwd=src, capture_output=True)
    return r.returncode == 0


def lacking(errors, src, files):
    """[(name, where)] of the names the student's FILES ({path compiled:
    path shown}) use that the kernel has and the stand-in does not, and of
    the tree's headers that do not compile on the host: the stand-in's
    fault, not the student's."""
    found = []
    for line in errors.splitlines():
        where = next((shown for path, shown in files.items() if path in line), None)
        m = re.search(r"^(\S+?):(\d+):", line)
        if where and m:
            where = "%s:%s" % (where, m.group(2))
        for pattern in UNKNOWN:
            n = re.search(pattern, line)
            if n and where and in_kernel(src, n.group(1)):
                found.append((n.group(1), where))
        if " error: " in line and m and (m.group(1).startswith(src + os.sep) or
                                          m.group(1).startswith(STANDIN + os.sep)):
            header = os.path.relpath(m.group(1), src if m.group(1).startswith(src)
                                     else os.path.join(STANDIN, "include"))
            found.append(("<%s>" % header.split("include/", 1)[-1], "a header"))
    seen, out = set(), []
    for name, where in found:
        if name not in seen:
            seen.add(name)
            out.append((name, where))
    return out
