#!/bin/busybox sh
# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the gcov-kernel-labs initramfs (runs inside QEMU only).
#
# 1. mount proc, sysfs, devtmpfs and debugfs;
# 2. run /work/workload.sh in /work, next to the .ko files;
# 3. send its exit status and every .gcda under debugfs gcov/ to the host
#    over the second serial port (ttyS1), each file as base64 with the size
#    and sha256 computed here, so the host can check it arrived intact;
# 4. reboot -f, which ends QEMU (it runs with -no-reboot).
#
# Protocol on ttyS1, one record per line:
#   GCOVLAB-STATUS <exit status of the workload>
#   GCOVLAB-FILE <size> <sha256> <path below gcov/>   then base64 lines
#   GCOVLAB-END
#   GCOVLAB-DONE <number of files sent>

/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp

data=/dev/ttyS1
stty -F "$data" raw -echo 2>/dev/null

cd /work || exit 1
echo "gcovlab: workload start"
sh ./workload.sh
status=$?
cd /
echo "gcovlab: workload end, exit status $status"
echo "GCOVLAB-STATUS $status" > "$data"

gcov=/sys/kernel/debug/gcov
count=0
if [ -d "$gcov" ]; then
	# debugfs reports size 0 for .gcda files: read them with cat, never
	# trust stat.  -type f skips mainline's .gcno symlinks (they point at
	# the build tree on the host and dangle here).
	find "$gcov" -type f -name '*.gcda' | sort > /tmp/list
	while IFS= read -r file; do
		cat "$file" > /tmp/gcda || continue
		size=$(wc -c < /tmp/gcda)
		sum=$(sha256sum /tmp/gcda)
		rel=${file#"$gcov"/}
		{
			echo "GCOVLAB-FILE $size ${sum%% *} $rel"
			base64 /tmp/gcda
			echo "GCOVLAB-END"
		} > "$data"
		count=$((count + 1))
	done < /tmp/list
fi
echo "GCOVLAB-DONE $count" > "$data"
echo "gcovlab: sent $count .gcda files"
sync
reboot -f
