#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load the gcc-11 module, list what debugfs exports (if it does), unload it.
insmod gcc11.ko
echo "gcc11-test: loaded, rc=$?"
# Lab 5's kernel has no debugfs export yet (Lab 7 adds it); mainline has.
if [ -d /sys/kernel/debug/gcov ]; then
	find /sys/kernel/debug/gcov -name '*.gcda' | sort
fi
rmmod gcc11
echo "gcc11-test: unloaded, rc=$?"
