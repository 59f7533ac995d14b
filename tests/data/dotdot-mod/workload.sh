#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
set -e
insmod dotdot.ko
find /sys/kernel/debug/gcov -name '*.gcda' | sed 's/^/lab7: exported /'
dmesg | grep 'not exported' | sed 's/^\[[^]]*\] //' || true
