#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload: a write to gcov/reset zeroes every object's
# counters.  The module stays loaded, so the file the host receives is the
# one after the reset.
set -e
fail() {
	echo "lab7: FAIL: $*"
	exit 1
}
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
f=$(find /sys/kernel/debug/gcov -name gcovdemo.gcda)
[ -n "$f" ] || fail "no gcovdemo.gcda in debugfs"
cat "$f" > /tmp/before
echo 1 > /sys/kernel/debug/gcov/reset
cat "$f" > /tmp/after
cmp -s /tmp/before /tmp/after && fail "gcov/reset changed nothing"
echo "lab7: gcov/reset written, $(wc -c < /tmp/after) bytes after"
