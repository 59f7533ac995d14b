# SPDX-License-Identifier: GPL-2.0
"""The tool's pieces that need no kernel, tested alone (seconds).

The guest's data channel parser (every way a transfer can be damaged),
the initramfs cpio writer (read back by an independent reader, and by
cpio(1) when it is installed), the kernel-parameter and lab-number
checks, the kernel configurations of labs/index.toml, and reset's
renaming of a student's branches.
"""

import argparse
import base64
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "vm"))

from gcovlablib import cli, guest, kbuild, labs, reset, runs  # noqa: E402
from gcovlablib.util import GcovlabError  # noqa: E402


# --- the data channel ------------------------------------------------------

def sent(rel, data, size=None, digest=None, body=None):
    enc = body if body is not None else base64.b64encode(data).decode()
    lines = [enc[i:i + 76] for i in range(0, len(enc), 76)]
    return "\n".join(["GCOVLAB-FILE %d %s %s" % (
        len(data) if size is None else size,
        digest or hashlib.sha256(data).hexdigest(), rel)] + lines + ["GCOVLAB-END"])


def channel(*files, status=0, done=None):
    parts = ["GCOVLAB-STATUS %d" % status] + list(files)
    parts.append("GCOVLAB-DONE %d" % (len(files) if done is None else done))
    return "\n".join(parts) + "\n"


def test_transfer_good(tmp_path):
    data = bytes(range(256)) * 5
    status, files = guest.parse_transfer(channel(sent("a/b.gcda", data), status=3),
                                         str(tmp_path / "console.log"))
    assert status == 3 and files == {"a/b.gcda": data}


def test_transfer_with_carriage_returns(tmp_path):
    text = channel(sent("x.gcda", b"abc")).replace("\n", "\r\n")
    assert guest.parse_transfer(text, str(tmp_path / "c"))[1] == {"x.gcda": b"abc"}


@pytest.mark.parametrize("rel", ["/etc/passwd", "../x.gcda", "a/../../x", "a//b", "./a"])
def test_transfer_unsafe_path(tmp_path, rel):
    with pytest.raises(GcovlabError, match="unsafe path"):
        guest.parse_transfer(channel(sent(rel, b"x")), str(tmp_path / "c"))


def test_transfer_bad_base64(tmp_path):
    with pytest.raises(GcovlabError, match="not valid base64"):
        guest.parse_transfer(channel(sent("a.gcda", b"abcd", body="@@@@")), str(tmp_path / "c"))


def test_transfer_size_mismatch(tmp_path):
    with pytest.raises(GcovlabError, match="arrived damaged: the guest sent 5 bytes"):
        guest.parse_transfer(channel(sent("a.gcda", b"abcd", size=5)), str(tmp_path / "c"))


def test_transfer_sha_mismatch(tmp_path):
    with pytest.raises(GcovlabError, match="arrived damaged"):
        guest.parse_transfer(channel(sent("a.gcda", b"abcd", digest="0" * 64)),
                             str(tmp_path / "c"))


def test_transfer_file_count(tmp_path):
    with pytest.raises(GcovlabError, match="sent 1 files but announced 2"):
        guest.parse_transfer(channel(sent("a.gcda", b"x"), done=2), str(tmp_path / "c"))


def test_transfer_guest_stopped_early(tmp_path):
    console = tmp_path / "console.log"
    console.write_text("Kernel panic - not syncing: boom\n")
    with pytest.raises(GcovlabError, match="(?s)before it ran the workload.*Kernel panic"):
        guest.parse_transfer("", str(console))
    with pytest.raises(GcovlabError, match="before it sent all coverage data"):
        guest.parse_transfer("GCOVLAB-STATUS 0\n", str(console))


def archived(members, sizes=None, sums=None, archive=None, digest=None, drop=()):
    """The archive records the guest sends: members are (name, data) pairs,
    or tarfile.TarInfo objects for anything other than a regular file."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                tar.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size = len(m[1])
                tar.addfile(info, io.BytesIO(m[1]))
    data = buf.getvalue() if archive is None else archive
    listed = [m for m in members if not isinstance(m, tarfile.TarInfo) and m[0] not in drop]
    head = "GCOVLAB-ARCHIVE %d %s\n" % (len(data), digest or hashlib.sha256(data).hexdigest())
    lines = ["", "GCOVLAB-END"]     # the raw bytes end without a newline
    lines += ["GCOVLAB-SIZES"] + (sizes if sizes is not None else [
        "%d %s" % (len(d), n) for n, d in listed]) + ["GCOVLAB-END"]
    lines += ["GCOVLAB-SHA256"] + (sums if sums is not None else [
        "%s  %s" % (hashlib.sha256(d).hexdigest(), n) for n, d in listed]) + ["GCOVLAB-END"]
    return head.encode() + data + "\n".join(lines).encode()


def archive_channel(records, count, status=0):
    return b"GCOVLAB-STATUS %d\n%s\nGCOVLAB-DONE %d\n" % (status, records, count)


def test_archive_good(tmp_path):
    a, b = bytes(range(256)) * 9, b""
    text = archive_channel(archived([("./x/a.gcda", a), ("./x/y z/b.gcda", b)]), 2, status=4)
    status, files = guest.parse_transfer(text, str(tmp_path / "c"))
    assert status == 4 and files == {"x/a.gcda": a, "x/y z/b.gcda": b}


def test_archive_travels_raw(tmp_path):
    """The archive's bytes are not base64: whatever they hold, newlines and
    record names among them, is taken by its announced size."""
    tricky = b"\nGCOVLAB-END\nGCOVLAB-DONE 9\n\r\n\x00\xff"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("./a.gcda")
        info.size = len(tricky)
        tar.addfile(info, io.BytesIO(tricky))
    # level 0: the member's bytes stand in the archive as they are
    data = gzip.compress(buf.getvalue(), compresslevel=0)
    assert tricky in data
    records = archived([("./a.gcda", tricky)], archive=data)
    assert guest.parse_transfer(archive_channel(records, 1),
                                str(tmp_path / "c"))[1] == {"a.gcda": tricky}


def test_archive_cut_off_is_a_guest_that_stopped(tmp_path):
    records = archived([("./a.gcda", bytes(range(256)) * 40)])
    text = archive_channel(records, 1)
    cut = text[:text.index(b"GCOVLAB-ARCHIVE") + 300]
    with pytest.raises(GcovlabError, match="stopped before it sent all coverage data"):
        guest.parse_transfer(cut, str(tmp_path / "c"))


@pytest.mark.parametrize("keep", [0, 1, 5])
def test_archive_cut_in_its_trailer_is_a_guest_that_stopped(tmp_path, keep):
    records = archived([("./a.gcda", b"abc")])
    head = records.split(b"\n", 1)[0]
    end = len(head) + 1 + int(head.split()[1])
    text = archive_channel(records, 1)
    text = text[:text.index(records) + end + keep]        # ends in "\nGCOVL"
    with pytest.raises(GcovlabError, match="stopped before it sent all coverage data"):
        guest.parse_transfer(text, str(tmp_path / "c"))


def test_a_bad_line_after_the_archive_is_named_by_its_line_number(tmp_path):
    records = archived([("./a.gcda", b"abc")])
    text = archive_channel(records + b"\nGCOVLAB-DONE x", 1)
    number = text[:text.index(b"GCOVLAB-DONE x")].count(b"\n") + 1
    with pytest.raises(GcovlabError, match="line %d does not parse: 'GCOVLAB-DONE x'" % number):
        guest.parse_transfer(text, str(tmp_path / "c"))


def test_archive_longer_than_announced(tmp_path):
    good = archived([("./a.gcda", b"abc")])
    head, rest = good.split(b"\n", 1)
    size = int(head.split()[1])
    records = b"GCOVLAB-ARCHIVE %d %s\n%s" % (size - 1, head.split()[2], rest)
    with pytest.raises(GcovlabError, match="announced as %d bytes is not followed by "
                                           "GCOVLAB-END" % (size - 1)):
        guest.parse_transfer(archive_channel(records, 1), str(tmp_path / "c"))


def test_archive_damaged_in_transit(tmp_path):
    records = archived([("./a.gcda", b"abc")], digest="0" * 64)
    with pytest.raises(GcovlabError, match="archive of .gcda files arrived damaged"):
        guest.parse_transfer(archive_channel(records, 1), str(tmp_path / "c"))


def test_archive_that_is_not_gzip(tmp_path):
    records = archived([("./a.gcda", b"abc")], archive=b"not a tar file at all")
    with pytest.raises(GcovlabError, match=r"archive of \.gcda files arrived damaged \("):
        guest.parse_transfer(archive_channel(records, 1), str(tmp_path / "c"))


def test_archive_member_differs_from_its_list_entry(tmp_path):
    sums = ["%s  ./a.gcda" % hashlib.sha256(b"abd").hexdigest()]
    with pytest.raises(GcovlabError, match="a.gcda arrived damaged"):
        guest.parse_transfer(archive_channel(archived([("./a.gcda", b"abc")], sums=sums), 1),
                             str(tmp_path / "c"))
    with pytest.raises(GcovlabError, match="listed 4 bytes, its archive holds 3"):
        guest.parse_transfer(archive_channel(
            archived([("./a.gcda", b"abc")], sizes=["4 ./a.gcda"]), 1), str(tmp_path / "c"))


def test_archive_member_not_listed_or_listed_not_archived(tmp_path):
    records = archived([("./a.gcda", b"1"), ("./b.gcda", b"2")], drop=("./b.gcda",))
    with pytest.raises(GcovlabError, match="holds b.gcda, which its lists do not name"):
        guest.parse_transfer(archive_channel(records, 2), str(tmp_path / "c"))
    records = archived([("./a.gcda", b"1")], sizes=["1 ./a.gcda", "1 ./c.gcda"],
                       sums=["%s  %s" % (hashlib.sha256(b"1").hexdigest(), n)
                             for n in ("./a.gcda", "./c.gcda")])
    with pytest.raises(GcovlabError, match="listed 1 files that are not in its archive, "
                                           "the first c.gcda"):
        guest.parse_transfer(archive_channel(records, 2), str(tmp_path / "c"))


def test_archive_lists_disagree(tmp_path):
    records = archived([("./a.gcda", b"1")], sums=[])
    with pytest.raises(GcovlabError, match="lists of sizes and of sha256 name different"):
        guest.parse_transfer(archive_channel(records, 1), str(tmp_path / "c"))


@pytest.mark.parametrize("name", ["../x.gcda", "/etc/x.gcda", "./a/../../x.gcda"])
def test_archive_unsafe_member(tmp_path, name):
    with pytest.raises(GcovlabError, match="unsafe path"):
        guest.parse_transfer(archive_channel(archived([(name, b"x")]), 1), str(tmp_path / "c"))


def test_archive_symlink_member(tmp_path):
    link = tarfile.TarInfo("./a.gcno")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    records = archived([("./a.gcda", b"1"), link])
    with pytest.raises(GcovlabError, match="holds a.gcno, which is not a regular file"):
        guest.parse_transfer(archive_channel(records, 1), str(tmp_path / "c"))


def test_archive_file_count(tmp_path):
    with pytest.raises(GcovlabError, match="sent 1 files but announced 3"):
        guest.parse_transfer(archive_channel(archived([("./a.gcda", b"1")]), 3),
                             str(tmp_path / "c"))


@pytest.mark.parametrize("bad", [
    "GCOVLAB-STATUS x",
    "GCOVLAB-ARCHIVE 12",
    "GCOVLAB-ARCHIVE -3 %s" % ("0" * 64),
    "GCOVLAB-SIZES\nnot-a-number ./a.gcda\nGCOVLAB-END",
    "GCOVLAB-SHA256\n%s ./a.gcda\nGCOVLAB-END" % ("0" * 64),
    "GCOVLAB-FILE 3 abc",
    "GCOVLAB-DONE x"])
def test_malformed_record_is_named_not_a_traceback(tmp_path, bad):
    text = "GCOVLAB-STATUS 0\n%s\nGCOVLAB-DONE 0\n" % bad
    with pytest.raises(GcovlabError, match="data channel is damaged: line \\d+ does not parse"):
        guest.parse_transfer(text, str(tmp_path / "c"))


def test_same_file_twice_is_refused(tmp_path):
    with pytest.raises(GcovlabError, match="sent a.gcda twice"):
        guest.parse_transfer(channel(sent("a.gcda", b"1"), sent("a.gcda", b"1")),
                             str(tmp_path / "c"))
    records = archived([("./a.gcda", b"1"), ("a.gcda", b"1")])
    with pytest.raises(GcovlabError, match="holds a.gcda twice"):
        guest.parse_transfer(archive_channel(records, 1), str(tmp_path / "c"))


def test_archive_and_single_files_do_not_mix(tmp_path):
    text = archive_channel(archived([("./a.gcda", b"1")]) + b"\n" + sent("b.gcda", b"2").encode(),
                           2)
    with pytest.raises(GcovlabError, match="archive and single files as well"):
        guest.parse_transfer(text, str(tmp_path / "c"))


def test_files_the_guest_could_not_read_are_reported(tmp_path, capsys):
    text = channel(sent("a.gcda", b"1")).replace("GCOVLAB-DONE 1", "GCOVLAB-DONE 1 3")
    assert guest.parse_transfer(text, str(tmp_path / "c"))[1] == {"a.gcda": b"1"}
    assert "found 3 .gcda files but could read only 1" in capsys.readouterr().err


# --- the cpio writer ---------------------------------------------------------

def read_newc(data):
    """An independent newc reader: [(name, mode, rdevmajor, rdevminor, data)]."""
    out, pos = [], 0
    while True:
        assert data[pos:pos + 6] == b"070701", "bad magic at %d" % pos
        f = [int(data[pos + 6 + 8 * k:pos + 14 + 8 * k], 16) for k in range(13)]
        namesize, filesize = f[11], f[6]
        name = data[pos + 110:pos + 110 + namesize - 1].decode()
        pos += 110 + namesize
        pos += -pos % 4
        body = data[pos:pos + filesize]
        pos += filesize
        pos += -pos % 4
        if name == "TRAILER!!!":
            assert pos == len(data)
            return out
        out.append((name, f[1], f[9], f[10], body))


def test_cpio_round_trip(tmp_path):
    c = guest.Cpio()
    c.dir("dev")
    c.chardev("dev/console", 5, 1)
    c.file("init", b"#!/bin/sh\necho hi\n", mode=0o755)
    c.file("odd", b"x" * 5)
    entries = read_newc(c.bytes())
    assert [e[0] for e in entries] == ["dev", "dev/console", "init", "odd"]
    assert entries[1][2:4] == (5, 1) and oct(entries[2][1]) == "0o100755"
    assert entries[3][4] == b"xxxxx"
    if shutil.which("cpio"):
        path = tmp_path / "a.cpio"
        path.write_bytes(c.bytes())
        listing = subprocess.run(["cpio", "-it"], stdin=open(path, "rb"),
                                 capture_output=True, text=True, check=True).stdout
        assert listing.split() == ["dev", "dev/console", "init", "odd"]


# --- command-line values -------------------------------------------------------

@pytest.mark.parametrize("text", ["", "gcov_persist=0", "a=1 b=2 quiet"])
def test_kernel_params_accepted(text):
    assert cli.kernel_params(text) == text


@pytest.mark.parametrize("text,why", [
    ("a  b", "single spaces"), ("a\tb", "printable"), ("x" * 513, "512"),
    ("console=ttyS1", "set by gcovlab"), ("panic=0 a=1", "set by gcovlab"),
    ("rdinit=/bin/sh", "set by gcovlab")])
def test_kernel_params_refused(text, why):
    with pytest.raises(argparse.ArgumentTypeError, match=why):
        cli.kernel_params(text)


@pytest.mark.parametrize("text", ["-1", "1.5", "seven", "", "0x3"])
def test_lab_number_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="whole number"):
        cli.lab_number(text)


def test_every_lab_has_a_configuration_and_its_patches():
    for number, lab in labs.load().items():
        config = labs.kernel_config(number)
        assert config in ("mainline", "lab", "lab-all", "lab-smp", "lab-debug"), config
        if lab["kernel"] == "series":
            assert len(labs.patches(number)) == lab["patches"] + bool(lab.get("lab_patch"))
            assert kbuild.vcpus(config) >= 1


# --- reset ---------------------------------------------------------------------

def test_spare_name_counts_up():
    taken = {"my-lab1.old-1", "my-lab1.old-2"}
    assert reset.spare_name(taken.__contains__, "my-lab1") == "my-lab1.old-3"


def test_lab_branches_are_the_page_s_own(tmp_path):
    repo = str(tmp_path / "t")
    subprocess.run(["git", "init", "-q", "-b", "baseline", repo], check=True)
    subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    for b in ["lab-1", "my-lab1", "my-lab1-before", "my-lab10", "my-lab1.old-1", "mine"]:
        subprocess.run(["git", "-C", repo, "branch", b], check=True)
    assert sorted(reset.lab_branches(repo, 1)) == ["my-lab1", "my-lab1-before"]
    assert reset.lab_branches(repo, 10) == ["my-lab10"]


def test_output_folder_made_by_gcovlab(tmp_path):
    run = tmp_path / "lab7" / "basic"
    run.mkdir(parents=True)
    assert not reset.made_by_gcovlab(str(tmp_path / "lab7"))
    (run / ".gcovlab-out").write_text("{}")
    assert reset.made_by_gcovlab(str(tmp_path / "lab7"))


# --- kernel configurations -------------------------------------------------------

def test_config_is_a_value():
    from gcovlablib.config import Config
    c = Config("lab", "smp")
    assert c == "lab-smp" and c.base == "lab" and c.variant == "smp"
    assert not c.is_mainline and c.profile_var == "GCOV" and c.vcpus == 2
    m = Config.parse("mainline-debug")
    assert m.is_mainline and m.variant == "debug" and m.profile_var == "GCOV_PROFILE"
    assert Config.parse("lab").variant is None and Config.parse("lab").vcpus == 1
    assert kbuild.fragments(Config("lab", "all"))[-1].endswith("all.config")
    for bad in [("lab", "huge"), ("linux", None)]:
        with pytest.raises(GcovlabError, match="unknown kernel"):
            Config(*bad)


def test_mainline_with_its_fix_is_mainline_from_its_own_tree(tmp_path, monkeypatch):
    """--fixed: mainline's gcov code and configuration, from the worktree
    with patches/mainline-fix/, in build directories of its own (never the
    '-baseline' ones of a tree without the series)."""
    from gcovlablib.config import Config
    from gcovlablib.work import Work
    monkeypatch.setenv("GCOVLAB_WORK", str(tmp_path / "w"))
    work = Work()
    f = Config.parse("fixed-debug")
    assert f.base == "fixed" and f.is_mainline and f.profile_var == "GCOV_PROFILE"
    assert f.vcpus == 2 and f.source(work) == work.fixed != work.mainline
    assert work.build_dir(f).endswith("/build/fixed-debug")
    assert work.build_dir(Config("fixed")).endswith("/build/fixed")
    assert kbuild.fragments(f) == kbuild.fragments(Config("mainline", "debug"))
    assert kbuild.fragments(Config("fixed")) == kbuild.fragments(Config("mainline"))
    from gcovlablib import tree
    names = [os.path.basename(p) for p in tree.fix_patches()]
    assert names and all(n.endswith(".patch") and not n.startswith("0000-") for n in names)


def test_a_tree_without_the_series_builds_in_a_directory_of_its_own(tmp_path, monkeypatch):
    from gcovlablib import work as workmod
    from gcovlablib.config import Config
    from gcovlablib.work import Work
    monkeypatch.setattr(workmod, "_KCONFIG", {})
    work = Work(str(tmp_path / "work"))
    build = tmp_path / "work" / "build"
    # No tree yet: nothing to ask, the baseline's directory.
    assert work.build_dir(Config("lab")) == str(build / "lab-baseline")
    tree = tmp_path / "work" / "linux"
    (tree / "init").mkdir(parents=True)
    (tree / "init" / "Kconfig").write_text("config CONSTRUCTORS\n\tbool\n")
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    subprocess.run(["git", "-C", str(tree), "add", "."], check=True)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@x", "-C", str(tree),
                    "commit", "-q", "-m", "tree"], check=True)
    # each step below is a command of its own: what one command learnt of
    # the Kconfig files (work.kconfig_options) does not carry over
    fresh = workmod._KCONFIG.clear
    assert work.build_dir(Config("lab")) == str(build / "lab-baseline")
    assert work.build_dir(Config("lab", "smp")) == str(build / "lab-smp-baseline")
    assert work.build_dir(Config("mainline")) == str(build / "mainline")
    # A Kconfig of the student's, not committed yet, that defines the
    # series' option: the tree is a lab tree from then on.  A mention of
    # the option (a 'depends on') is not a definition.
    (tree / "kernel").mkdir()
    (tree / "kernel" / "Kconfig.gcov").write_text("config OTHER\n\tdepends on GCOV_PROFILE\n")
    fresh()
    assert work.build_dir(Config("lab")) == str(build / "lab-baseline")
    # as Kconfig reads it: a blank or a comment after the name
    (tree / "kernel" / "Kconfig.gcov").write_text("config GCOV_PROFILE \t# gcov\n\tbool\n")
    fresh()
    assert work.build_dir(Config("lab")) == str(build / "lab")
    assert work.build_dir(Config("lab", "all")) == str(build / "lab-all")
    assert work.build_dir(Config("mainline", "all")) == str(build / "mainline-all")


def test_a_missing_program_is_named_not_a_traceback(tmp_path):
    from gcovlablib import util
    with pytest.raises(GcovlabError, match="gcov-dump is not installed.*Debian package gcc"):
        util.probe([str(tmp_path / "bin" / "gcov-dump"), "-l", "x.gcda"])
    with pytest.raises(GcovlabError, match="qemu-system-x86_64 is not installed"):
        util.spawn([str(tmp_path / "qemu-system-x86_64")])
    with pytest.raises(GcovlabError, match="does not exist"):
        util.probe(["true"], cwd=str(tmp_path / "gone"))
    # A failing command is an answer, not an error.
    assert util.probe(["sh", "-c", "echo out; echo err >&2; exit 3"]).returncode == 3


def test_lcov_records_counted_lines_and_branches(tmp_path):
    from gcovlablib import report
    info = tmp_path / "lcov.info"
    info.write_text("TN:t\nSF:/b/drv.c\nDA:3,1\nDA:4,0\nDA:5,7\n"
                    "BRDA:3,0,0,1\nBRDA:3,0,1,0\nBRDA:4,0,0,-\nBRDA:4,0,1,-\n"
                    "end_of_record\nSF:/b/lib/x.c\nDA:1,0\nend_of_record\n")
    assert report.coverage(str(info)) == {"/b/drv.c": (2, 3, 1, 4), "/b/lib/x.c": (0, 1, 0, 0)}
    assert report.summary_lines(str(info), "/b") == [
        "drv.c: lines hit 2 / 3 (66.7%), branches taken 1 / 4 (25.0%)",
        "lib/x.c: lines hit 0 / 1 (0.0%), branches taken 0 / 0 (0.0%)"]


def test_a_kernel_message_between_a_line_s_cr_and_lf_is_put_after_it(tmp_path):
    # the tty ends a workload line with "\r\n"; the kernel console can write
    # its message between the two, which left an empty line behind it and a
    # carriage return at the end of the workload's line
    console = tmp_path / "console.log"
    console.write_bytes(
        b"[    0.5] boot\r\ngcovlab: workload start\r\n"
        b"0000016 01000001 00000008\r"
        b"[    2.4] TSC found unstable after boot\r\n"
        b"[    2.5] sched_clock: Marking unstable (1, 2)<-(3, 4)\r\n"
        b"\n0000032 01000002 00000010\r\n"
        b"\r\n"
        b"last line\r\ngcovlab: workload end\r\n")
    assert runs.workload_output(str(console)).split("\n") == [
        "0000016 01000001 00000008",
        "[    2.4] TSC found unstable after boot",
        "[    2.5] sched_clock: Marking unstable (1, 2)<-(3, 4)",
        "0000032 01000002 00000010",
        "",
        "last line"]
    assert runs.workload_output(str(tmp_path / "none.log")) == ""


def test_an_smp_guest_gets_one_socket_per_vcpu():
    # Lab 10's SMP kernel has no ACPI: SeaBIOS's MP table lists the first
    # logical CPU of each package only, so two cores of one socket would
    # boot as one CPU (vm/smp.config)
    def smp(cpus):
        cmd = guest.qemu_cmd("bzImage", "initrd", "console", "transfer", "tcg", cpus=cpus)
        return cmd[cmd.index("-smp") + 1]
    assert smp(1) == "1"
    assert smp(2) == "2,sockets=2,cores=1,threads=1"
    assert smp(4) == "4,sockets=4,cores=1,threads=1"


def test_kconfig_options_of_the_tree_as_on_disk(tmp_path, monkeypatch):
    """work.kconfig_options: every option a Kconfig file defines (committed,
    changed or untracked), from one git grep kept for the rest of the
    command, asked again when git changes the tree."""
    from gcovlablib import work as workmod
    repo = tmp_path / "linux"
    repo.mkdir()

    def git(*args):
        subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@x", "-C", str(repo)]
                       + list(args), check=True, capture_output=True)
    git("init", "-q")
    (repo / "Kconfig").write_text("config A\n\tbool\n\tdepends on MENTIONED\n"
                                  "menuconfig B\n\tbool\n")
    (repo / "init").mkdir()
    (repo / "init" / "Kconfig").write_text("config C_1\n# config COMMENTED\n"
                                           "if C_1\n\tconfig\tINDENTED # a comment\nendif\n")
    (repo / "init" / "main.c").write_text("config NOT_KCONFIG\n")
    git("add", "-A")
    git("commit", "-q", "-m", "tree")
    grep_calls = []
    real_probe = workmod.probe

    def counting_probe(cmd, *a, **kw):
        if "grep" in cmd:
            grep_calls.append(cmd)
        return real_probe(cmd, *a, **kw)
    monkeypatch.setattr(workmod, "probe", counting_probe)
    monkeypatch.setattr(workmod, "_KCONFIG", {})
    src = str(repo)
    assert workmod.kconfig_options(src) == {"A", "B", "C_1", "INDENTED"}
    assert workmod.kconfig_defines(src, "B") and not workmod.kconfig_defines(src, "MENTIONED")
    assert len(grep_calls) == 1, "asked twice within one command"
    # a student's edit, committed or not, and a new file: seen by the next command
    (repo / "init" / "Kconfig").write_text("config C_1\nconfig GCOV_PROFILE\n")
    (repo / "kernel").mkdir()
    (repo / "kernel" / "Kconfig.gcov").write_text("config GCOV_PROFILE_ALL\n")
    workmod._KCONFIG.clear()
    assert workmod.kconfig_options(src) == {"A", "B", "C_1", "GCOV_PROFILE", "GCOV_PROFILE_ALL"}
    # git changing the tree within the command (a commit, a checkout): asked again
    git("add", "-A")
    git("commit", "-q", "-m", "edits")
    git("rm", "-q", "kernel/Kconfig.gcov")
    assert workmod.kconfig_options(src) == {"A", "B", "C_1", "GCOV_PROFILE"}
    assert len(grep_calls) == 3
    with pytest.raises(GcovlabError, match="git grep"):
        workmod.kconfig_options(str(tmp_path))


def diffs_by_file(path):
    """{file: its diff text from "diff --git" on, without the index line}."""
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n-- \n")[0]
    out = {}
    for part in text.split("\ndiff --git ")[1:]:
        name = part.split()[0][2:]
        out[name] = "\n".join(line for line in part.split("\n")
                              if not line.startswith("index "))
    return out


def test_lab_patches_are_hunks_of_the_series():
    """A lab's own patch (Lab 9's: the option before x86's exclusions) is
    made of hunks of the series' next patch, file for file, so that the
    exercise's finished state (that patch applied without those files)
    is the series' own."""
    found = 0
    for number, lab in labs.load().items():
        if not lab.get("lab_patch"):
            continue
        found += 1
        mine = diffs_by_file(os.path.join(labs.REPO, lab["lab_patch"]))
        nxt = os.path.join(labs.REPO, "patches", labs.series_patches()[lab["patches"]])
        theirs = diffs_by_file(nxt)
        assert mine and set(mine) < set(theirs), (sorted(mine), sorted(theirs))
        for name, diff in mine.items():
            assert diff == theirs[name], "%s: %s differs from %s" % (
                lab["lab_patch"], name, os.path.basename(nxt))
        assert labs.lab_patch_files(number) == sorted(mine) or \
            set(labs.lab_patch_files(number)) == set(mine)
    assert found == 1


def test_env_prints_the_work_directory_the_tool_uses(tmp_path, monkeypatch, capsys):
    """The pages' first command, eval "$(vm/gcovlab env)": GCOVLAB_WORK as
    set (its real path), or the default under HOME; a shell that
    evaluates the line gets the same directory."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GCOVLAB_WORK", raising=False)
    assert cli.main(["env"]) == 0
    default = str(tmp_path / "home" / ".cache" / "gcov-kernel-labs")
    assert capsys.readouterr().out == "export GCOVLAB_WORK=%s\n" % default
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    monkeypatch.setenv("GCOVLAB_WORK", str(tmp_path / "link"))
    assert cli.main(["env"]) == 0
    line = capsys.readouterr().out
    assert line == "export GCOVLAB_WORK=%s\n" % (tmp_path / "real")
    shell = subprocess.run(["bash", "-c", line + 'echo "$GCOVLAB_WORK"'],
                           capture_output=True, text=True, check=True)
    assert shell.stdout.strip() == str(tmp_path / "real")
    assert not (tmp_path / "home").exists(), "env created something"


def test_a_commit_in_the_tree_works_without_a_git_identity(tmp_path, monkeypatch):
    """A fresh account: the tree's repository gets a stand-in identity, so
    that the pages' 'git commit' works; once the student sets their own in
    ~/.gitconfig, the stand-in goes and their own is used."""
    from gcovlablib import tree as treemod
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    repo = tmp_path / "linux"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def commit():
        return subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty",
                               "-m", "x"], capture_output=True, text=True)

    def author():
        return subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%an <%ae>"],
                              capture_output=True, text=True, check=True).stdout.strip()

    treemod.student_identity(str(repo))
    assert commit().returncode == 0
    assert author() == "%s <%s>" % (treemod.STUDENT_NAME, treemod.STUDENT_EMAIL)
    treemod.student_identity(str(repo))         # again: nothing changes
    assert treemod.config_get(str(repo), "user.name") == treemod.STUDENT_NAME
    # another account with an identity of its own (an instructor, a test
    # runner) leaves the student's stand-in alone
    other = tmp_path / "other"
    other.mkdir()
    (other / ".gitconfig").write_text("[user]\n\tname = Cy\n\temail = cy@example.org\n")
    monkeypatch.setenv("HOME", str(other))
    treemod.student_identity(str(repo))
    assert treemod.config_get(str(repo), "user.name") == treemod.STUDENT_NAME
    monkeypatch.setenv("HOME", str(home))
    (home / ".gitconfig").write_text("[user]\n\tname = Ada\n\temail = ada@example.org\n")
    treemod.student_identity(str(repo))
    assert treemod.config_get(str(repo), treemod.IDENTITY_MARK) is None
    assert commit().returncode == 0
    assert author() == "Ada <ada@example.org>"
    # an identity the student set in the tree itself is theirs: kept
    (home / ".gitconfig").unlink()
    subprocess.run(["git", "-C", str(repo), "config", "user.name", "Bo"], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "user.email", "bo@example.org"], check=True)
    treemod.student_identity(str(repo))
    assert author() == "Ada <ada@example.org>" and commit().returncode == 0
    assert author() == "Bo <bo@example.org>"
