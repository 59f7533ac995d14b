# SPDX-License-Identifier: GPL-2.0
"""Lab 3 on the mainline kernel: seqwrite_demo's debugfs file is a binary
stream written with seq_write().  The od dump in the console log is the
exact stream the layout implies, repeated and chunked reads agree, an
out-of-range module parameter is refused, and the workload fails loudly
when the stream is not what it expects."""

import os
import re
import struct

import pytest

from conftest import REPO, gcovlab, ok

SEQWRITE = os.path.join(REPO, "labs", "lab03")
WORKLOAD = os.path.join(SEQWRITE, "workload.sh")
MAGIC = 0x67636461


def run_seqwrite(out, workload=WORKLOAD):
    return gcovlab("run", "--mainline", "--module", SEQWRITE,
                   "--workload", workload, "--out", out)


def console_lines(out):
    return [line.rstrip("\r") for line in (out / "console.log").read_text(
        errors="replace").split("\n")]


def expected_stream(records):
    """The bytes seqwrite_demo.c describes: header, then records 1..n."""
    body = b""
    for i in range(1, records + 1):
        body += struct.pack("<II", 0x01000000 | i, 8 * i)
        body += b"".join(struct.pack("<Q", i << 32 | j) for j in range(i))
    return struct.pack("<IIII", MAGIC, 1, records, 16 + len(body)) + body


def od_dump(lines, path="/sys/kernel/debug/seqwrite_demo/records"):
    """The words of the 'od -A d -t x4' dump the workload prints, and the
    final offset od gives; kernel messages in between are skipped."""
    start = lines.index("seqwrite: od -A d -t x4 %s" % path) + 1
    words = []
    for line in lines[start:]:
        if line.startswith("["):
            continue
        fields = line.split()
        assert fields and re.fullmatch(r"\d{7}", fields[0]), line
        assert int(fields[0]) == 4 * len(words), line
        if len(fields) == 1:
            return words, int(fields[0])
        words += fields[1:]
    raise AssertionError("od dump does not end")


@pytest.fixture(scope="module")
def run(mainline, tmp_path_factory):
    out = tmp_path_factory.mktemp("seqwrite") / "out"
    proc = ok(run_seqwrite(out))
    return out, proc


def test_workload_passes(run):
    out, proc = run
    assert (out / "status").read_text() == "0\n"
    lines = console_lines(out)
    assert "seqwrite: all checks passed" in lines
    assert not [line for line in lines if "seqwrite: FAIL" in line]


def test_od_dump_is_the_stream_the_layout_implies(run):
    out, _ = run
    words, end = od_dump(console_lines(out))
    assert words[0] == "67636461"
    stream = expected_stream(3)
    assert end == len(stream) == 88
    assert words == ["%08x" % w for w in struct.unpack("<%dI" % (len(stream) // 4), stream)]


def test_reads_agree_whole_and_in_chunks(run):
    out, _ = run
    lines = console_lines(out)
    for size, records in ((88, 3), (17168, 64)):
        assert "seqwrite: header and %d records check out: %d bytes" % (records, size) in lines
        assert len(expected_stream(records)) == size
        for bs in (1, 7):
            assert ("seqwrite: reads of %d byte(s) at a time give the same %d bytes"
                    % (bs, size)) in lines
    assert lines.count("seqwrite: two reads are identical") == 2
    # debugfs gives the file no size; the module's own line gives it.
    assert "seqwrite: stat says 0 bytes, reading gives 88" in lines
    assert any(line.endswith("seqwrite_demo: 64 records, 17168 bytes") for line in lines)


@pytest.mark.parametrize("bad", [0, 1000])
def test_out_of_range_parameter_refused(run, bad):
    out, _ = run
    lines = console_lines(out)
    assert any(line.endswith("seqwrite_demo: records=%d is out of range (1-64)" % bad)
               for line in lines)
    assert ("seqwrite: records=%d refused: insmod: can't insert 'seqwrite_demo.ko': "
            "Invalid argument" % bad) in lines


def test_every_line_of_the_module_ran(run):
    _, proc = run
    m = re.search(r"seqwrite_demo\.c: lines hit (\d+) / (\d+)", proc.stdout)
    assert m and int(m.group(1)) == int(m.group(2)) > 0, proc.stdout[-2000:]


def test_a_mismatch_fails_the_workload(mainline, tmp_path):
    with open(WORKLOAD) as f:
        text = f.read()
    assert "\nmagic=67636461\n" in text
    workload = tmp_path / "wrong-magic.sh"
    workload.write_text(text.replace("\nmagic=67636461\n", "\nmagic=67636462\n"))
    out = tmp_path / "out"
    proc = run_seqwrite(out, workload)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert (out / "status").read_text() == "1\n"
    assert "seqwrite: FAIL: magic is 67636461, not 67636462" in console_lines(out)
