# SPDX-License-Identifier: GPL-2.0
"""tools/gcda_normalise.py against real files from this machine's GCC.

Each test program is compiled once with -fprofile-arcs -ftest-coverage and
linked twice: with libgcov (the normal way) and with docs/examples/format/kwriter.c,
a user-space model of the kernel's writer.  Both binaries run, and each
leaves a .gcda file per object.  The normaliser must turn libgcov's file
into the model's, byte for byte; gcov-dump must read the result; gcov must
report the same line counts from it as from libgcov's file; and broken
input must be refused with a message and no output file.

Run with:  /usr/bin/python3 -m pytest tests/test_gcda_normalise.py
"""

import os
import shutil
import struct
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMAT = os.path.join(REPO, "docs", "examples", "format")
TOOLS = os.path.join(REPO, "tools")
TOOL = os.path.join(TOOLS, "gcda_normalise.py")
KERNEL_FILE = os.path.join(REPO, "docs", "captures", "format", "gcovdemo.gcda")
CAPTURES = os.path.join(REPO, "docs", "captures", "format")

sys.path.insert(0, TOOLS)
import gcda_normalise as gn  # noqa: E402

for _tool in ("gcc", "gcov", "gcov-dump"):
    if shutil.which(_tool) is None:
        pytest.fail("%s is not installed (./setup.sh installs it)" % _tool,
                    pytrace=False)

# A second program: two objects, a switch, a loop, a static helper, a
# function that never runs in each object.
LIB_C = r"""
static int weight(int c)
{
	switch (c) {
	case 'a': return 1;
	case 'b': return 2;
	case 'c': return 3;
	default: return 0;
	}
}

int score(const char *s)
{
	int n = 0;

	while (*s)
		n += weight(*s++);
	return n;
}

int unused_in_lib(int x)
{
	return x ? x * 3 : -1;
}
"""

MAIN_C = r"""
int score(const char *s);

int never_called(int x)
{
	int i, s = 0;

	for (i = 0; i < x; i++)
		s += i;
	return s;
}

int main(void)
{
	return score("abcab") == 9 ? 0 : 1;
}
"""

PROGRAMS = {
    "sample": {"sample.c": None},          # docs/examples/format/sample.c
    "two-objects": {"lib.c": LIB_C, "main.c": MAIN_C},
}


def run(cmd, cwd, check=True):
    proc = subprocess.run(cmd, cwd=str(cwd), text=True, capture_output=True)
    if check:
        assert proc.returncode == 0, "%s: exit %d\n%s%s" % (
            " ".join(cmd), proc.returncode, proc.stdout, proc.stderr)
    return proc


def build(workdir, sources):
    """Compile, link twice, run twice.  Return {object name: (libgcov
    bytes, kernel-model bytes)} and leave the .gcno files in workdir."""
    workdir.mkdir()
    for name, text in sources.items():
        if text is None:
            shutil.copy(os.path.join(FORMAT, name), str(workdir / name))
        else:
            (workdir / name).write_text(text)
    objs = []
    for name in sources:
        run(["gcc", "-O2", "-fprofile-arcs", "-ftest-coverage", "-c", name],
            workdir)
        objs.append(name[:-2] + ".o")
    run(["gcc", "-O2", "-c", os.path.join(FORMAT, "kwriter.c"), "-o",
         "kwriter.o"], workdir)
    run(["gcc", "--coverage"] + objs + ["-o", "prog-libgcov"], workdir)
    run(["gcc"] + objs + ["kwriter.o", "-o", "prog-kernel"], workdir)
    files = {}
    for binary in ("prog-libgcov", "prog-kernel"):
        run(["./" + binary], workdir)
        for obj in objs:
            gcda = workdir / (obj[:-2] + ".gcda")
            assert gcda.exists(), "%s wrote no %s" % (binary, gcda.name)
            files.setdefault(obj[:-2], []).append(gcda.read_bytes())
            gcda.unlink()
    return {k: tuple(v) for k, v in files.items()}


@pytest.fixture(scope="module", params=sorted(PROGRAMS))
def program(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("gcda") / request.param
    return workdir, build(workdir, PROGRAMS[request.param])


def normalise_cli(tmp_path, data, gcno=None, name="in.gcda", mainline=False):
    src = tmp_path / name
    src.write_bytes(data)
    out = tmp_path / "out.gcda"
    if out.exists():
        out.unlink()
    cmd = [TOOL, str(src), str(out)] + (["--gcno", str(gcno)] if gcno else [])
    cmd += ["--mainline"] if mainline else []
    proc = subprocess.run(cmd, text=True, capture_output=True)
    return proc, (out.read_bytes() if out.exists() else None)


def gcov_report(workdir, stem, data):
    """gcov's annotated source for one object, given its .gcda bytes."""
    (workdir / (stem + ".gcda")).write_bytes(data)
    try:
        proc = run(["gcov", "-b", stem + ".c"], workdir)
        assert "mismatch" not in proc.stderr + proc.stdout
        return (workdir / (stem + ".c.gcov")).read_text().splitlines()
    finally:
        (workdir / (stem + ".gcda")).unlink()


# --- the libgcov file really is different -------------------------------

def test_libgcov_files_differ_as_documented(program):
    """libgcov's files have what the normaliser removes: an OBJECT_SUMMARY
    record, an end marker, and (somewhere) an all-zero COUNTERS record
    written with a negative length; the model's have none of it.  Both
    write the object's checksum in the header (the series since v3)."""
    workdir, files = program
    negative = 0
    for stem, (libgcov, kernel) in files.items():
        g = gn.parse_gcda(libgcov, stem)
        assert g.checksum != 0 and g.summary is not None and g.end_marker
        negative += g.negative
        k = gn.parse_gcda(kernel, stem)
        assert k.checksum == g.checksum and k.summary is None and not k.end_marker
        assert k.negative == 0
        assert libgcov != kernel
    assert negative, "no never-run function: the test would prove little"


# --- normalising ---------------------------------------------------------

def test_normalised_equals_kernel_model(program, tmp_path):
    """normalise(libgcov file) is byte for byte what the kernel-style
    writer made from the same run, with and without --gcno."""
    workdir, files = program
    for stem, (libgcov, kernel) in files.items():
        for gcno in (None, workdir / (stem + ".gcno")):
            proc, out = normalise_cli(tmp_path, libgcov, gcno)
            assert proc.returncode == 0, proc.stderr
            assert proc.stderr == ""
            assert out == kernel, "%s (--gcno %s) differs" % (stem, gcno)


def test_checksum_kept_unless_mainline(program, tmp_path):
    """Without --mainline the header keeps libgcov's checksum (the series
    writes it since v3); with it, the word is 0, as mainline writes it;
    nothing else differs."""
    _, files = program
    for stem, (libgcov, _) in files.items():
        _, series = normalise_cli(tmp_path, libgcov)
        _, mainline = normalise_cli(tmp_path, libgcov, mainline=True)
        checksum = gn.parse_gcda(libgcov, stem).checksum
        assert gn.parse_gcda(series, stem).checksum == checksum != 0
        assert gn.parse_gcda(mainline, stem).checksum == 0
        assert series[:12] == mainline[:12] and series[16:] == mainline[16:]


def test_normalised_is_a_fixed_point(program):
    """Normalising a file that is already in the kernel's form changes
    nothing."""
    _, files = program
    for stem, (_, kernel) in files.items():
        assert gn.normalise(kernel, stem) == kernel


def test_kernel_written_file_is_a_fixed_point():
    """The .gcda the mainline kernel wrote for the sample driver
    (docs/captures/format/gcovdemo.gcda) is already in the kernel's form."""
    data = open(KERNEL_FILE, "rb").read()
    assert gn.normalise(data, "gcovdemo.gcda") == data


def test_gcov_dump_reads_the_result(program, tmp_path):
    """gcov-dump reads the normalised file: libgcov's checksum, no
    summary, no all-zero shorthand, one FUNCTION record per function."""
    _, files = program
    for stem, (libgcov, _) in files.items():
        _, out = normalise_cli(tmp_path, libgcov)
        path = tmp_path / (stem + ".gcda")
        path.write_bytes(out)
        dump = run(["gcov-dump", "-l", str(path)], tmp_path).stdout
        assert ":checksum %d\n" % gn.parse_gcda(libgcov, stem).checksum in dump
        assert "OBJECT_SUMMARY" not in dump and "(all zero)" not in dump
        assert dump.count("FUNCTION") == len(gn.parse_gcda(libgcov, stem).functions)
        assert "mismatch" not in dump and "unread" not in dump


def test_gcov_line_counts_unchanged(program):
    """gcov -b reports the same counts for every line and branch from the
    normalised file as from libgcov's; only the 'Runs:' header differs,
    because the kernel's form has no summary record."""
    workdir, files = program
    for stem, (libgcov, kernel) in files.items():
        before = gcov_report(workdir, stem, libgcov)
        after = gcov_report(workdir, stem, gn.normalise(libgcov, stem))
        assert len(before) == len(after)
        diff = [(a, b) for a, b in zip(before, after) if a != b]
        assert diff == [("        -:    0:Runs:1", "        -:    0:Runs:0")], diff
        assert any(line.lstrip().startswith("#####") for line in after)
        assert after == gcov_report(workdir, stem, kernel)


# --- zero-length FUNCTION records and the .gcno --------------------------

def splice_empty(data, name, which):
    """libgcov's file with the records of function number `which` replaced
    by a FUNCTION record of length 0 (what libgcov writes for a function
    whose description another object owns)."""
    g = gn.parse_gcda(data, name)
    start = g.functions[which].offset
    end = (g.functions[which + 1].offset if which + 1 < len(g.functions)
           else len(data) - 4)
    return data[:start] + struct.pack("<II", gn.TAG_FUNCTION, 0) + data[end:]


def zeroed(kernel, name, which):
    """The kernel-form bytes with function number `which`'s counters 0."""
    g = gn.parse_gcda(kernel, name)
    f = g.functions[which]
    f.counters = [(t, [0] * len(v)) for t, v in f.counters]
    return gn.kernel_form(g)


def test_zero_length_function_needs_gcno(program, tmp_path):
    """Without --gcno a zero-length FUNCTION record is refused; with it,
    the record is written in full: identifiers from the .gcno, as many
    zero arc counters as the .gcno's graph has counted arcs (the record
    itself carries no counts)."""
    workdir, files = program
    for stem, (libgcov, kernel) in files.items():
        for which in range(len(gn.parse_gcda(libgcov, stem).functions)):
            spliced = splice_empty(libgcov, stem, which)
            proc, out = normalise_cli(tmp_path, spliced)
            assert proc.returncode == 1 and out is None
            assert "length 0" in proc.stderr and "--gcno" in proc.stderr
            proc, out = normalise_cli(tmp_path, spliced,
                                      workdir / (stem + ".gcno"))
            assert proc.returncode == 0, proc.stderr
            assert out == zeroed(kernel, stem, which)


def test_zero_length_functions_that_cannot_be_placed(program, tmp_path):
    """One zero-length record too many: the .gcno cannot say which
    function each stands for, and the tool says so."""
    workdir, files = program
    stem, (libgcov, _) = sorted(files.items())[0]
    spliced = splice_empty(libgcov, stem, 0)
    g = gn.parse_gcda(spliced, stem)
    at = g.functions[0].offset
    extra = spliced[:at] + struct.pack("<II", gn.TAG_FUNCTION, 0) + spliced[at:]
    proc, out = normalise_cli(tmp_path, extra, workdir / (stem + ".gcno"))
    assert proc.returncode == 1 and out is None
    assert "cannot tell which functions" in proc.stderr


def test_gcno_of_another_compilation_is_refused(program, tmp_path):
    workdir, files = program
    stem, (libgcov, _) = sorted(files.items())[0]
    src = stem + ".c"
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(str(workdir / src), str(other / src))
    run(["gcc", "-O2", "-fprofile-arcs", "-ftest-coverage", "-c", src], other)
    proc, out = normalise_cli(tmp_path, libgcov, other / (stem + ".gcno"))
    assert proc.returncode == 1 and out is None
    assert "not the same compilation" in proc.stderr


def test_gcno_with_other_checksums_is_refused(program, tmp_path):
    """Same stamp, but a function's checksum differs from the .gcno's."""
    workdir, files = program
    stem, (libgcov, _) = sorted(files.items())[0]
    g = gn.parse_gcda(libgcov, stem)
    data = bytearray(libgcov)
    at = g.functions[0].offset + 16          # its cfg_checksum
    data[at:at + 4] = struct.pack("<I", g.functions[0].cfg_checksum ^ 1)
    proc, out = normalise_cli(tmp_path, bytes(data), workdir / (stem + ".gcno"))
    assert proc.returncode == 1 and out is None
    assert "checksums of" in proc.stderr


# --- broken input is refused ---------------------------------------------

def corruptions(libgcov):
    """(label, bytes, expected message fragment) for broken inputs made
    from a real libgcov file."""
    g = gn.parse_gcda(libgcov, "x")
    f0 = g.functions[0]
    ctr0 = f0.counter_offsets[0]
    word = struct.Struct("<I")

    def patch(at, value):
        data = bytearray(libgcov)
        data[at:at + 4] = word.pack(value)
        return bytes(data)

    older = word.unpack_from(b"*11B")[0]     # 'B11*' as gcov stores it
    return [
        ("cut in a counter", libgcov[:ctr0 + 12], "truncated at byte"),
        ("cut in a word", libgcov[:ctr0 + 10], "not a whole number"),
        ("too short", libgcov[:2], "too short"),
        ("bad magic", patch(0, 0x12345678), "not a .gcda file"),
        ("a .gcno", patch(0, gn.GCNO_MAGIC), "not a .gcda file"),
        ("GCC 11", patch(4, older), "GCC 11"),
        ("unknown tag", patch(f0.offset, 0x44434241), "unknown record tag"),
        ("bad function length", patch(f0.offset + 4, 16), "has length 16"),
        ("odd counter length", patch(ctr0 + 4, 12), "not a multiple of 8"),
        ("huge counter length", patch(ctr0 + 4, 0x7FFFFFF8), "truncated"),
        ("counters first", libgcov[:16] + libgcov[ctr0:], "outside a function"),
        ("after end marker", libgcov + b"\0\0\0\0", "after the end marker"),
        ("second summary", libgcov[:32] + libgcov[16:],
         "unexpected OBJECT_SUMMARY"),
    ]


def test_corrupt_input_is_refused(program, tmp_path):
    _, files = program
    libgcov = sorted(files.values())[0][0]
    for label, data, message in corruptions(libgcov):
        proc, out = normalise_cli(tmp_path, data)
        assert proc.returncode == 1, "%s: accepted" % label
        assert out is None, "%s: wrote output" % label
        assert message in proc.stderr, "%s: %s" % (label, proc.stderr)
        assert proc.stderr.startswith("gcda_normalise.py: ")
        assert "Traceback" not in proc.stderr


def test_value_profile_counters_are_refused(tmp_path):
    """-fprofile-values adds topn counters, whose in-file form is not one
    word pair per counter; the kernel never has them and the tool says so."""
    (tmp_path / "v.c").write_text(
        "int ratio(int a, int b) { return a / b; }\n"
        "int main(int argc, char **argv) { (void)argv;"
        " return ratio(100, argc) == 7; }\n")
    run(["gcc", "-O2", "-fprofile-arcs", "-fprofile-values", "v.c", "-o", "v"],
        tmp_path)
    run(["./v"], tmp_path, check=False)
    proc, out = normalise_cli(tmp_path, (tmp_path / "v.gcda").read_bytes())
    assert proc.returncode == 1 and out is None
    assert "topn counters" in proc.stderr


def test_usage_errors(tmp_path):
    proc = subprocess.run([TOOL], text=True, capture_output=True)
    assert proc.returncode == 2 and "usage:" in proc.stderr
    proc = subprocess.run([TOOL, str(tmp_path / "missing.gcda"),
                           str(tmp_path / "out.gcda")],
                          text=True, capture_output=True)
    assert proc.returncode == 1 and "No such file" in proc.stderr
    assert not (tmp_path / "out.gcda").exists()


# --- the committed captures agree with the committed kernel file --------

def test_driver_capture_matches_committed_file(tmp_path):
    """docs/captures/format/driver-dump.txt is gcov-dump's view of the
    committed gcovdemo.gcda (tools/capture-format.sh writes both)."""
    path = tmp_path / "gcovdemo.gcda"
    shutil.copy(KERNEL_FILE, str(path))
    dump = run(["gcov-dump", "-l", "gcovdemo.gcda"], tmp_path).stdout
    text = open(os.path.join(CAPTURES, "driver-dump.txt")).read()
    lines = text.splitlines()[1:]
    want = [line.replace("run/build/gcovdemo.gcda", "gcovdemo.gcda", 1)
            for line in lines]
    assert dump.splitlines() == want
