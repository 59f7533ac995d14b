#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Decode the gcov_info of an object file that GCC 12 compiled with
-fprofile-arcs, and optionally show where each record of a .gcda file made
from it comes from.

    gcov_info_dump.py OBJ.o [--gcda FILE.gcda]

OBJ.o must be a relocatable x86_64 ELF object (a .o, not a linked program
or module): its pointers are still relocations, which name what they point
to.  The tool finds the gcov_info through the "key" field of any function
description (__gcov_.<function>), prints every field with its offset, then
every function description and where its counters live.  With --gcda it
walks the file's records alongside, checks that they belong to this object
(stamp, identifiers, counter counts) and prints, for each COUNTERS record,
the byte offset in the file and the in-memory array its values come from.

Used by docs/gcov-info-layout.rst and docs/counter-reordering.rst.  Python
standard library only; the .gcda is read by gcda_normalise.py's parser.
"""

import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcda_normalise as gcda  # noqa: E402

COUNTER_TYPES = 8                    # GCC 10 to 13
R_X86_64_64 = 1
SHT_SYMTAB, SHT_RELA, SHT_NOBITS = 2, 4, 8
STT_SECTION = 3


class Elf:
    """Sections, symbols and 64-bit absolute relocations of an ELF64
    little-endian relocatable x86_64 object."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = data = f.read()
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            sys.exit("%s: not a 64-bit little-endian ELF file" % path)
        e_type, e_machine = struct.unpack_from("<HH", data, 16)
        if e_type != 1 or e_machine != 62:
            sys.exit("%s: not a relocatable x86_64 object (type %d, machine "
                     "%d)" % (path, e_type, e_machine))
        shoff, = struct.unpack_from("<Q", data, 40)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
        self.sections = []
        for i in range(shnum):
            (name, stype, flags, addr, off, size, link, info, align,
             entsize) = struct.unpack_from("<IIQQQQIIQQ", data,
                                           shoff + i * shentsize)
            self.sections.append(dict(name=name, type=stype, offset=off,
                                      size=size, link=link, info=info))
        names = self.sections[shstrndx]
        for s in self.sections:
            s["name"] = self.cstring(names["offset"] + s["name"])
        self.symbols = []
        self.relocs = {}                 # (section, offset) -> (sym, addend)
        for s in self.sections:
            if s["type"] == SHT_SYMTAB:
                strtab = self.sections[s["link"]]["offset"]
                for k in range(s["size"] // 24):
                    name, info, other, shndx, value, size = struct.unpack_from(
                        "<IBBHQQ", data, s["offset"] + 24 * k)
                    self.symbols.append(dict(
                        name=self.cstring(strtab + name), type=info & 0xF,
                        shndx=shndx, value=value, size=size))
        for s in self.sections:
            if s["type"] == SHT_RELA:
                for k in range(s["size"] // 24):
                    off, info, addend = struct.unpack_from(
                        "<QQq", data, s["offset"] + 24 * k)
                    if info & 0xFFFFFFFF == R_X86_64_64:
                        self.relocs[(s["info"], off)] = (info >> 32, addend)

    def cstring(self, pos):
        end = self.data.index(b"\0", pos)
        return self.data[pos:end].decode("utf-8", "replace")

    def read(self, sec, off, fmt):
        s = self.sections[sec]
        if s["type"] == SHT_NOBITS:
            return struct.unpack(fmt, bytes(struct.calcsize(fmt)))
        return struct.unpack_from(fmt, self.data, s["offset"] + off)

    def pointer(self, sec, off):
        """What the 8-byte pointer at (sec, off) points to: None for a null
        pointer, ("sym", name) for an undefined symbol, or (section,
        offset) inside this object."""
        rel = self.relocs.get((sec, off))
        if rel is None:
            return None if self.read(sec, off, "<Q")[0] == 0 else ("?", "?")
        sym = self.symbols[rel[0]]
        if sym["shndx"] == 0:
            return ("sym", sym["name"])
        return (sym["shndx"], sym["value"] + rel[1])

    def describe(self, target):
        if target is None:
            return "NULL"
        if target[0] == "sym":
            return target[1]
        sec, off = target
        where = "%s+0x%x" % (self.sections[sec]["name"], off)
        for sym in self.symbols:
            if sym["shndx"] == sec and sym["type"] != STT_SECTION and \
                    sym["name"] and sym["value"] == off:
                return "%s (%s)" % (sym["name"], where)
        return where


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="gcov_info_dump.py",
        description="Decode the GCC 12 gcov_info of a relocatable x86_64 "
                    "object; with --gcda, map each record of the .gcda file "
                    "to the array its values come from.")
    parser.add_argument("object", metavar="OBJ.o")
    parser.add_argument("--gcda", metavar="FILE.gcda")
    args = parser.parse_args(argv)
    elf = Elf(args.object)

    fn_syms = [s for s in elf.symbols if s["name"].startswith("__gcov_.")]
    if not fn_syms:
        sys.exit("%s: no __gcov_.* function descriptions: not compiled with "
                 "-fprofile-arcs?" % args.object)
    info = elf.pointer(fn_syms[0]["shndx"], fn_syms[0]["value"])
    isec, ioff = info

    def field(off, fmt):
        return elf.read(isec, ioff + off, fmt)[0]

    version = field(0x00, "<I")
    print("gcov_info at %s, 112 bytes" % elf.describe(info))
    print("  0x00 version      0x%08x  '%s'"
          % (version, gcda.version_string(version)))
    print("  0x08 next         %s" % elf.describe(elf.pointer(isec, ioff + 8)))
    print("  0x10 stamp        0x%08x" % field(0x10, "<I"))
    print("  0x14 checksum     0x%08x" % field(0x14, "<I"))
    name = elf.pointer(isec, ioff + 0x18)
    print("  0x18 filename     -> %s \"%s\""
          % (elf.describe(name), elf.cstring(
              elf.sections[name[0]]["offset"] + name[1])))
    active = []
    for t in range(COUNTER_TYPES):
        merge = elf.pointer(isec, ioff + 0x20 + 8 * t)
        if merge is not None:
            active.append(t)
        print("  0x%02x merge[%d]     %-22s (%s)"
              % (0x20 + 8 * t, t, elf.describe(merge) if merge is None
                 else "-> " + elf.describe(merge), gcda.COUNTER_NAMES[t]))
    n_functions = field(0x60, "<I")
    print("  0x60 n_functions  %d" % n_functions)
    fsec, foff = elf.pointer(isec, ioff + 0x68)
    print("  0x68 functions    -> %s" % elf.describe((fsec, foff)))
    print("active counter types: %s"
          % ", ".join("ctrs[%d] = type %d (%s)" % (k, t, gcda.COUNTER_NAMES[t])
                      for k, t in enumerate(active)))

    records = None
    if args.gcda:
        with open(args.gcda, "rb") as f:
            data = f.read()
        try:
            g = gcda.parse_gcda(data, args.gcda)
        except gcda.FormatError as err:
            sys.exit(str(err))
        if g.stamp != field(0x10, "<I"):
            sys.exit("%s: stamp 0x%08x is not this object's" % (args.gcda,
                                                                g.stamp))
        if len(g.functions) != n_functions:
            sys.exit("%s: %d functions, the object has %d"
                     % (args.gcda, len(g.functions), n_functions))
        records = g.functions
        print("%s: header 16 bytes (checksum 0x%08x), %s"
              % (os.path.basename(args.gcda), g.checksum,
                 "OBJECT_SUMMARY record" if g.summary else "no summary"))

    for k in range(n_functions):
        target = elf.pointer(fsec, foff + 8 * k)
        sec, off = target
        ident, lineno, cfg = elf.read(sec, off + 8, "<III")
        print()
        print("functions[%d] -> %s" % (k, elf.describe(target)))
        key = elf.pointer(sec, off)
        print("    key -> %s%s" % (elf.describe(key),
                                  ", this object's gcov_info" if key == info
                                  else ""))
        print("    ident %d, lineno_checksum 0x%08x, cfg_checksum 0x%08x"
              % (ident, lineno, cfg))
        rec = records[k] if records else None
        if rec is not None:
            if rec.ident != ident:
                sys.exit("%s: record %d has ident %d, expected %d"
                         % (args.gcda, k, rec.ident, ident))
            print("    file: FUNCTION record at byte %d" % rec.offset)
        for j, t in enumerate(active):
            num, = elf.read(sec, off + 0x18 + 16 * j, "<I")
            values = elf.pointer(sec, off + 0x20 + 16 * j)
            print("    ctrs[%d] (type %d, %s): num %d, values -> %s"
                  % (j, t, gcda.COUNTER_NAMES[t], num, elf.describe(values)))
            if rec is not None:
                ctype, vals = rec.counters[j]
                if ctype != t or len(vals) != num:
                    sys.exit("%s: record %d: %d counters of type %d, "
                             "expected %d of type %d" % (args.gcda, k,
                                                        len(vals), ctype, num, t))
                print("    file: COUNTERS %s at byte %d, %d values: %s"
                      % (gcda.COUNTER_NAMES[t], rec.counter_offsets[j], num,
                         " ".join(str(v) for v in vals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
