# SPDX-License-Identifier: GPL-2.0
"""Lab 7: the series' debugfs export (patches 0001-0006).

- mainline equality: the sample driver's .gcda from the Lab 7 kernel is
  byte-identical to mainline's but for the header's checksum word (same
  build path, same -frandom-seed);
- reads with chunk sizes 1, 7 and 4096 and from an offset give the same
  bytes; a write zeroes the counters; the file is mode 0600;
- persistence: after rmmod the file stays (a ghost), and two more
  load/unload cycles add up: the counts equal three single runs;
  gcov_persist=0 removes the file with the module, an invalid value is
  refused with a message and the default kept; a changed module with the
  same object name and stamp is not revived;
- a write to gcov/reset zeroes everything; a reader holding the file open
  across unload and reload gets the image made at open and crashes
  nothing; another user is refused by the file's mode 0600 alone;
- the KUnit suite of patch 0008 passes in the Lab 7 kernel.
"""

import os
import re
import shutil
import subprocess

import pytest

from conftest import DATA, DRIVER, REPO, check_stress, gcovlab, ok

LAB7 = os.path.join(DATA, "lab7")
# what the Lab 7 page has the student run, kept with the lab
STUDENT7 = os.path.join(REPO, "labs", "lab07")


STRESS = os.path.join(REPO, "labs", "lab11")


@pytest.fixture(scope="module")
def at_lab0_after(tree):
    yield
    ok(gcovlab("lab", "0"))


def counts(path):
    out = subprocess.run(["gcov-dump", "-l", str(path)], text=True, capture_output=True,
                         check=True).stdout
    return [int(v) for m in re.finditer(r"^\S+:\s+\d+: ((?:-?\d+ ?)+)$", out, re.M)
            for v in m.group(1).split()]


def gcda(out):
    found = [os.path.join(d, f) for d, _s, fs in os.walk(out / "gcda") for f in fs
             if f == "gcovdemo.gcda"]
    assert len(found) == 1, found
    return found[0]


def test_sample_driver_equals_mainline(at_lab0_after, tmp_path):
    proc = gcovlab("compare", "--lab", "7", "--module", DRIVER, "--workload",
                   os.path.join(DRIVER, "workload-full.sh"), "--out", tmp_path / "cmp")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # v3 writes the object's checksum in the header, mainline 0: the one
    # word allowed to differ.
    assert re.search(r"identical but for the header's checksum word \(\d+ bytes; mainline "
                     r"writes 0 there\): .*gcovdemo\.gcda", proc.stdout), proc.stdout
    assert "1 of 1 .gcda file identical to mainline's" in proc.stdout
    # The series kernel's own profiled objects (patch 0008's KUnit test
    # objects) are named, not compared, and do not fail the comparison.
    own = re.findall(r"^the kernel's own, only in lab 7 \(not compared\): (\S+)$",
                     proc.stdout, re.M)
    assert [os.path.basename(p) for p in own] == ["test_profiled.gcda"], proc.stdout
    # The workload repeats itself, so counter values were compared too.
    assert "it does: both mainline runs gave the same bytes" in proc.stdout
    # Mainline's -fprofile-update=prefer-atomic (part 3 adds it to the
    # series) changes nothing for a single-threaded workload.
    assert ("counter updates: mainline compiled the module with "
            "-fprofile-update=prefer-atomic, lab 7 with plain (non-atomic) updates"
            in proc.stdout)


def test_out_of_line_header_function_equal_once_masked(at_lab0_after, tmp_path):
    """list_empty() emitted out of line carries the kernel tree's path in its
    checksums: not byte-identical, but record by record equal, counts too."""
    ool = os.path.join(REPO, "labs", "lab07", "outofline")
    out = tmp_path / "ool"
    proc = gcovlab("compare", "--lab", "7", "--module", ool, "--workload",
                   os.path.join(ool, "workload.sh"), "--out", out)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"equal records \(\d+ bytes; stamp, checksums and ident masked\): "
                     r".*outofline\.gcda", proc.stdout)
    assert "0 of 1 .gcda file identical to mainline's, 1 with equal records" in proc.stdout
    files = [os.path.join(d, f) for d, _s, fs in os.walk(out) for f in fs
             if f == "outofline.gcda" and "gcda" in d]
    mine = [f for f in files if "/gcda/" in f][0]
    ref = [f for f in files if "/gcda-mainline/" in f][0]
    with open(mine, "rb") as f1, open(ref, "rb") as f2:
        assert f1.read() != f2.read()


def test_compare_unsteady_workload_structure_only(at_lab0_after, tmp_path):
    """A workload that does not repeat itself on mainline: its counts are not
    compared (only the structure), and the compare still passes."""
    out = tmp_path / "unsteady"
    proc = gcovlab("compare", "--lab", "7", "--module", DRIVER, "--workload",
                   os.path.join(LAB7, "unsteady.sh"), "--out", out)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "the workload does not repeat itself on mainline" in proc.stdout
    assert "counts not compared" in proc.stdout


@pytest.fixture(scope="module")
def reads(at_lab0_after, tmp_path_factory):
    out = tmp_path_factory.mktemp("lab7") / "reads"
    proc = ok(gcovlab("run", "--lab", "7", "--module", DRIVER, "--workload",
                      os.path.join(STUDENT7, "reads.sh"), "--out", out))
    return out, proc.stdout


def test_reads_of_any_size_agree(reads):
    _, stdout = reads
    for bs in (1, 7, 4096):
        assert re.search(r"lab7: bs=%d same \d+ bytes" % bs, stdout)
    assert "lab7: offset read same" in stdout
    assert re.search(r"lab7: file /sys/kernel/debug/gcov/\S+/gcovdemo\.gcda mode 600", stdout)


def test_write_resets(reads):
    assert "lab7: reset ok" in reads[1]


def test_ghost_kept_and_revived(reads, tmp_path):
    out, stdout = reads
    assert "lab7: ghost kept" in stdout
    assert "lab7: ghost discarded" in stdout
    assert "lab7: revived 1" in stdout
    once = tmp_path / "once"
    ok(gcovlab("run", "--lab", "7", "--module", DRIVER, "--workload",
               os.path.join(LAB7, "once.sh"), "--out", once))
    single = counts(gcda(once))
    # reads.sh: after the ghost is discarded, two load/calc/unload cycles.
    assert counts(gcda(out)) == [2 * v for v in single]
    assert any(single)


def run7(tmp_path, workload, *extra):
    """Run a Lab 7 workload: the page's own (labs/lab07) or the tests'."""
    out = tmp_path / workload
    script = os.path.join(STUDENT7, workload + ".sh")
    if not os.path.exists(script):
        script = os.path.join(LAB7, workload + ".sh")
        extra += ("--file", os.path.join(LAB7, "common.sh"))
    proc = ok(gcovlab("run", "--lab", "7", "--module", DRIVER, "--workload",
                      script, "--out", out, *extra))
    with open(out / "console.log", encoding="utf-8", errors="replace") as f:
        return out, proc.stdout, f.read()


def kernel_own(path):
    """The lab kernel's own profiled object, patch 0008's KUnit test object
    (kernel/gcov/test_profiled.c), which every Lab 7 kernel exports."""
    return "/kernel/gcov/test_profiled" in path


def test_kunit_suite_passes(reads):
    """Every KUNIT_CASE of patch 0008's gcov_gcc_12 suite reports ok on the
    lab kernel; none fails or is skipped.  (The gcov_fs and gcov_base
    suites run on the debug kernel only, vm/lab-debug.config.)"""
    out, _ = reads
    patch = [p for p in os.listdir(os.path.join(REPO, "patches")) if "KUnit" in p]
    assert len(patch) == 1, patch
    with open(os.path.join(REPO, "patches", patch[0]), encoding="utf-8") as f:
        text = f.read()
    suites = {}
    for part in text.split("\ndiff --git a/")[1:]:
        name = re.search(r'^\+\t\.name = "(\w+)",$', part, re.M)
        if name:
            suites[name.group(1)] = re.findall(r"^\+\tKUNIT_CASE\((\w+)\),$", part, re.M)
    assert set(suites) == {"gcov_gcc_12", "gcov_fs", "gcov_base"}, suites
    with open(out / "console.log", encoding="utf-8", errors="replace") as f:
        log = f.read()
    passed = re.findall(r"^\[[ \d.]+\]\s+ok \d+ (\w+)$", log, re.M)
    assert "# Subtest: gcov_fs" not in log and "# Subtest: gcov_base" not in log
    for suite, cases in suites.items():
        assert cases, suite
        if suite != "gcov_gcc_12":
            continue
        assert set(cases) <= set(passed), (suite, log[-3000:])
        assert re.search(r"# %s: pass:%d fail:0 skip:0 total:%d" %
                         (suite, len(cases), len(cases)), log), (suite, log[-3000:])
    assert len(suites["gcov_gcc_12"]) >= 9
    assert "not ok" not in log


def test_persist_0_removes_file_with_module(at_lab0_after, tmp_path):
    _, stdout, console = run7(tmp_path, "persist", "--append", "gcov_persist=0")
    assert "gcov: gcov_persist=0" in console
    assert "lab7: expecting: gone" in stdout
    assert "lab7: after rmmod: gone" in stdout
    assert "lab7: reloaded" in stdout


def test_persist_invalid_value_keeps_default(at_lab0_after, tmp_path):
    _, stdout, console = run7(tmp_path, "persist", "--append", "gcov_persist=maybe")
    assert "gcov: invalid gcov_persist=maybe, keeping 1" in console
    assert "lab7: after rmmod: ghost" in stdout


def test_changed_module_not_revived(at_lab0_after, tmp_path):
    """Same object name, same stamp (-frandom-seed), other code: the ghost's
    counters are dropped, and the file holds only the new module's run."""
    out = tmp_path / "changed"
    proc = ok(gcovlab("run", "--lab", "7", "--module", DRIVER, "--module-v2",
                      os.path.join(STUDENT7, "changed"), "--random-seed", "lab7",
                      "--workload", os.path.join(STUDENT7, "changed.sh"), "--out", out))
    stamps = re.findall(r"lab7: (?:ghost|v2) stamp (\w+)", proc.stdout)
    assert len(stamps) == 2 and stamps[0] == stamps[1], proc.stdout
    assert "changed since it was unloaded, old counters dropped" in proc.stdout
    assert "counters continue" not in proc.stdout
    dump = subprocess.run(["gcov-dump", "-l", gcda(out)], text=True, capture_output=True,
                          check=True).stdout
    # The changed module has two functions (init, exit), each run once.
    assert dump.count(":FUNCTION ") == 2, dump
    assert counts(gcda(out)) == [1, 1, 1, 3, 1], dump


def test_global_reset_zeroes_all(at_lab0_after, tmp_path):
    out, stdout, _ = run7(tmp_path, "reset-all")
    assert "lab7: gcov/reset written" in stdout
    values = counts(gcda(out))
    assert values and not any(values)


@pytest.mark.parametrize("persist", ["1", "0"])
def test_reader_open_across_unload(at_lab0_after, tmp_path, persist):
    _, stdout, console = run7(tmp_path, "open-reader", "--append", "gcov_persist=" + persist)
    assert "lab7: unloaded with the file open" in stdout
    assert re.search(r"lab7: the open file read \d+ bytes, as at open", stdout)
    assert "lab7: no oops" in stdout
    for bad in ("BUG:", "Oops", "WARNING:", "general protection"):
        assert bad not in console


def test_other_user_refused_by_file_mode(at_lab0_after, tmp_path):
    _, stdout, _ = run7(tmp_path, "nonroot")
    assert "lab7: mode 600, debugfs root 755" in stdout
    assert re.search(r"lab7: nobody: .*Permission denied", stdout)
    assert "lab7: nobody cannot reset either" in stdout
    assert re.search(r"lab7: root reads \d+ bytes", stdout)


def test_compare_finds_a_difference(at_lab0_after, tmp_path):
    """Counts that differ between the kernels make the compare fail and show
    where."""
    out = tmp_path / "differs"
    proc = gcovlab("compare", "--lab", "7", "--module", DRIVER, "--workload",
                   os.path.join(LAB7, "kernel-dependent.sh"), "--out", out)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "it does: both mainline runs gave the same bytes" in proc.stdout
    assert re.search(r"DIFFERENT: \S+gcovdemo\.gcda", proc.stdout)
    assert re.search(r"^-\s+\d+:( \d+)+ ?$", proc.stdout, re.M)
    assert "0 of 1 .gcda file identical to mainline's, 1 different" in proc.stdout


# --- series v2: the bugs a review found in v1, each with its test ----------


@pytest.mark.parametrize("persist", ["1", "0"])
def test_stress_keeps_making_progress(at_lab0_after, tmp_path, persist):
    """Bug 1: debugfs_remove() under gcov_lock against an opener hung v1
    (loads, unloads, three readers and two resetters at once stopped within
    seconds).  On v2 every worker finishes, on one vCPU (two: Lab 10)."""
    out = tmp_path / "stress"
    proc = gcovlab("run", "--lab", "7", "--module", STRESS, "--workload",
                   os.path.join(STRESS, "stress.sh"), "--out", out, "--timeout", "180",
                   "--append", "STRESS_SECONDS=20 gcov_persist=" + persist)
    check_stress(out, proc, cpus=1)


def test_stale_fd_cannot_reach_a_new_file(at_lab0_after, tmp_path):
    """Bug 2: v1 judged a file alive by its address; a write through an fd
    opened before the file went reset the counters of the file made later
    at the same address."""
    _, stdout, _ = run7(tmp_path, "liveness")
    assert "lab7: stale write refused" in stdout
    assert "lab7: counters of the new module kept" in stdout


def test_same_name_objects_are_summed_and_tree_copies(at_lab0_after, tmp_path):
    """Bug 9: a second object with the same file name was dropped (mainline
    sums the copies); gcov/reset could not be read, so cp -r failed."""
    out = tmp_path / "same"
    proc = ok(gcovlab("run", "--lab", "7", "--module", STRESS, "--workload",
                      os.path.join(LAB7, "same-name.sh"), "--out", out))
    assert "shared.gcda: 2 copies loaded, the file shows their sum" in proc.stdout
    assert "lab7: cp -r of gcov/ ok" in proc.stdout
    alone = tmp_path / "alone"
    workload = tmp_path / "alone.sh"
    workload.write_text("#!/bin/sh\ninsmod stressa.ko rounds=10\n")
    ok(gcovlab("run", "--lab", "7", "--module", STRESS, "--workload", workload,
               "--out", alone))

    def shared(where):
        found = [os.path.join(d, "shared.gcda") for d, _s, fs in os.walk(where / "gcda")
                 if "shared.gcda" in fs]
        assert len(found) == 1, found
        return counts(found[0])
    # rounds=10 in stressa, 7 in stressb: the sum has both runs in it.
    single, both = shared(alone), shared(out)
    assert len(single) == len(both) and any(single)
    assert all(b >= s for s, b in zip(single, both)) and both != single


def test_dot_and_dotdot_components_exported(at_lab0_after, tmp_path):
    """Bug 6: "." and ".." in an object's path (GCC keeps them) made
    debugfs_create_dir() fail, and v1 silently exported nothing."""
    out = tmp_path / "dotdot"
    mod = os.path.join(DATA, "dotdot-mod")
    proc = ok(gcovlab("run", "--lab", "7", "--module", mod, "--workload",
                      os.path.join(mod, "workload.sh"), "--out", out))
    exported = [p for p in re.findall(r"lab7: exported /sys/kernel/debug/gcov(\S+)",
                                      proc.stdout) if not kernel_own(p)]
    names = sorted(os.path.basename(p) for p in exported)
    assert names == ["helper.gcda", "main.gcda"], proc.stdout
    for path in exported:
        parts = path.split("/")[1:]
        assert "." not in parts and ".." not in parts and "" not in parts, path
    assert "not exported" not in proc.stdout


def test_memory_per_open_is_one_image(at_lab0_after, tmp_path):
    """Bug 8: v1 served reads through single_open_size() with exactly the
    image size, one byte short of what seq_write() needs: the buffer was
    reallocated at twice the size on the first read, and each open held
    about three copies of the image.  v2 keeps one image per open."""
    mod = tmp_path / "big"
    mod.mkdir()
    (mod / "Kbuild").write_text("obj-m += big.o\n")
    funcs = 1500
    body = ["#include <linux/module.h>", ""]
    for i in range(funcs):
        body.append("static noinline int big_%d(int x)\n{\n\treturn x > %d ? x - %d : x + 1;\n}\n"
                    % (i, i, i))
    body.append("static int __init big_init(void)\n{\n\tint x = 0;\n")
    body += ["\tx += big_%d(x);" % i for i in range(funcs)]
    body.append("\tpr_info(\"big: %d\\n\", x);\n\treturn 0;\n}\nmodule_init(big_init);\n"
                "\nstatic void __exit big_exit(void)\n{\n}\nmodule_exit(big_exit);\n"
                "MODULE_LICENSE(\"GPL\");\n")
    (mod / "big.c").write_text("\n".join(body))
    proc = ok(gcovlab("run", "--lab", "7", "--module", mod, "--workload",
                      os.path.join(LAB7, "memory-per-open.sh"), "--out", tmp_path / "out"))
    m = re.search(r"memory: image (\d+) bytes, per open (-?\d+) bytes", proc.stdout)
    assert m, proc.stdout[-3000:]
    image, per_open = int(m.group(1)), int(m.group(2))
    print("lab7: .gcda image %d bytes, memory per open %d bytes (%.2f images)" % (
        image, per_open, per_open / image))
    assert image > 50000, "the module's image is too small to measure"
    # One buffer per open: kvmalloc() of the image, which kmalloc() serves
    # from a block of 2^k pages.  v1's seq_file buffer was reallocated at
    # twice the image size on the first read, so it held a block twice as
    # big, and more: measured, 66096-byte image, 128-182 KiB per open on
    # v2, 378 KiB on v1.  MemFree moves on its own: hence the margin.
    block = 4096
    while block < image:
        block *= 2
    assert per_open < 2 * block, (image, block, per_open)


def test_two_spellings_of_one_path_are_one_file(at_lab0_after, tmp_path):
    """Review of v2: files were looked up by the name GCC gave them, but
    placed by the resolved path; a second spelling of a path whose file
    existed (a ghost left by the first) was refused by debugfs with
    -EEXIST, and the stale ghost stayed in its place."""
    v2 = tmp_path / "dotdot-v2"
    shutil.copytree(os.path.join(DATA, "dotdot-mod"), v2)
    (v2 / "Kbuild").write_text("obj-m := dotdot.o\ndotdot-y := main.o helper.o\n")
    out = tmp_path / "out"
    proc = ok(gcovlab("run", "--lab", "7", "--module", os.path.join(DATA, "dotdot-mod"),
                      "--module-v2", v2, "--workload",
                      os.path.join(LAB7, "spellings.sh"), "--out", out))
    assert "not exported" not in proc.stdout, proc.stdout[-3000:]
    exported = sorted(os.path.basename(p) for p in re.findall(
        r"lab7: exported (\S+)", proc.stdout) if not kernel_own(p))
    assert exported == ["helper.gcda", "main.gcda"], proc.stdout[-3000:]
    # The names differ, so the ghosts are not the same object: their
    # counters go, and the files show the second module's.
    # (Each message shows twice: on the console and in the workload's dmesg.)
    assert re.findall(r"(?:\./)?main\.gcda: changed since it was unloaded", proc.stdout)
    assert re.findall(r"helper\.gcda: changed since it was unloaded", proc.stdout)
