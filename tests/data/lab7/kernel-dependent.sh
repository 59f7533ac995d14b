#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A workload that repeats itself on each kernel but does more on mainline
# (recognised by its .gcno links in debugfs): "vm/gcovlab compare" must
# report the difference in the counts and fail.
set -e
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
if find /sys/kernel/debug/gcov -name '*.gcno' | grep -q .; then
	echo "4 5 -" > /dev/gcovdemo
fi
