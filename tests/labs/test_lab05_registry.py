# SPDX-License-Identifier: GPL-2.0
"""Lab 5: the registry (patch 0005).  At boot the data version is printed
once, decoded as GCC 12; loading a module registers each of its profiled
objects by name; unloading it unregisters exactly those; loading it again
registers them again."""

import os
import re

import pytest

from conftest import DATA, gcovlab, ok, work_root as work_dir

MULTI = os.path.join(DATA, "multi-mod")
WORKLOAD = """#!/bin/sh
set -e
insmod multi.ko n=6
rmmod multi
insmod multi.ko n=2
rmmod multi
"""


@pytest.fixture(scope="module")
def registry_run(tree, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab5")
    workload = tmp / "workload.sh"
    workload.write_text(WORKLOAD)
    out = tmp / "out"
    try:
        proc = ok(gcovlab("run", "--lab", "5", "--module", MULTI,
                          "--workload", workload, "--out", out))
    finally:
        ok(gcovlab("lab", "0"))
    with open(out / "console.log", encoding="utf-8", errors="replace") as f:
        return f.read(), proc


def test_version_printed_once_and_decoded(registry_run):
    console, _ = registry_run
    lines = re.findall(r'gcov: gcov data version 0x([0-9a-f]{8}) \("(....)", GCC (\d+)\.(\d+)\)',
                       console)
    assert len(lines) == 1
    word, text, major, minor = lines[0]
    assert bytes.fromhex(word).decode() == text
    assert major == "12"
    assert text.startswith("B2")


def test_each_module_object_registered_by_name(registry_run):
    console, _ = registry_run
    reg = re.findall(r"gcov: registered (\S+), (\d+) in all", console)
    names = [os.path.basename(name) for name, _ in reg]
    assert names == ["core.gcda", "helper.gcda"] * 2
    assert [int(n) for _, n in reg] == [1, 2, 1, 2]
    assert all(name.endswith("/build/core.gcda") or name.endswith("/build/lib/helper.gcda")
               for name, _ in reg)


def test_unload_unregisters_exactly_the_module(registry_run):
    console, _ = registry_run
    gone = re.findall(r"gcov: module (\S+) unloaded: (\d+) objects? unregistered, (\d+) left",
                      console)
    assert gone == [("multi", "2", "0"), ("multi", "2", "0")]


def test_boot_summary_still_there(registry_run):
    console, _ = registry_run
    assert re.search(r"gcov: 0 objects registered during boot", console)


FOREIGN = os.path.join(DATA, "foreign-mod")


def test_foreign_version_refused_by_name(tree, tmp_path):
    """Bug 7: v1 compared each object's version with the first one seen; a
    module of another GCC loaded first made every GCC 12 object be refused.
    v2 compares with the GCC that built the kernel and names the refused
    object."""
    out = tmp_path / "foreign"
    try:
        proc = ok(gcovlab("run", "--lab", "5", "--module", FOREIGN, "--workload",
                          os.path.join(FOREIGN, "workload.sh"), "--out", out))
    finally:
        ok(gcovlab("lab", "0"))
    with open(out / "console.log", encoding="utf-8", errors="replace") as f:
        console = f.read()
    assert re.search(r"gcov: /foreign/made-up\.gcda: data version 0x4231332a \(GCC 11\.3\), "
                     r"this kernel reads GCC 12 data only: not registered", console), console
    assert re.search(r"gcov: registered \S+/real\.gcda, 1 in all", console), console
    assert "module real unloaded: 1 object unregistered, 0 left" in console
    assert "module foreign unloaded" not in console
    lab = os.path.join(work_dir(), "build", "lab", "System.map")
    with open(lab, encoding="utf-8") as f:
        symbols = f.read()
    # Bug 3: the module notifier must exist before modules can be requested
    # (device initcalls, level 6); v1 registered it at late_initcall (7).
    levels = re.findall(r"__initcall__kmod_base__\w+_gcov_watch_modules(\d)\b", symbols)
    assert levels and int(levels[0]) < 6, levels
