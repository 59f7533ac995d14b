#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload: a write to gcov/reset zeroes every object's
# counters.  The module stays loaded, so the file the host receives is the
# one after the reset.
set -e
# shellcheck source=tests/data/lab7/common.sh
. ./common.sh
driver_loaded
cat "$f" > /tmp/before
echo 1 > /sys/kernel/debug/gcov/reset
cat "$f" > /tmp/after
cmp -s /tmp/before /tmp/after && fail "gcov/reset changed nothing"
echo "lab7: gcov/reset written, $(wc -c < /tmp/after) bytes after"
