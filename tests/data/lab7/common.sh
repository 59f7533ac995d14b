#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by the Lab 7 test workloads that start from a loaded sample
# driver (run7 in tests/labs/test_lab07_debugfs.py puts it next to them).
# shellcheck shell=sh

fail() {
	echo "lab7: FAIL: $*"
	exit 1
}

# Load gcovdemo, run one calculation, and set $f to its .gcda in debugfs.
driver_loaded() {
	insmod gcovdemo.ko
	echo "2 3 +" > /dev/gcovdemo
	f=$(find /sys/kernel/debug/gcov -name gcovdemo.gcda)
	[ -n "$f" ] || fail "no gcovdemo.gcda in debugfs"
}
