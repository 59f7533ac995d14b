# SPDX-License-Identifier: GPL-2.0
"""End to end on the mainline kernel: the sample driver's coverage comes
back intact, gcov and gcov-dump read it without a warning, chosen lines
carry the exact counts the workloads imply, and the second workload
covers more than the first.  Also a driver that is not the sample."""

import hashlib
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import DATA, DRIVER, REPO, gcovlab, ok


def run_driver(out, workload, module=DRIVER, *extra):
    return gcovlab("run", "--mainline", "--module", module,
                   "--workload", os.path.join(module, workload), "--out", out, *extra)


@pytest.fixture(scope="module")
def basic(mainline, tmp_path_factory):
    out = tmp_path_factory.mktemp("basic") / "out"
    proc = ok(run_driver(out, "workload-basic.sh"))
    return out, proc


@pytest.fixture(scope="module")
def full(mainline, tmp_path_factory):
    out = tmp_path_factory.mktemp("full") / "out"
    proc = ok(run_driver(out, "workload-full.sh"))
    return out, proc


def gcov_counts(out, tmp_path, source="gcovdemo.c"):
    """Run gcov on the collected data; return {source line text: [counts]}.

    gcov must read the files without a word on stderr and without a
    warning; '#####' (never ran) is returned as 0, '-' lines are left out.
    """
    build = os.path.join(out, "build")
    proc = subprocess.run(["gcov", "-o", build, os.path.join(build, source)],
                          cwd=tmp_path, text=True, capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr
    assert "warning" not in proc.stdout.lower() and "cannot" not in proc.stdout.lower()
    counts = {}
    with open(tmp_path / (source + ".gcov")) as f:
        for line in f:
            count, lineno, text = line.split(":", 2)
            count = count.strip().rstrip("*")
            if int(lineno) and count != "-":
                counts.setdefault(text.strip(), []).append(0 if count == "#####" else int(count))
    return counts


def only(counts, text):
    assert text in counts, text
    assert len(counts[text]) == 1, (text, counts[text])
    return counts[text][0]


def test_out_has_every_promised_file(basic):
    out, proc = basic
    for name in ("gcda", "console.log", "lcov.info", "html/index.html", "status",
                 "summary.txt", "transfer.log", "coverage.xml", "coverage.json"):
        assert os.path.exists(os.path.join(out, name)), name
    assert (out / "status").read_text() == "0\n"
    assert "HTML report: %s" % os.path.join(out, "html", "index.html") in proc.stdout


def test_gcda_mirrors_the_build_path(basic):
    out, _ = basic
    gcda = os.path.join(out, "gcda", str(out).lstrip("/"), "build", "gcovdemo.gcda")
    assert os.path.isfile(gcda)
    # Mainline's .gcno symlinks dangle in the guest: none came across.
    for dirpath, _d, files in os.walk(os.path.join(out, "gcda")):
        assert all(f.endswith(".gcda") for f in files), files


def test_transfer_checksums_match(basic):
    """Every file's size and sha256 as the guest listed them (one archive
    of them all, vm/init.sh) match the file that landed in gcda/."""
    out, _ = basic
    data = (out / "transfer.log").read_bytes()
    # the archive travels as raw bytes of the announced size: cut them out
    head = re.search(rb"^GCOVLAB-ARCHIVE (\d+) ([0-9a-f]{64})\n", data, re.M)
    assert head
    archive = data[head.end():head.end() + int(head.group(1))]
    assert hashlib.sha256(archive).hexdigest() == head.group(2).decode()
    text = (data[:head.end()] + data[head.end() + len(archive):]).decode()
    assert "\nGCOVLAB-END\nGCOVLAB-SIZES\n" in text
    sizes = dict((n, s) for s, n in re.findall(r"^(\d+) \./(.+?)\r?$", text, re.M))
    sums = dict((n, d) for d, n in re.findall(r"^([0-9a-f]{64})  \./(.+?)\r?$", text, re.M))
    assert sizes and set(sizes) == set(sums)
    for rel in sizes:
        with open(os.path.join(out, "gcda", rel), "rb") as f:
            data = f.read()
        assert len(data) == int(sizes[rel]) and hashlib.sha256(data).hexdigest() == sums[rel]


def test_file_by_file_transfer_brings_the_same_files(basic, tmp_path):
    """The guest's fallback, each file on its own (used when a file cannot
    be read whole; forced here by a kernel parameter), brings the same
    files as the archive, each checked on arrival."""
    out, _ = basic
    each = tmp_path / "each"
    proc = ok(run_driver(each, "workload-basic.sh", DRIVER, "--random-seed", "x",
                         "--append", "gcovlab.transfer=each"))
    assert "sending them one by one" in (each / "console.log").read_text()
    assert re.search(r"^GCOVLAB-FILE \d+ [0-9a-f]{64} \S+\r?$",
                     (each / "transfer.log").read_text(), re.M)
    assert b"GCOVLAB-ARCHIVE" not in (each / "transfer.log").read_bytes()

    def names(root):
        return sorted(os.path.relpath(os.path.join(d, f), root)
                      for d, _s, fs in os.walk(root) for f in fs)
    assert [n.replace(str(each).lstrip("/"), "OUT") for n in names(each / "gcda")] == \
        [n.replace(str(out).lstrip("/"), "OUT") for n in names(out / "gcda")]
    received = re.search(r"(\d+) \.gcda files? received", proc.stdout)
    assert received and int(received.group(1)) == len(names(each / "gcda"))


def test_gcov_dump_reads_without_warning(basic):
    out, _ = basic
    proc = subprocess.run(["gcov-dump", "-l", os.path.join(out, "build", "gcovdemo.gcda")],
                          text=True, capture_output=True)
    assert proc.returncode == 0 and proc.stderr == ""
    assert "magic `gcda':version `B22*'" in proc.stdout
    assert proc.stdout.count("FUNCTION ident=") >= 7
    assert "warning" not in proc.stdout.lower()


# The counts each workload implies, line by line of gcovdemo.c.
#
# workload-basic.sh: "2 3 +" then "4 *": two writes, five tokens, five
# pushes (2, 3, 5, 4, 20), one addition, one multiplication, no error.
#
# workload-full.sh: twelve writes, one of them too long to reach
# copy_from_user(); '+' applied in "2 3 +" and "dup drop dup +" (the lone
# "+" on an empty stack stops before the switch); one division by zero;
# six rejected tokens; one unload.
EXACT_COUNTS = {
    "basic": {
        "err = calc_token(tok);": 5,
        "calc.stack[calc.depth++] = value;": 5,
        "result = a + b;": 1,
        "result = a * b;": 1,
        "result = a - b;": 0,
        "result = a / b;": 0,
        "return -EDOM;": 0,
        "calc.errors++;": 0,
        "if (len >= sizeof(line))": 2,
        "if (copy_from_user(line, ubuf, len))": 2,
        "misc_deregister(&gcovdemo_dev);": 0,
    },
    "full": {
        "result = a + b;": 2,
        "result = a - b;": 1,
        "result = a * b;": 1,
        "result = a / b;": 1,
        "return -EDOM;": 1,
        "calc.errors++;": 6,
        "if (len >= sizeof(line))": 12,
        "if (copy_from_user(line, ubuf, len))": 11,
        "misc_deregister(&gcovdemo_dev);": 1,
    },
}


@pytest.mark.parametrize("workload", sorted(EXACT_COUNTS))
def test_workload_exact_counts(request, workload, tmp_path):
    out, _ = request.getfixturevalue(workload)
    counts = gcov_counts(out, tmp_path)
    got = {line: only(counts, line) for line in EXACT_COUNTS[workload]}
    assert got == EXACT_COUNTS[workload]


def test_second_workload_raises_coverage(basic, full):
    def hit(out):
        line = (out / "summary.txt").read_text()
        m = re.match(r"gcovdemo\.c: lines hit (\d+) / (\d+)", line)
        return int(m.group(1)), int(m.group(2))
    b, f = hit(basic[0]), hit(full[0])
    assert b[1] == f[1]
    assert b[0] < f[0] == f[1]


def test_branches_in_every_report_and_the_ci_files_agree_with_lcov(basic, full):
    """lcov's branch records, genhtml's branch view, summary.txt's branch
    count, and gcovr's Cobertura XML and JSON for CI systems: the same
    lines hit and branches taken as lcov.info; the full workload takes
    more branches than the basic one."""
    taken = {}
    for name, (out, proc) in (("basic", basic), ("full", full)):
        info = (out / "lcov.info").read_text()
        brda = [line.split(",")[3] for line in info.splitlines() if line.startswith("BRDA:")]
        hit = sum(1 for line in info.splitlines()
                  if line.startswith("DA:") and int(line.split(",")[1]) > 0)
        assert len(brda) > 10
        taken[name] = sum(1 for t in brda if t != "-" and int(t) > 0)
        assert "Branches" in (out / "html" / "index.html").read_text()
        m = re.match(r"gcovdemo\.c: lines hit (\d+) / (\d+) \([\d.]+%\), "
                     r"branches taken (\d+) / (\d+)", (out / "summary.txt").read_text())
        assert m and int(m.group(3)) == taken[name] and int(m.group(4)) == len(brda), \
            (out / "summary.txt").read_text()
        assert "branches taken %d / %d" % (taken[name], len(brda)) in proc.stdout
        root = ET.parse(out / "coverage.xml").getroot()
        assert root.tag == "coverage"
        assert int(root.get("branches-covered")) == taken[name]
        assert int(root.get("branches-valid")) == len(brda)
        assert int(root.get("lines-covered")) == hit
        files = {f["file"]: f for f in json.loads((out / "coverage.json").read_text())["files"]}
        assert list(files) == ["gcovdemo.c"], list(files)
        lines = files["gcovdemo.c"]["lines"]
        assert sum(1 for line in lines if line["count"] > 0) == hit
        assert sum(1 for line in lines for b in line["branches"] if b["count"] > 0) == \
            taken[name]
    assert taken["basic"] < taken["full"]


def test_lcov_info_counts_agree_with_gcov(basic, tmp_path):
    out, _ = basic
    info = (out / "lcov.info").read_text()
    assert "SF:%s" % os.path.join(out, "build", "gcovdemo.c") in info
    assert "/include/" not in info          # --no-external: no kernel headers
    log = (out / "lcov.log").read_text()
    assert "WARNING" not in log.upper().replace("SUBROUTINE", "")


def test_sample_driver_directory_left_untouched(basic):
    produced = [f for f in os.listdir(DRIVER)
                if f.endswith((".o", ".ko", ".gcno", ".gcda", ".mod", ".mod.c", ".order", ".symvers"))]
    assert produced == []


def test_rerun_into_same_out_replaces_results(basic):
    out, _ = basic
    proc = ok(run_driver(out, "workload-basic.sh"))
    assert "1 .gcda file received" in proc.stdout


def test_a_driver_that_is_not_the_sample(mainline, tmp_path):
    out = tmp_path / "hello"
    proc = ok(run_driver(out, "workload.sh", os.path.join(DATA, "hello-mod")))
    assert "hello: 5 rounds, 3 even" in proc.stdout
    assert "hello.c: lines hit" in proc.stdout
    gcda = os.path.join(out, "gcda", str(out).lstrip("/"), "build", "hello.gcda")
    assert os.path.isfile(gcda)
    c = gcov_counts(out, tmp_path, "hello.c")
    assert c["even++;"] == [3]
    assert c["pr_info(\"hello: bye\\n\");"] == [1]



def test_module_in_two_objects_and_a_subdirectory(mainline, tmp_path):
    out = tmp_path / "multi"
    proc = ok(run_driver(out, "workload.sh", os.path.join(DATA, "multi-mod")))
    assert "multi: sum of squares below 6 is 55" in proc.stdout
    base = os.path.join(out, "gcda", str(out).lstrip("/"), "build")
    assert os.path.isfile(os.path.join(base, "core.gcda"))
    assert os.path.isfile(os.path.join(base, "lib", "helper.gcda"))
    info = (out / "lcov.info").read_text()
    assert "SF:%s" % os.path.join(out, "build", "core.c") in info
    assert "SF:%s" % os.path.join(out, "build", "lib", "helper.c") in info
    assert "lib/helper.c: lines hit" in proc.stdout


def test_accel_auto_probes_then_runs(mainline, tmp_path):
    out = tmp_path / "auto"
    proc = ok(run_driver(out, "workload-basic.sh", DRIVER, "--accel", "auto"))
    # Either the probe proved KVM works, or it fell back to TCG and said why.
    assert ("under KVM" in proc.stdout) or ("under TCG" in proc.stdout)
    if "KVM probe failed" in proc.stderr:
        assert "using TCG" in proc.stderr and "under TCG" in proc.stdout


def test_status_shows_tree_and_builds(mainline):
    proc = ok(gcovlab("status"))
    assert "Linux 6.1." in proc.stdout
    assert "mainline kernel:" in proc.stdout and "bzImage" in proc.stdout


def test_out_reused_for_another_module_holds_only_that_module(mainline, tmp_path):
    out = tmp_path / "shared"
    ok(run_driver(out, "workload.sh", os.path.join(DATA, "hello-mod")))
    proc = ok(run_driver(out, "workload-basic.sh"))
    assert not (out / "build" / "hello.c").exists()
    assert not (out / "build" / "hello.ko").exists()
    assert "hello" not in (out / "lcov.info").read_text()
    assert "gcovdemo.c: lines hit" in proc.stdout


def test_report_redoes_lcov_and_html(basic):
    out, _ = basic
    before = (out / "lcov.info").read_text()
    os.remove(out / "lcov.info")
    subprocess.run(["rm", "-rf", str(out / "html")], check=True)
    proc = ok(gcovlab("report", "--out", out))
    assert (out / "lcov.info").read_text().replace("\n", "") != ""
    assert (out / "html" / "index.html").exists()
    assert "gcovdemo.c: lines hit 55 / 79" in proc.stdout
    assert before.count("DA:") == (out / "lcov.info").read_text().count("DA:")


def test_ci_script_runs_reports_and_enforces_thresholds(mainline, tmp_path):
    """tools/ci-coverage.sh, the script of the instructors' CI job: a run
    with a threshold the sample driver meets passes and leaves the reports;
    --check-only on the same OUT fails a threshold it does not meet, and
    says which; a bad percentage is refused before anything runs."""
    script = os.path.join(REPO, "tools", "ci-coverage.sh")
    out = tmp_path / "ci"
    proc = subprocess.run([script, "--min-lines", "50", "--min-branches", "20", DRIVER,
                           os.path.join(DRIVER, "workload-basic.sh"), str(out)],
                          cwd=tmp_path, text=True, capture_output=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    m = re.search(r"ci-coverage: 1 files, lines ([\d.]+)% \((\d+) of (\d+)\), "
                  r"branches ([\d.]+)% \((\d+) of (\d+)\)", proc.stdout)
    assert m, proc.stdout[-2000:]
    assert 50 < float(m.group(1)) < 100 and 20 < float(m.group(4)) < 100
    for name in ("coverage.xml", "coverage.json", "lcov.info", "html/index.html"):
        assert (out / name).exists(), name
    proc = subprocess.run([script, "--check-only", "--min-lines", "90", str(out)],
                          text=True, capture_output=True)
    assert proc.returncode == 1
    assert "below the threshold: lines %s%% < --min-lines 90" % m.group(1) in proc.stderr
    proc = subprocess.run([script, "--min-lines", "most", DRIVER, "w.sh", str(tmp_path / "x")],
                          text=True, capture_output=True)
    assert proc.returncode == 2 and "wants a percentage, not 'most'" in proc.stderr
    assert not (tmp_path / "x").exists()
