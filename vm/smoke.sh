#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Default workload of 'vm/gcovlab boot': show that the guest came up and
# what the kernel exposes under debugfs gcov/ (if it has gcov at all).
uname -a
if [ -d /sys/kernel/debug/gcov ]; then
	echo "debugfs gcov/ holds $(find /sys/kernel/debug/gcov -name '*.gcda' | wc -l) .gcda files"
else
	echo "this kernel has no debugfs gcov/ directory"
fi
