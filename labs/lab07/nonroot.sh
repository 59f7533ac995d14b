#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload: the .gcda file's own mode (0600) keeps other users
# out.  debugfs's root directory is 0700; remount it 0755 so that only the
# file's mode stands in the way.
set -e
fail() {
	echo "lab7: FAIL: $*"
	exit 1
}
mount -o remount,mode=0755 /sys/kernel/debug
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
f=$(find /sys/kernel/debug/gcov -name gcovdemo.gcda)
[ -n "$f" ] || fail "no gcovdemo.gcda in debugfs"
echo "lab7: mode $(stat -c %a "$f"), debugfs root $(stat -c %a /sys/kernel/debug)"
su -s /bin/sh nobody -c "ls $(dirname "$f") > /dev/null" ||
	fail "nobody cannot even list the directory: the test proves nothing"
if su -s /bin/sh nobody -c "cat $f > /dev/null" 2> /tmp/err; then
	fail "nobody read the file"
fi
echo "lab7: nobody: $(cat /tmp/err)"
if su -s /bin/sh nobody -c "echo 0 > $f" 2> /tmp/err; then
	fail "nobody reset the file"
fi
echo "lab7: nobody cannot reset either"
cat "$f" > /tmp/root || fail "root cannot read"
echo "lab7: root reads $(wc -c < /tmp/root) bytes"
