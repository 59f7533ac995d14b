#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload: reads of any size give the same .gcda; a write to
# the file zeroes it; a ghost stays after rmmod, a write discards it, and
# a ghost revives on insmod (two load/unload cycles add up).
set -e
fail() {
	echo "lab7: FAIL: $*"
	exit 1
}
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
f=$(find /sys/kernel/debug/gcov -name gcovdemo.gcda)
[ -n "$f" ] || fail "no gcovdemo.gcda in debugfs"
echo "lab7: file $f mode $(stat -c %a "$f")"
cat "$f" > /tmp/whole
for bs in 1 7 4096; do
	dd if="$f" of=/tmp/part bs="$bs" 2>/dev/null
	cmp /tmp/whole /tmp/part || fail "read with bs=$bs differs"
	echo "lab7: bs=$bs same $(wc -c < /tmp/part) bytes"
done
dd if="$f" of=/tmp/tail bs=1 skip=100 2>/dev/null
tail -c +101 /tmp/whole | cmp - /tmp/tail || fail "read from offset 100 differs"
echo "lab7: offset read same"
echo 0 > "$f"
cat "$f" > /tmp/zero
cmp -s /tmp/whole /tmp/zero && fail "write did not reset"
[ "$(wc -c < /tmp/zero)" = "$(wc -c < /tmp/whole)" ] || fail "reset changed the size"
echo "lab7: reset ok"
rmmod gcovdemo
[ -e "$f" ] || fail "ghost missing after rmmod"
echo "lab7: ghost kept"
echo 0 > "$f"
[ -e "$f" ] && fail "a write to a ghost did not discard it"
echo "lab7: ghost discarded"
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
rmmod gcovdemo
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
rmmod gcovdemo
dmesg | grep -c 'counters continue' | sed 's/^/lab7: revived /'
