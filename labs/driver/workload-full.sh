#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fuller workload: every operator, dup/drop/clear, and each error branch.
set -e

# Write a line the driver must reject (the write fails); stop if it doesn't.
reject() {
	if echo "$1" > /dev/gcovdemo; then
		echo "accepted, but should have been rejected: $1"
		exit 1
	fi
	echo "rejected, as expected: $1"
}

insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
echo "4 *" > /dev/gcovdemo
echo "6 - 7 /" > /dev/gcovdemo
echo "dup drop dup +" > /dev/gcovdemo
cat /dev/gcovdemo
reject "0 /"                  # division by zero
reject "bogus"                # unknown token
echo "clear" > /dev/gcovdemo
reject "+"                    # stack too short
reject "drop"
reject "dup"
reject "1 2 3 4 5 6 7 8 9"    # stack full at the ninth value
cat /dev/gcovdemo
reject "$(printf '%0130d' 0)" # line too long
rmmod gcovdemo
