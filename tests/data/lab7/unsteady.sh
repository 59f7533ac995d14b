#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A workload that does not repeat itself: how often each operator runs
# comes from /dev/urandom (1 to 100 times each, so two runs agree by
# chance once in a million).  "vm/gcovlab compare" must notice on mainline
# and compare only the records' structure.
set -e
insmod gcovdemo.ko
# shellcheck disable=SC2046
set -- $(od -A n -N 3 -t u1 /dev/urandom)
for op in + - '*'; do
	n=$(($1 % 100 + 1))
	shift
	i=0
	while [ "$i" -lt "$n" ]; do
		echo "2 3 $op drop" > /dev/gcovdemo
		i=$((i + 1))
	done
	echo "unsteady: '$op' $n times"
done
