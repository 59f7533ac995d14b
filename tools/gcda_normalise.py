#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Rewrite a .gcda file written by GCC 12's libgcov into the form the kernel
writes (docs/gcda-format.rst explains both).

    gcda_normalise.py IN.gcda OUT.gcda [--gcno X.gcno] [--mainline]

libgcov and the kernel write the same records with three differences, and
this tool removes them:

  * libgcov writes an OBJECT_SUMMARY record (tag 0xa1000000) after the
    header, the kernel none;
  * libgcov ends the file with a zero word, the kernel just stops;
  * libgcov writes a COUNTERS record whose values are all zero as its tag
    and the negative length -8*n, with no values; the kernel writes the n
    zero values.  The count n is in that negative length, so no other
    file is needed for it.

The header's checksum word is kept: libgcov and the series (since v3)
both write the object's checksum there.  Mainline 6.1 writes 0; with
--mainline the tool writes 0 too, for a byte comparison with mainline's
file.

libgcov can also write a FUNCTION record of length 0, with nothing after
it, for a function whose description it does not own (GCC's "key" field
points to another object).  Such a record says neither which function it
stands for nor how many counters it has; with --gcno the tool takes both
from the notes file of the same compilation (the function that sits at
that place in the .gcno, between the known neighbours; only arc counters,
the one type the kernel uses).  Without --gcno, such a record is an error.

--gcno also checks the .gcda against the notes file: same stamp, every
function known to the .gcno with the same checksums, and as many arc
counters as the .gcno's graph has counted arcs.

The input is checked strictly: a file that is truncated, has an unknown
record, a counter record outside a function, data after the end marker or
a version other than GCC 12's is refused with a message naming the byte
offset, and nothing is written.  (gcov itself reads a truncated file
without a word and reports the missing counts as zero.)

Exit status: 0 written, 1 input refused, 2 usage error.  Python standard
library only.
"""

import argparse
import os
import struct
import sys

GCDA_MAGIC = 0x67636461          # "gcda"
GCNO_MAGIC = 0x67636E6F          # "gcno"
TAG_FUNCTION = 0x01000000
TAG_COUNTER_BASE = 0x01A10000
TAG_OBJECT_SUMMARY = 0xA1000000
TAG_BLOCKS = 0x01410000
TAG_ARCS = 0x01430000
TAG_LINES = 0x01450000
ARC_ON_TREE = 1                  # .gcno arc flag: no counter of its own

FUNCTION_LENGTH = 12             # ident, lineno_checksum, cfg_checksum
SUMMARY_LENGTH = 8               # runs, sum_max

# GCC 12's counter types, in type order (gcov-dump uses the same names).
COUNTER_NAMES = ["arcs", "interval", "pow2", "topn", "indirect_call",
                 "average", "ior", "time_profiler"]
# Types whose in-file form is not one 64-bit word per in-memory counter.
TOPN_TYPES = (3, 4)


class FormatError(Exception):
    """The input is not a file this tool can rewrite; the message says why."""


def counter_tag(ctype):
    return TAG_COUNTER_BASE + (ctype << 17)


def counter_type(tag):
    """The counter type of a COUNTERS tag, or None for any other tag."""
    if tag < TAG_COUNTER_BASE or (tag - TAG_COUNTER_BASE) & 0x1FFFF:
        return None
    ctype = (tag - TAG_COUNTER_BASE) >> 17
    return ctype if ctype < len(COUNTER_NAMES) else None


def version_string(word):
    """GCC's version word as the four characters gcov-dump prints."""
    return "".join(chr((word >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def gcc_major(word):
    """The GCC major release a version word stands for, or None.  GCC 12
    writes "B22*": 'A' + major / 10, major % 10, the minor release, and
    '*' for a release.  A digit in front is read as a one-digit major, the
    way older releases wrote it."""
    text = version_string(word)
    if text[0].isdigit() and text[1:3].isdigit():
        return int(text[0])
    if "A" <= text[0] <= "Z" and text[1:3].isdigit():
        return (ord(text[0]) - ord("A")) * 10 + int(text[1])
    return None


class Reader:
    """Reads 32-bit words and strings from a gcov file in either byte order."""

    def __init__(self, data, name, magic, what):
        self.data = data
        self.name = name
        self.pos = 0
        if len(data) < 4:
            raise FormatError("%s: %d bytes, too short for a %s file"
                              % (name, len(data), what))
        for endian in ("<", ">"):
            if struct.unpack_from(endian + "I", data, 0)[0] == magic:
                self.endian = endian
                break
        else:
            raise FormatError("%s: not a %s file (magic 0x%08x)"
                              % (name, what,
                                 struct.unpack_from("<I", data, 0)[0]))

    def left(self):
        return len(self.data) - self.pos

    def need(self, nbytes, what):
        if self.left() < nbytes:
            raise FormatError("%s: truncated at byte %d: %s needs %d bytes, "
                              "%d left" % (self.name, self.pos, what, nbytes,
                                           self.left()))

    def u32(self, what="a word"):
        self.need(4, what)
        value = struct.unpack_from(self.endian + "I", self.data, self.pos)[0]
        self.pos += 4
        return value

    def u64(self, what="a counter"):
        low = self.u32(what)
        high = self.u32(what)
        return low | (high << 32)

    def string(self, what="a string"):
        length = self.u32(what)
        self.need(length, what)
        raw = self.data[self.pos:self.pos + length]
        self.pos += length
        return raw.rstrip(b"\0").decode("utf-8", "replace")


def check_version(reader, kind):
    version = reader.u32("the version word")
    major = gcc_major(version)
    if major != 12:
        label = version_string(version)
        if major is None:
            raise FormatError("%s: version word 0x%08x is not a GCC version"
                              % (reader.name, version))
        raise FormatError(
            "%s: %s file of GCC %d (version '%s'); this tool handles GCC 12 "
            "files only%s" % (reader.name, kind, major, label,
                              " (before GCC 12, record lengths count 4-byte "
                              "words, not bytes)" if major < 12 else ""))
    return version


# --- .gcda ---------------------------------------------------------------

class Function:
    def __init__(self, offset, ident=None, lineno_checksum=None,
                 cfg_checksum=None):
        self.offset = offset            # byte offset of the FUNCTION tag
        self.ident = ident              # None: a zero-length record
        self.lineno_checksum = lineno_checksum
        self.cfg_checksum = cfg_checksum
        self.counters = []              # (type, [values]) in type order
        self.counter_offsets = []       # byte offset of each COUNTERS tag

    @property
    def empty(self):
        return self.ident is None


class Gcda:
    def __init__(self):
        self.endian = "<"
        self.version = 0
        self.stamp = 0
        self.checksum = 0
        self.summary = None             # (runs, sum_max) or None
        self.functions = []
        self.end_marker = False
        self.negative = 0               # COUNTERS records with no values


def parse_gcda(data, name):
    """Parse a GCC 12 .gcda file strictly; return a Gcda."""
    r = Reader(data, name, GCDA_MAGIC, ".gcda")
    if len(data) % 4:
        raise FormatError("%s: %d bytes, not a whole number of 4-byte words"
                          % (name, len(data)))
    g = Gcda()
    g.endian = r.endian
    r.pos = 4
    g.version = check_version(r, ".gcda")
    g.stamp = r.u32("the stamp")
    g.checksum = r.u32("the checksum")
    current = None
    while r.left():
        offset = r.pos
        tag = r.u32("a record tag")
        if tag == 0:
            if r.left():
                raise FormatError("%s: %d bytes after the end marker at byte %d"
                                  % (name, r.left(), offset))
            g.end_marker = True
            break
        length = r.u32("the length of the record at byte %d" % offset)
        signed = length - (1 << 32) if length & 0x80000000 else length
        ctype = counter_type(tag)
        if tag == TAG_FUNCTION:
            if length == FUNCTION_LENGTH:
                current = Function(offset, r.u32(), r.u32(), r.u32())
            elif length == 0:
                current = Function(offset)
            else:
                raise FormatError("%s: FUNCTION record at byte %d has length "
                                  "%d; GCC 12 writes 12 or 0"
                                  % (name, offset, signed))
            g.functions.append(current)
        elif tag == TAG_OBJECT_SUMMARY:
            if length != SUMMARY_LENGTH or g.summary is not None or current:
                raise FormatError("%s: unexpected OBJECT_SUMMARY record at "
                                  "byte %d (length %d)" % (name, offset, signed))
            g.summary = (r.u32(), r.u32())
        elif ctype is not None:
            what = "%s counters at byte %d" % (COUNTER_NAMES[ctype], offset)
            if current is None or current.empty:
                raise FormatError("%s: %s outside a function record"
                                  % (name, what))
            if ctype in TOPN_TYPES:
                raise FormatError("%s: %s: value-profile counters have an "
                                  "in-file form of their own; the kernel has "
                                  "none, and this tool does not rewrite them"
                                  % (name, what))
            if current.counters and current.counters[-1][0] >= ctype:
                raise FormatError("%s: %s come after type %d counters of the "
                                  "same function; types must ascend"
                                  % (name, what, current.counters[-1][0]))
            if signed % 8:
                raise FormatError("%s: %s: length %d is not a multiple of 8"
                                  % (name, what, signed))
            if signed < 0:
                values = [0] * (-signed // 8)
                g.negative += 1
            else:
                r.need(signed, what)
                values = [r.u64() for _ in range(signed // 8)]
            current.counters.append((ctype, values))
            current.counter_offsets.append(offset)
        else:
            raise FormatError("%s: unknown record tag 0x%08x at byte %d"
                              % (name, tag, offset))
    types = {tuple(t for t, _ in f.counters) for f in g.functions if not f.empty}
    if len(types) > 1:
        raise FormatError("%s: functions differ in their counter types %s; "
                          "one object has one set of active types"
                          % (name, sorted(types)))
    return g


# --- .gcno ---------------------------------------------------------------

class NoteFunction:
    def __init__(self, ident, lineno_checksum, cfg_checksum, name):
        self.ident = ident
        self.lineno_checksum = lineno_checksum
        self.cfg_checksum = cfg_checksum
        self.name = name
        self.arcs = 0                   # counted arcs: arc counters


def parse_gcno(data, name):
    """Parse a GCC 12 .gcno file: stamp and, per function, its identifiers
    and the number of arcs that carry a counter (those not on the spanning
    tree)."""
    r = Reader(data, name, GCNO_MAGIC, ".gcno")
    r.pos = 4
    check_version(r, ".gcno")
    stamp = r.u32("the stamp")
    r.u32("the checksum")
    r.string("the working directory")
    r.u32("the unexecuted-blocks flag")
    functions = []
    while r.left():
        offset = r.pos
        tag = r.u32("a record tag")
        length = r.u32("the length of the record at byte %d" % offset)
        r.need(length, "the record at byte %d" % offset)
        end = r.pos + length
        if tag == TAG_FUNCTION:
            ident, lineno, cfg = r.u32(), r.u32(), r.u32()
            functions.append(NoteFunction(ident, lineno, cfg, r.string()))
        elif tag == TAG_ARCS:
            if not functions or length < 4 or (length - 4) % 8:
                raise FormatError("%s: malformed ARCS record at byte %d"
                                  % (name, offset))
            r.u32()                     # source block
            for _ in range((length - 4) // 8):
                r.u32()                 # destination block
                if not r.u32() & ARC_ON_TREE:
                    functions[-1].arcs += 1
        elif tag not in (TAG_BLOCKS, TAG_LINES):
            raise FormatError("%s: unknown record tag 0x%08x at byte %d"
                              % (name, tag, offset))
        if r.pos > end:
            raise FormatError("%s: record at byte %d is longer than its "
                              "length %d says" % (name, offset, length))
        r.pos = end
    return stamp, functions


def fill_from_notes(g, stamp, notes, gcda_name, gcno_name):
    """Check g against the .gcno and fill in its zero-length FUNCTION
    records.  Raise FormatError on any disagreement."""
    if stamp != g.stamp:
        raise FormatError("%s: stamp 0x%08x, but %s has 0x%08x: not the same "
                          "compilation" % (gcda_name, g.stamp, gcno_name, stamp))
    index = {f.ident: i for i, f in enumerate(notes)}
    # Pass 1: every known function is in the notes, with matching data.
    where = []
    for f in g.functions:
        if f.empty:
            where.append(None)
            continue
        i = index.get(f.ident)
        if i is None:
            raise FormatError("%s: function ident %d (byte %d) is not in %s"
                              % (gcda_name, f.ident, f.offset, gcno_name))
        n = notes[i]
        if (f.lineno_checksum, f.cfg_checksum) != (n.lineno_checksum,
                                                   n.cfg_checksum):
            raise FormatError("%s: checksums of %s (byte %d) differ from %s"
                              % (gcda_name, n.name, f.offset, gcno_name))
        arcs = [v for t, v in f.counters if t == 0]
        if arcs and len(arcs[0]) != n.arcs:
            raise FormatError("%s: %s has %d arc counters, %s says %d"
                              % (gcda_name, n.name, len(arcs[0]), gcno_name,
                                 n.arcs))
        if where and where[-1] is not None and i <= where[-1]:
            raise FormatError("%s: function %s (byte %d) is out of the "
                              ".gcno's order" % (gcda_name, n.name, f.offset))
        where.append(i)
    # Pass 2: a run of zero-length records between two known neighbours
    # stands for the functions of the notes between those two, provided
    # there are exactly as many of them as records in the run.
    types = next((tuple(t for t, _ in f.counters)
                  for f in g.functions if not f.empty), (0,))
    fns = g.functions
    k = 0
    while k < len(fns):
        if not fns[k].empty:
            k += 1
            continue
        j = k
        while j < len(fns) and fns[j].empty:
            j += 1
        if types != (0,):
            raise FormatError("%s: zero-length FUNCTION record at byte %d in "
                              "a file with counter types %s; only arc "
                              "counters can be filled in from a .gcno"
                              % (gcda_name, fns[k].offset, list(types)))
        lo = where[k - 1] if k else -1
        hi = where[j] if j < len(fns) else len(notes)
        if hi - lo - 1 != j - k:
            raise FormatError(
                "%s: cannot tell which functions the %d zero-length FUNCTION "
                "record(s) from byte %d stand for: %s has %d functions in "
                "that place" % (gcda_name, j - k, fns[k].offset, gcno_name,
                                max(hi - lo - 1, 0)))
        for m in range(j - k):
            n = notes[lo + 1 + m]
            f = fns[k + m]
            f.ident, f.lineno_checksum, f.cfg_checksum = (
                n.ident, n.lineno_checksum, n.cfg_checksum)
            f.counters = [(0, [0] * n.arcs)]
            f.counter_offsets = [None]
            where[k + m] = lo + 1 + m
        k = j


# --- writing -------------------------------------------------------------

def kernel_form(g, mainline=False):
    """The bytes the kernel writes for the same data (mainline: with the
    header's checksum word 0, as mainline 6.1 writes it)."""
    e = g.endian
    out = [struct.pack(e + "4I", GCDA_MAGIC, g.version, g.stamp,
                       0 if mainline else g.checksum)]
    for f in g.functions:
        out.append(struct.pack(e + "5I", TAG_FUNCTION, FUNCTION_LENGTH,
                               f.ident, f.lineno_checksum, f.cfg_checksum))
        for ctype, values in f.counters:
            out.append(struct.pack(e + "2I", counter_tag(ctype), 8 * len(values)))
            for v in values:
                out.append(struct.pack(e + "2I", v & 0xFFFFFFFF, v >> 32))
    return b"".join(out)


def normalise(data, name="input", gcno=None, gcno_name="notes", mainline=False):
    """Return the kernel form of the .gcda bytes in data (FormatError if
    they are not acceptable)."""
    g = parse_gcda(data, name)
    if gcno is not None:
        stamp, notes = parse_gcno(gcno, gcno_name)
        fill_from_notes(g, stamp, notes, name, gcno_name)
    for f in g.functions:
        if f.empty:
            raise FormatError(
                "%s: FUNCTION record of length 0 at byte %d: libgcov wrote "
                "no identifiers and no counters for it; give --gcno with the "
                "object's .gcno so that they can be filled in" % (name, f.offset))
    return kernel_form(g, mainline)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="gcda_normalise.py",
        description="Rewrite a GCC 12 libgcov .gcda file into the form the "
                    "kernel writes: no OBJECT_SUMMARY, no end marker, all-zero "
                    "counter records written in full.")
    parser.add_argument("input", metavar="IN.gcda")
    parser.add_argument("output", metavar="OUT.gcda")
    parser.add_argument("--gcno", metavar="X.gcno",
                        help="notes file of the same compilation: check the "
                             "data against it and fill in zero-length "
                             "FUNCTION records")
    parser.add_argument("--mainline", action="store_true",
                        help="write the header's checksum word as 0, as "
                             "mainline 6.1 does (the series and libgcov "
                             "write the object's checksum)")
    args = parser.parse_args(argv)
    me = os.path.basename(sys.argv[0]) if argv is None else "gcda_normalise.py"
    try:
        with open(args.input, "rb") as f:
            data = f.read()
        notes = None
        if args.gcno:
            with open(args.gcno, "rb") as f:
                notes = f.read()
        out = normalise(data, args.input, notes, args.gcno, args.mainline)
    except (OSError, FormatError) as err:
        print("%s: %s" % (me, err), file=sys.stderr)
        return 1
    tmp = args.output + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(out)
        os.replace(tmp, args.output)
    except OSError as err:
        print("%s: %s" % (me, err), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
