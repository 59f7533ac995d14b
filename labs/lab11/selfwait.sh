#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 11: mainline's self-wait in one line.  With gcov_persist=1 (the
# default) the data of an unloaded module stays in debugfs, and a write to
# its file discards it.  Mainline removes the file from inside the write
# handler that debugfs wraps for that very file, and debugfs_remove()
# waits for that handler to return: the write never returns.
# Run with the gcovdemo module (labs/driver) next to it:
#   vm/gcovlab run --mainline --module labs/driver --workload labs/lab11/selfwait.sh ...
gcov=/sys/kernel/debug/gcov
insmod gcovdemo.ko || exit 1
rmmod gcovdemo || exit 1
file=$(find "$gcov" -name gcovdemo.gcda)
if [ -z "$file" ]; then
	echo "selfwait: no gcovdemo.gcda after the unload (gcov_persist=0?)"
	exit 1
fi
echo "selfwait: echo 0 > $file"
echo 0 > "$file"
echo "selfwait: the write returned"
# The fix removes the file once the write has returned: wait for that.
tries=0
while [ -e "$file" ]; do
	tries=$((tries + 1))
	if [ "$tries" -gt 100 ]; then
		echo "selfwait: FAILED: $file is still there"
		exit 1
	fi
	sleep 1
done
echo "selfwait: the file is gone"
echo 1 > "$gcov/reset"
echo "selfwait: the reset returned"
# A new file of the same name once the module is loaded again.
insmod gcovdemo.ko || exit 1
[ -n "$(find "$gcov" -name gcovdemo.gcda)" ] || {
	echo "selfwait: FAILED: no gcovdemo.gcda after loading the module again"
	exit 1
}
echo "selfwait: loaded again, its file is back"
