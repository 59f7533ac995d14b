# SPDX-License-Identifier: GPL-2.0
"""Lab 5: the registry (patch 0005).  At boot the data version is printed
once, decoded as GCC 12; loading a module registers each of its profiled
objects by name; unloading it unregisters exactly those; loading it again
registers them again."""

import os
import re

import pytest

from conftest import DATA, gcovlab, ok

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
