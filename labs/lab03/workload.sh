#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 3 workload: read a binary debugfs file that seqwrite_demo writes
# with seq_write(), and check it byte by byte.
#
#  1. an out-of-range records= is refused (-EINVAL, and a clear message);
#  2. records=3 (the default): dump the stream with od, read it twice and
#     compare, walk the header and every record, check that the size the
#     header gives is the size read, and that reads of 1 and 7 bytes at a
#     time give the same bytes (seq_file serves partial reads from its
#     buffer);
#  3. records=64: the same checks on a stream larger than a page, which
#     makes seq_file grow its buffer and call show() again.
#
# The guest's /init brings back only .gcda files, so the stream is shown
# here, on the console, not copied out.
set -e

ko=seqwrite_demo.ko
mod=seqwrite_demo
file=/sys/kernel/debug/$mod/records
magic=67636461
version=00000001
tag_record=$((0x01000000))

fail() {
	echo "seqwrite: FAIL: $*"
	exit 1
}

hex() {
	printf '%08x' "$1"
}

# check_stream N: the checks of steps 2 and 3 on the loaded module.
check_stream() {
	n=$1
	[ -r "$file" ] || fail "$file is missing"
	cat "$file" > /tmp/first
	cat "$file" > /tmp/second
	cmp /tmp/first /tmp/second || fail "two reads differ (records=$n)"
	echo "seqwrite: two reads are identical"

	bytes=$(wc -c < /tmp/first)
	# debugfs gives the file no size: only reading it tells.
	echo "seqwrite: stat says $(stat -c %s "$file") bytes, reading gives $bytes"

	# The header and every record, one 32-bit word at a time.  The
	# words are meant to be split into arguments here.
	# shellcheck disable=SC2046
	set -- $(od -A n -t x4 -v /tmp/first)
	[ $# -ge 4 ] || fail "stream of $bytes bytes is shorter than its header"
	[ "$1" = "$magic" ] || fail "magic is $1, not $magic"
	[ "$2" = "$version" ] || fail "version is $2, not $version"
	[ $((0x$3)) -eq "$n" ] || fail "header says $((0x$3)) records, not $n"
	size=$((0x$4))
	[ "$size" -eq "$bytes" ] || fail "header says $size bytes, read $bytes"
	shift 4
	walked=16
	i=1
	while [ "$i" -le "$n" ]; do
		[ $# -ge 2 ] || fail "stream ends before record $i"
		[ $((0x$1)) -eq $((tag_record | i)) ] ||
			fail "record $i: tag $1, not $(hex $((tag_record | i)))"
		len=$((0x$2))
		[ "$len" -eq $((8 * i)) ] || fail "record $i: length $len, not $((8 * i))"
		shift 2
		[ $# -ge $((len / 4)) ] || fail "record $i: payload cut short"
		j=0
		while [ "$j" -lt "$i" ]; do
			# A u64 (i << 32 | j): low word first on x86.  Only
			# shell arithmetic in this loop: a fork per value is
			# slow under TCG.
			if [ $((0x$1)) -ne "$j" ] || [ $((0x$2)) -ne "$i" ]; then
				fail "record $i value $j: words $1 $2"
			fi
			shift 2
			j=$((j + 1))
		done
		walked=$((walked + 8 + len))
		i=$((i + 1))
	done
	[ $# -eq 0 ] || fail "$# words after the last record"
	[ "$walked" -eq "$size" ] || fail "records add up to $walked bytes, header says $size"
	echo "seqwrite: header and $n records check out: $size bytes"

	for bs in 1 7; do
		dd if="$file" of=/tmp/chunked bs=$bs 2>/dev/null ||
			fail "dd bs=$bs failed"
		cmp /tmp/first /tmp/chunked ||
			fail "reading $bs byte(s) at a time gives other bytes"
		echo "seqwrite: reads of $bs byte(s) at a time give the same $bytes bytes"
	done
}

# 1. Out of range: refused, with the module's message in the kernel log.
# (busybox insmod tries finit_module(), then init_module() when that
# fails, so the kernel log shows the message twice.)
for bad in 0 1000; do
	if out=$(insmod "$ko" records=$bad 2>&1); then
		fail "records=$bad was accepted"
	fi
	echo "seqwrite: records=$bad refused: $out"
	case $out in
	*"Invalid argument"*) ;;
	*) fail "records=$bad: expected EINVAL, got: $out" ;;
	esac
	dmesg | grep -q "$mod: records=$bad is out of range" ||
		fail "records=$bad: no message in the kernel log"
	[ ! -d /sys/module/$mod ] || fail "module loaded despite records=$bad"
done

# 2. The default, three records.
insmod "$ko" || fail "insmod $ko failed"
[ "$(cat /sys/module/$mod/parameters/records)" = 3 ] ||
	fail "default records is not 3"
check_stream 3
echo "seqwrite: od -A d -t x4 $file"
od -A d -t x4 "$file"
rmmod "$mod" || fail "rmmod $mod failed"
[ ! -e "$file" ] || fail "$file still there after rmmod"

# 3. More than a page.
insmod "$ko" records=64 || fail "insmod $ko records=64 failed"
check_stream 64
echo "seqwrite: first and last lines of the 64-record stream"
od -A d -t x4 "$file" | head -n 3
od -A d -t x4 "$file" | tail -n 2
rmmod "$mod" || fail "rmmod $mod failed"

echo "seqwrite: all checks passed"
