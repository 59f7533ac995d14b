#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load the gcc-11 module, list what debugfs exports, unload it.
insmod gcc11.ko
echo "gcc11-test: loaded, rc=$?"
find /sys/kernel/debug/gcov -name '*.gcda' | sort
rmmod gcc11
echo "gcc11-test: unloaded, rc=$?"
