#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload (run with --module-v2 labs/lab07/changed): the
# sample driver leaves a ghost; a changed module with the same object name
# is loaded; its counters must start from zero, not from the ghost's.
set -e
fail() {
	echo "lab7: FAIL: $*"
	exit 1
}
stamp() {
	od -A n -t x4 -j 8 -N 4 "$1" | tr -d ' '
}
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
rmmod gcovdemo
f=$(find /sys/kernel/debug/gcov -name gcovdemo.gcda)
[ -n "$f" ] || fail "no ghost after rmmod"
echo "lab7: ghost stamp $(stamp "$f")"
insmod gcovdemo.v2.ko
echo "lab7: v2 stamp $(stamp "$f")"
dmesg | grep -q 'changed since it was unloaded' || fail "no 'changed' warning"
echo "lab7: changed module not revived"
rmmod gcovdemo
