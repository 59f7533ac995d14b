#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload (series v2, bug 8): the memory one open .gcda file
# holds.  40 readers each open the big module's .gcda, read one byte and
# keep the file open; 40 readers of /dev/null doing the same give the
# cost of the processes themselves.  The difference, per open, is what
# the kernel keeps for an open file: one image buffer in v2.
set -e
insmod big.ko
file=$(find /sys/kernel/debug/gcov -name big.gcda)
image=$(wc -c < "$file")

free_kb() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	awk '/^MemFree:/ { print $2 }' /proc/meminfo
}

pids=
# Each reader, once it has read its byte, leaves a file in $opened; hold
# returns when all 40 have (a known point, not a guessed delay).
opened=/tmp/opened
hold() {
	rm -rf "$opened"
	mkdir "$opened"
	i=0
	while [ "$i" -lt 40 ]; do
		{ head -c 1 > /dev/null; : > "$opened/$i"; exec sleep 1000; } < "$1" &
		pids="$pids $!"
		i=$((i + 1))
	done
	tries=0
	while [ "$(find "$opened" -type f | wc -l)" -lt 40 ]; do
		tries=$((tries + 1))
		if [ "$tries" -gt 600 ]; then
			echo "memory: the 40 readers of $1 did not all open it" >&2
			exit 1
		fi
		sleep 1
	done
}

release() {
	for pid in $pids; do
		kill "$pid"
	done
	wait
	pids=
}

before=$(free_kb)
hold /dev/null
plain=$(free_kb)
release
before2=$(free_kb)
hold "$file"
held=$(free_kb)
release
per_open=$(( ((before2 - held) - (before - plain)) * 1024 / 40 ))
echo "memory: image $image bytes, per open $per_open bytes"
