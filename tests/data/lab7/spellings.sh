#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload (series v2, review of v2): dotdot.ko names its
# objects "./main.gcda" and "sub/../helper.gcda", dotdot.v2.ko (the same
# source, built with plain object names) "main.gcda" and "helper.gcda":
# two spellings of the same two places in gcov/.  The second load must
# reach the files the first left (ghosts), not be refused by debugfs.
set -e
insmod dotdot.ko
rmmod dotdot
insmod dotdot.v2.ko
find /sys/kernel/debug/gcov -name '*.gcda' | sed 's/^/lab7: exported /'
dmesg | grep -E 'not exported|changed since|continue from' |
	sed 's/^\[[^]]*\] //' || true
