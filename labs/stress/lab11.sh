#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lab11.sh - Lab 11's workload on the debug kernel (runs in the guest,
# with stress.sh and badio next to it: vm/gcovlab run --file ...).
#
#   1. stress.sh: the concurrency workload (STRESS_SECONDS, default 20)
#   2. bad input: badio on a module's .gcda and on gcov/reset, and a
#      reader who is not root
#   3. failslab: module loads, then .gcda reads, with the first, second,
#      third, ... slab allocation failing in turn (/proc/self/fail-nth),
#      then a load and read that must work again
#   4. a kmemleak scan: "kmemleak: N suspects" (0 is the goal)
#
# Exit status: 2 if the stress workload stalled (nothing else runs then),
# else 1 if any part failed, else 0.  The kernel's own reports (KASAN,
# lockdep, hung task, ...) go to the console; the host looks for them.

gcov=/sys/kernel/debug/gcov
kmemleak=/sys/kernel/debug/kmemleak
fs=/sys/kernel/debug/failslab
status=0

# Suspects from boot (ACPI's early caches, for one) are the kernel's, not
# this workload's: report them now (an object must be 5 s old), then
# clear them.
if [ -w "$kmemleak" ]; then
	up=$(cut -d. -f1 /proc/uptime)
	[ "$up" -ge 6 ] || sleep $((6 - up))
	echo scan > "$kmemleak"
	echo clear > "$kmemleak"
fi

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

# scan WHAT COMMAND...: run COMMAND with its Nth slab allocation failing,
# for N = 1, 2, 3, ... (/proc/self/fail-nth: the task's own count, kept
# across exec), until 30 runs in a row succeed: by then N is past the
# last allocation that makes COMMAND fail, and past the allocations after
# it (those of kernel/gcov among them: a failed registration or export
# does not fail insmod).  Prints how many runs failed.
scan() {
	what=$1
	shift
	n=0
	streak=0
	failed=0
	while [ "$streak" -lt 30 ] && [ "$n" -lt 2000 ]; do
		n=$((n + 1))
		if sh -c 'echo "$1" > /proc/self/fail-nth && shift && exec "$@"' \
			sh "$n" "$@" > /dev/null 2>&1; then
			streak=$((streak + 1))
		else
			streak=0
			failed=$((failed + 1))
		fi
		rmmod stressb 2>/dev/null
	done
	echo "lab11: failslab: $what: $n runs, the Nth allocation failing in each; $failed failed"
}

if [ -d "$fs" ]; then
	echo "lab11: failslab"
	# By default failslab spares allocations that may sleep (GFP_KERNEL),
	# which is nearly all of them here.  No random failures: only the
	# allocation that fail-nth picks.  No stack for each failure.
	echo N > "$fs/ignore-gfp-wait"
	echo 0 > "$fs/probability"
	echo 0 > "$fs/verbose"
	scan insmod insmod ./stressb.ko rounds=2
	insmod ./stressa.ko rounds=2
	scan "read of a.gcda" cat "$(find "$gcov" -name a.gcda | head -n 1)"
	rmmod stressa
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
