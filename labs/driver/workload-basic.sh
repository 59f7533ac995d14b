#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Basic workload: load the driver, add and multiply.  Touches the parser,
# two of the four operators and the read path; misses every error branch.
set -e
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
cat /dev/gcovdemo
echo "4 *" > /dev/gcovdemo
cat /dev/gcovdemo
