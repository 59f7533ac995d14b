# SPDX-License-Identifier: GPL-2.0
"""tools/pagerun.py catches each kind of page fault, on made-up pages.

The runner is what runs every lab page literally in make check; here it
runs small pages whose commands need no kernel (echo, printf, false), each
with one deliberate fault: a step whose exit status is not the page's, a
cited line the output does not have, a capture that drifted, a cd that
carries over to the next block.  Seconds, no kernel.
"""

import os
import sys

import pytest


@pytest.fixture(autouse=True)
def no_kernel_tree(monkeypatch, tmp_path):
    """The runner checks the kernel tree of GCOVLAB_WORK: here there is none."""
    monkeypatch.setenv("GCOVLAB_WORK", str(tmp_path / "no-work"))

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))

import pagerun  # noqa: E402


def page(tmp_path, body, captures=None):
    docs = tmp_path / "docs"
    (docs / "labs").mkdir(parents=True)
    (docs / "captures" / "fake").mkdir(parents=True)
    for name, text in (captures or {}).items():
        (docs / "captures" / "fake" / name).write_text(text)
    path = docs / "labs" / "fake.rst"
    path.write_text("Fake lab\n========\n\nSteps\n-----\n\n" + body)
    return str(path)


def run(tmp_path, body, captures=None, capture=False):
    path = page(tmp_path, body, captures)
    with open(os.devnull, "w") as log:
        return pagerun.run_lab(99, capture=capture, base=str(tmp_path / "run"),
                               log=log, page=path)


def block(cmd, capture=None, before="", options=""):
    text = before + ".. code-block:: console\n\n   $ %s\n\n" % cmd
    if capture:
        text += ".. literalinclude:: ../captures/fake/%s\n   :language: text\n%s\n" % (
            capture, options)
    return text


def test_a_page_as_written_passes(tmp_path):
    body = block("echo hello; echo world", "a.txt") + "Look for ``world`` above.\n\n"
    result = run(tmp_path, body, {"a.txt": "hello\nworld\n"})
    assert result.problems == []


def test_a_failing_step_is_named(tmp_path):
    body = "1. Break\n~~~~~~~~\n\n" + block("false")
    result = run(tmp_path, body)
    assert len(result.problems) == 1
    assert "fake.rst" in result.problems[0] and "(1. Break)" in result.problems[0]
    assert "`false` exited 1, the page expects 0" in result.problems[0]


def test_an_expected_failure_must_fail(tmp_path):
    ok = run(tmp_path, block("sh -c 'exit 3'", before=".. runner: exit 3\n\n"))
    assert ok.problems == []
    wrong = run(tmp_path / "b", block("true", before=".. runner: exit 3\n\n"))
    assert "`true` exited 0, the page expects 3" in wrong.problems[0]


def test_a_missing_cited_line_is_caught(tmp_path):
    body = block("echo one", "a.txt") + "Look for ``counter updates:`` in the output.\n\n"
    result = run(tmp_path, body, {"a.txt": "one\n"})
    assert len(result.problems) == 1
    assert "look for ``counter updates:``" in result.problems[0]


def test_a_cited_line_hidden_by_lines_is_caught(tmp_path):
    body = block("printf 'a\\nb\\nc\\n'", "a.txt", options="   :lines: 1-2\n") + \
        "Look for ``c`` in it.\n\n"
    result = run(tmp_path, body, {"a.txt": "a\nb\nc\n"})
    assert len(result.problems) == 1 and ":lines: 1-2" in result.problems[0]


def test_a_drifted_capture_is_caught(tmp_path):
    result = run(tmp_path, block("echo new text", "a.txt"), {"a.txt": "old text\n"})
    assert len(result.problems) == 1
    assert "drifted" in result.problems[0]
    assert "-old text" in result.problems[0] and "+new text" in result.problems[0]


def test_times_and_timestamps_are_not_drift(tmp_path):
    body = block("echo 'built in 3.2 s'; echo '[    1.234567] booted'", "a.txt")
    result = run(tmp_path, body, {"a.txt": "built in 1 min 4 s\n[    0.000001] booted\n"})
    assert result.problems == []


def test_one_shell_a_cd_carries_over(tmp_path):
    """A reader's shell keeps its directory: the runner's must too."""
    body = block("cd /") + block("test \"$PWD\" = /")
    assert run(tmp_path, body).problems == []


def test_capture_mode_writes_the_normalised_output(tmp_path):
    body = block("echo \"$HOME/lab/x\"", "a.txt")
    result = run(tmp_path, body, capture=True)
    assert result.problems == []
    with open(tmp_path / "docs" / "captures" / "fake" / "a.txt") as f:
        assert f.read() == "~/lab/x\n"


def test_exercises_are_not_run(tmp_path):
    body = block("true") + "Exercises\n---------\n\n" + block("false")
    assert run(tmp_path, body).problems == []


def test_a_block_without_commands_is_refused(tmp_path):
    path = page(tmp_path, ".. code-block:: console\n\n   just output\n\n")
    with pytest.raises(pagerun.PageError, match="text before its first"):
        pagerun.read_page(path)


def test_shown_lines_follows_literalinclude():
    text = "l1\nl2\nl3\nl4\n"
    assert pagerun.shown_lines(text, {"lines": "2-3"}) == ["l2", "l3"]
    assert pagerun.shown_lines(text, {"lines": "1,4"}) == ["l1", "l4"]
    assert pagerun.shown_lines(text, {"lines": "3-"}) == ["l3", "l4"]
    assert pagerun.shown_lines(text, {"start-after": "l2"}) == ["l3", "l4"]
    assert pagerun.shown_lines(text, {"end-before": "l3"}) == ["l1", "l2"]
    assert pagerun.shown_lines(text, {"start-at": "zz"}) is None


def test_every_lab_page_parses():
    for number in pagerun.labs():
        blocks = pagerun.read_page(pagerun.page_of(number))
        assert blocks, "lab %d has no console block" % number


def test_a_citation_across_lines_is_read(tmp_path):
    body = block("echo 597 .gcda files received", "a.txt") + \
        "The guest sent them; look for ``597 .gcda\nfiles received`` then look for ``nothing\nelse``.\n\n"
    result = run(tmp_path, body, {"a.txt": "597 .gcda files received\n"})
    assert len(result.problems) == 1 and "``nothing else``" in result.problems[0]


def test_digits_masks_numbers_of_one_block_only(tmp_path):
    body = block("echo lost 17", "a.txt", before=".. runner: digits\n\n") + \
        block("echo kept 17", "b.txt")
    result = run(tmp_path, body, {"a.txt": "lost 99\n", "b.txt": "kept 99\n"})
    assert len(result.problems) == 1 and "b.txt" in result.problems[0]


def test_paths_as_a_student_s_machine_shows_them():
    home, work = "/tmp/h", "/srv/w"
    text = "/tmp/h/lab8 ~/x /srv/w/build /tmp/h/lab8/gcda/srv/w/build/init/main.gcda " \
        "/tmp/h/lab7/gcda/tmp/h/lab7/build"
    assert pagerun.normalise(text, home, work) == (
        "~/lab8 ~/x ~/.cache/gcov-kernel-labs/build "
        "~/lab8/gcda/<home>/.cache/gcov-kernel-labs/build/init/main.gcda "
        "~/lab7/gcda/<home>/lab7/build")


def test_unordered_compares_lines_in_any_order(tmp_path):
    body = block("printf 'b\\na\\n'", "a.txt", before=".. runner: unordered\n\n") + \
        block("printf 'b\\na\\n'", "b.txt")
    result = run(tmp_path, body, {"a.txt": "a\nb\n", "b.txt": "a\nb\n"})
    assert len(result.problems) == 1 and "b.txt" in result.problems[0]


def test_race_shows_the_capture_without_comparing_it_but_checks_the_exit(tmp_path):
    body = block("echo task 7 blocked", "a.txt", before=".. runner: race\n\n") + \
        block("echo task 7 blocked", "b.txt") + \
        block("echo other; false", "c.txt", before=".. runner: race\n\n")
    result = run(tmp_path, body, {"a.txt": "sh blocked\n", "b.txt": "sh blocked\n",
                                  "c.txt": "whatever\n"})
    assert len(result.problems) == 2, result.problems
    assert "b.txt" in result.problems[0] and "exit" in result.problems[1], result.problems


def test_masks_a_link_s_size_and_the_tree_s_first_time_message():
    cold = pagerun.mask("gcovlab: kernel tree ready: Linux 6.1.192 at ~/t, branch baseline\n"
                        "lrwxrwxrwx 1 root root 90 Dec  5 01:02 a -> /sys/x\n")
    warm = pagerun.mask("gcovlab: kernel tree ready: Linux 6.1.192 at ~/t (nothing to do)\n"
                        "lrwxrwxrwx 1 root root 81 Dec  4 23:59 a -> /sys/x\n")
    assert cold == warm
    assert pagerun.mask("-rw------- 1 root root 90 Dec  5 01:02 a\n") != \
        pagerun.mask("-rw------- 1 root root 81 Dec  5 01:02 a\n")


def test_a_kernel_message_inside_a_workload_line_gets_a_line_of_its_own():
    # Lab 10 on two vCPUs: the console's printk landed in the workload's
    # echo, whose newline then followed as an empty line
    glued = ("online CPUs: 0-1[    0.912345] gcovrace: loading out-of-tree module "
             "taints kernel.\n\n---- end of workload output ----")
    quiet = ("online CPUs: 0-1\n[    0.812345] gcovrace: loading out-of-tree module "
             "taints kernel.\n---- end of workload output ----")
    assert pagerun.mask(glued) == pagerun.mask(quiet)
    assert pagerun.mask(glued)[0] == "online CPUs: 0-1"
    # a message at the start of a line is left as it is
    assert pagerun.mask("[    1.000000] x\ny") == ["[<timestamp>] x", "y"]


def test_the_clocksource_watchdog_s_verdict_is_not_drift():
    # TCG on a busy host: the watchdog marks the TSC unstable whenever it
    # runs, in the middle of any workload
    quiet = "seqwrite: check out\n0000032 01000002"
    busy = ("seqwrite: check out\n"
            "[    2.445755] tsc: Marking TSC unstable due to clocksource watchdog\n"
            "[    2.446187] TSC found unstable after boot, most likely due to broken "
            "BIOS. Use 'tsc=unstable'.\n"
            "[    2.446577] sched_clock: Marking unstable (2411389659, 34778004)"
            "<-(2454900155, -8729490)\n"
            "[    2.457028] clocksource: Switched to clocksource refined-jiffies\n"
            "0000032 01000002")
    assert pagerun.mask(busy) == pagerun.mask(quiet)
    # a module's own message stays
    assert pagerun.mask("[    1.000000] seqwrite_demo: removed\n") == \
        ["[<timestamp>] seqwrite_demo: removed"]


def test_the_reader_s_shell_keeps_the_number_of_kept_builds_only(tmp_path, monkeypatch):
    # make check keeps 24 builds per directory; a page that pruned them to
    # the default 8 threw away the bisect test's and the lab tests' builds
    monkeypatch.setenv("GCOVLAB_KEEP_BUILDS", "24")
    monkeypatch.setenv("GCOVLAB_PREBUILD", "0")
    body = block('echo "keep=${GCOVLAB_KEEP_BUILDS:-} prebuild=${GCOVLAB_PREBUILD:-}"',
                 "env.txt")
    result = run(tmp_path, body, {"env.txt": "keep=24 prebuild=\n"})
    assert result.problems == []
