#!/bin/busybox sh
# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the gcov-kernel-labs initramfs (runs inside QEMU only).
#
# 1. mount proc, sysfs, devtmpfs and debugfs;
# 2. run /work/workload.sh in /work, next to the .ko files;
# 3. send its exit status and every .gcda under debugfs gcov/ to the host
#    over the second serial port (ttyS1): the files copied out of debugfs
#    at once, one gzipped tar archive of them as raw bytes, and the size
#    and sha256 of each file and of the archive, computed here, so the host
#    can check that everything arrived intact;
# 4. reboot -f, which ends QEMU (it runs with -no-reboot).
#
# Protocol on ttyS1, one record per line:
#   GCOVLAB-STATUS <exit status of the workload>
#   GCOVLAB-ARCHIVE <size> <sha256>       then exactly <size> raw bytes (the
#                                         port is in raw mode), a newline
#                                         and GCOVLAB-END
#   GCOVLAB-SIZES     then "<size> ./<path below gcov/>" lines, GCOVLAB-END
#   GCOVLAB-SHA256    then "<sha256>  ./<path>" lines, GCOVLAB-END
#   GCOVLAB-TIMES <uptime at workload start> <at its end> <when all is sent>
#   GCOVLAB-DONE <number of files sent> [<number found, when sent one by one>]
# If a file cannot be read whole (or the kernel command line has
# gcovlab.transfer=each), each file instead travels on its own:
#   GCOVLAB-FILE <size> <sha256> <path below gcov/>   then base64 lines,
#   GCOVLAB-END   (one file at a time: four processes per file, which under
#   TCG cost 30 s for a whole-kernel run's 600 files, against 3 s above).
#   The archive goes raw because base64 itself is slow here: busybox's
#   base64 on the 320 KB archive of a whole-kernel run, and the third more
#   bytes it makes, took 1.9 s of guest time where cat takes 0.7 s.

/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp

data=/dev/ttyS1
# Raw: no newline translation, so the archive's bytes pass as they are.
# Without it the archive is not sent at once (send_archive refuses).
raw=
stty -F "$data" raw -echo 2>/dev/null && raw=1

cd /work || exit 1
started=$(cut -d " " -f 1 /proc/uptime)
echo "gcovlab: workload start"
sh ./workload.sh
status=$?
cd /
ended=$(cut -d " " -f 1 /proc/uptime)
echo "gcovlab: workload end, exit status $status"
echo "GCOVLAB-STATUS $status" > "$data"

gcov=/sys/kernel/debug/gcov

# One file at a time: the way that works even when a read fails.  A file
# that cannot be read is left out; GCOVLAB-DONE then says how many were
# found as well as how many were sent, and the host warns.
send_each() {
	count=0
	found=0
	find "$gcov" -type f -name '*.gcda' | sort > /tmp/list
	while IFS= read -r file; do
		found=$((found + 1))
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
}

# The whole tree at once.  debugfs reports size 0 for .gcda files: cp reads
# each to its end and never trusts stat.  Everything but gcov/reset is
# copied (mainline's cannot be read); cp -r keeps mainline's .gcno
# symlinks as symlinks (they point at the build tree on the host and
# dangle here).  Whatever is not a .gcda file is removed before the
# archive is made, so that the archive holds what the lists name.
send_archive() {
	# busybox ash has pipefail: a tar that fails is not hidden by gzip
	# shellcheck disable=SC3040
	set -o pipefail
	if [ -z "$raw" ]; then
		echo "stty could not put $data in raw mode" >&2
		return 1
	fi
	mkdir /tmp/gcov || return 1
	for entry in "$gcov"/* "$gcov"/.[!.]*; do
		[ -e "$entry" ] || [ -L "$entry" ] || continue
		[ "$entry" = "$gcov/reset" ] && [ ! -d "$entry" ] && continue
		cp -r "$entry" /tmp/gcov/ || return 1
	done
	cd /tmp/gcov || return 1
	find . ! -type d \( ! -type f -o ! -name '*.gcda' \) -exec rm -f {} + ||
		return 1
	tar cf - . | gzip -1 > /tmp/gcda.tgz || return 1
	sum=$(sha256sum /tmp/gcda.tgz) || return 1
	{
		echo "GCOVLAB-ARCHIVE $(wc -c < /tmp/gcda.tgz) ${sum%% *}"
		cat /tmp/gcda.tgz
		echo
		echo "GCOVLAB-END"
		echo "GCOVLAB-SIZES"
		find . -type f -name '*.gcda' -exec stat -c '%s %n' {} +
		echo "GCOVLAB-END"
		echo "GCOVLAB-SHA256"
		find . -type f -name '*.gcda' -exec sha256sum {} +
		echo "GCOVLAB-END"
	} > "$data"
}

count=0
found=
if [ -d "$gcov" ]; then
	# gcovlab.transfer=each on the kernel command line forces the slow way
	# (the tests use it, so that both ways are known to work).
	case " $(cat /proc/cmdline) " in
	*" gcovlab.transfer=each "*) echo "forced" > /tmp/archive.err; false ;;
	*) ( send_archive ) 2>/tmp/archive.err ;;
	esac
	# shellcheck disable=SC2181
	if [ $? -ne 0 ]; then
		echo "gcovlab: copying the .gcda files at once failed" \
			"($(head -n 1 /tmp/archive.err)); sending them one by one"
		# what the attempt left in the tmpfs must not take the room
		# that the files sent one by one need
		rm -rf /tmp/gcov /tmp/gcda.tgz
		send_each
	else
		count=$(cd /tmp/gcov && find . -type f -name '*.gcda' | wc -l)
	fi
fi
echo "GCOVLAB-TIMES $started $ended $(cut -d " " -f 1 /proc/uptime)" > "$data"
echo "GCOVLAB-DONE $count${found:+ $found}" > "$data"
echo "gcovlab: sent $count .gcda files"
sync
reboot -f
