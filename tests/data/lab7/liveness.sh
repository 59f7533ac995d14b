#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload (series v2, bug 2): a file descriptor opened before
# the file was removed must not reach the file made later for the same
# name.  The ghost's file goes (gcov/reset), the module is loaded again
# (a new file, maybe at the address of the old one), then the old fd is
# written to: the new module's counters must stay.
fail() {
	echo "lab7: FAIL: $*"
	exit 1
}
insmod gcovdemo.ko || fail "insmod"
f=$(find /sys/kernel/debug/gcov -name gcovdemo.gcda)
[ -n "$f" ] || fail "no gcovdemo.gcda in debugfs"
exec 4> "$f"
rmmod gcovdemo
echo 1 > /sys/kernel/debug/gcov/reset
[ -e "$f" ] && fail "the ghost's file is still there after gcov/reset"
insmod gcovdemo.ko || fail "insmod again"
echo "2 3 +" > /dev/gcovdemo
before=$(md5sum < "$f")
if echo 0 >&4; then
	echo "lab7: stale write accepted"
else
	echo "lab7: stale write refused"
fi
exec 4>&-
after=$(md5sum < "$f")
if [ "$before" = "$after" ]; then
	echo "lab7: counters of the new module kept"
else
	echo "lab7: counters of the new module reset through a stale fd"
fi
