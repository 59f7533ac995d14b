#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload: a reader keeps the .gcda file open while the module
# is unloaded and loaded again.  Nothing may crash; what the open file
# gives is the image made when it was opened.
set -e
# shellcheck source=tests/data/lab7/common.sh
. ./common.sh
driver_loaded
cat "$f" > /tmp/before
exec 3< "$f"
dd bs=16 count=1 <&3 > /tmp/head 2>/dev/null
rmmod gcovdemo
echo "lab7: unloaded with the file open"
insmod gcovdemo.ko
echo "4 5 *" > /dev/gcovdemo
echo "lab7: loaded again with the file open"
cat <&3 > /tmp/rest
exec 3<&-
cat /tmp/head /tmp/rest | cmp - /tmp/before || fail "the open file changed"
echo "lab7: the open file read $(cat /tmp/head /tmp/rest | wc -c) bytes, as at open"
rmmod gcovdemo
# A write to a file whose object went away while it was open.
insmod gcovdemo.ko
exec 4> "$f"
rmmod gcovdemo
echo 0 >&4 || echo "lab7: write after unload refused"
exec 4>&-
if dmesg | grep -E 'BUG|Oops|WARNING|general protection'; then
	fail "the kernel complained"
fi
echo "lab7: no oops"
