#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lab11.sh - Lab 11's workload on the debug kernel (runs in the guest,
# with stress.sh and badio next to it: vm/gcovlab run --file ...).
#
#   1. stress.sh: the concurrency workload (STRESS_SECONDS, default 20)
#   2. bad input: badio on a module's .gcda and on gcov/reset, and a
#      reader who is not root
#   3. failslab: module loads and .gcda reads while one slab allocation in
#      five fails (only in the tasks marked with make-it-fail), then a
#      load and read that must work again
#   4. a kmemleak scan: "kmemleak: N suspects" (0 is the goal)
#
# Exit status: 2 if the stress workload stalled (nothing else runs then),
# else 1 if any part failed, else 0.  The kernel's own reports (KASAN,
# lockdep, hung task, ...) go to the console; the host looks for them.

gcov=/sys/kernel/debug/gcov
kmemleak=/sys/kernel/debug/kmemleak
fs=/sys/kernel/debug/failslab
status=0

# Suspects from boot are the kernel's, not this workload's.
[ -w "$kmemleak" ] && echo clear > "$kmemleak"

sh ./stress.sh
case $? in
0) ;;
2) exit 2 ;;
*) status=1 ;;
esac

echo "lab11: bad input"
insmod ./stressa.ko rounds=3 || status=1
a=$(find "$gcov" -name a.gcda | head -n 1)
./badio "$a" "$gcov/reset" || status=1
if su -s /bin/sh nobody -c "cat '$a'" > /dev/null 2>&1; then
	echo "lab11: a user other than root read $a"
	status=1
else
	echo "lab11: a user other than root cannot read $a: ok"
fi
rmmod stressa

if [ -d "$fs" ]; then
	echo "lab11: failslab"
	echo Y > "$fs/task-filter"
	echo 20 > "$fs/probability"
	echo 1 > "$fs/interval"
	echo -1 > "$fs/times"
	echo 0 > "$fs/verbose"
	loads=0
	loads_failed=0
	reads=0
	reads_failed=0
	i=0
	while [ "$i" -lt 50 ]; do
		i=$((i + 1))
		if sh -c 'echo 1 > /proc/self/make-it-fail && exec insmod ./stressb.ko rounds=2' 2>/dev/null; then
			loads=$((loads + 1))
		else
			loads_failed=$((loads_failed + 1))
		fi
		find "$gcov" -name '*.gcda' > /tmp/lab11.list
		while IFS= read -r f; do
			if sh -c 'echo 1 > /proc/self/make-it-fail && exec cat "$1"' sh "$f" > /dev/null 2>&1; then
				reads=$((reads + 1))
			else
				reads_failed=$((reads_failed + 1))
			fi
		done < /tmp/lab11.list
		rmmod stressb 2>/dev/null
	done
	echo 0 > "$fs/probability"
	echo "lab11: failslab: insmod $loads ok, $loads_failed failed;" \
		"reads $reads ok, $reads_failed failed"
	# Everything must work again once the failures stop.
	if insmod ./stressb.ko rounds=2 &&
	   [ "$(head -c 4 "$(find "$gcov" -name b.gcda | head -n 1)")" = "adcg" ] &&
	   rmmod stressb; then
		echo "lab11: after failslab: load, read and unload work"
	else
		echo "lab11: after failslab: load, read or unload FAILED"
		status=1
	fi
fi

if [ -w "$kmemleak" ]; then
	# An object is reported once it has been unreferenced for 5 s, over
	# two scans.
	sleep 6
	echo scan > "$kmemleak"
	sleep 6
	echo scan > "$kmemleak"
	suspects=$(grep -c "^unreferenced object" "$kmemleak")
	echo "lab11: kmemleak: $suspects suspects"
	if [ "$suspects" -ne 0 ]; then
		head -n 40 "$kmemleak"
		status=1
	fi
fi
echo "lab11: done, status $status"
exit "$status"
