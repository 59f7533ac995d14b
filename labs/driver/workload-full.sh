#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fuller workload: every operator, dup/drop/clear, and each error branch.
# A rejected token makes the write fail, so those writes are expected to
# fail ("! cmd" inverts the status for set -e).
set -e
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
echo "4 *" > /dev/gcovdemo
echo "6 - 7 /" > /dev/gcovdemo
echo "dup drop dup +" > /dev/gcovdemo
cat /dev/gcovdemo
! echo "0 /" > /dev/gcovdemo      # division by zero
! echo "bogus" > /dev/gcovdemo    # unknown token
echo "clear" > /dev/gcovdemo
! echo "+" > /dev/gcovdemo        # underflow
! echo "drop" > /dev/gcovdemo     # underflow
! echo "dup" > /dev/gcovdemo      # underflow
! echo "1 2 3 4 5 6 7 8 9" > /dev/gcovdemo   # overflow at the ninth
cat /dev/gcovdemo
! echo "0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 0123456789" > /dev/gcovdemo   # line too long
rmmod gcovdemo
