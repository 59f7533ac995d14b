#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# docs/debugfs-persistence.rst: the debugfs gcov/ interface, step by step,
# on the kernel it runs on (tools/capture-format.sh runs it on mainline):
# where the file is and who may read it, what a read returns, what a
# write does, and what happens to the counters at rmmod and insmod.
#
# Runs in the guest next to gcovdemo.ko:
#   vm/gcovlab run --mainline --module labs/driver \
#       --workload docs/examples/format/workload-debugfs.sh --out DIR
set -e
gcov=/sys/kernel/debug/gcov

step() {
	echo
	echo "## $*"
}

# The first 128 bytes of the file: the header, then gcovdemo_exit() with
# its three counters (bytes 44-67) and gcovdemo_init() with its four
# (bytes 96-127).
head128() {
	od -A d -t x4 -N 128 "$1"
}

step "insmod gcovdemo.ko"
insmod gcovdemo.ko
f=$(find "$gcov" -name gcovdemo.gcda)
dir=$(dirname "$f")
find "$gcov" | sed "s|$dir|<build dir>|"
stat -c '%A %U %s %n' /sys/kernel/debug "$gcov" "$f" | sed "s|$dir|<build dir>|"
echo "cat reads $(wc -c < "$f") bytes"
echo "read at once:     $(md5sum < "$f" | cut -c1-32)"
echo "read 7 at a time: $(dd if="$f" bs=7 2>/dev/null | md5sum | cut -c1-32)"
head128 "$f"

step "write to the .gcda file: its counters go to zero"
echo 1 > "$f"
head128 "$f"

step "rmmod: the file stays (a ghost) and holds the exit function's counts"
rmmod gcovdemo
stat -c '%A %U %s %n' "$f" | sed "s|$dir|<build dir>|"
head128 "$f"

step "insmod the same module again: counting goes on from the saved values"
insmod gcovdemo.ko
head128 "$f"

step "rmmod, then write to gcov/reset: the ghost is dropped, its file removed"
rmmod gcovdemo
echo 1 > "$gcov/reset"
find "$gcov"

step "insmod once more: a fresh file"
insmod gcovdemo.ko
head128 "$f"

step "rmmod, then write to the ghost's own file"
rmmod gcovdemo
(echo 1 > "$f"; echo "the write returned") &
sleep 3
if kill -0 $! 2>/dev/null; then
	echo "after 3 s the write has not returned"
fi
# The stuck write keeps the gcov code's lock, and the directory is being
# removed under it: anything that looks into gcov/ now waits as well, so
# take debugfs out of the way of the guest's /init, which copies gcov/
# out after this script.
umount -l /sys/kernel/debug
