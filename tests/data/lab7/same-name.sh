#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload (series v2, bug 9): shared.o is linked into both
# stress modules; loaded at once, the two objects share shared.gcda,
# which shows their sum.  gcov/reset reads as empty, so cp -r of the
# whole tree works.
set -e
insmod stressa.ko rounds=10
insmod stressb.ko rounds=7
dmesg | grep 'shared.gcda' | sed 's/^\[[^]]*\] //'
if cp -r /sys/kernel/debug/gcov /tmp/copy; then
	echo "lab7: cp -r of gcov/ ok, $(find /tmp/copy -name '*.gcda' | wc -l) files"
else
	echo "lab7: cp -r of gcov/ failed"
fi
