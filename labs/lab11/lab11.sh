#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lab11.sh - Lab 11's workload on the debug kernel (runs in the guest,
# with stress.sh, badio and failnth next to it: vm/gcovlab run --file).
#
#   1. stress.sh: the concurrency workload (STRESS_SECONDS, default 20)
#   2. bad input: badio on a module's .gcda and on gcov/reset, and a
#      reader who is not root
#   3. failslab: a module load, then a .gcda read, with the first, second,
#      third, ... slab allocation failing in turn (failnth), then a load
#      and a read that must work again
#   4. a kmemleak scan: "kmemleak: N suspects" (0 is the goal)
#
# Exit status: 2 if the stress workload stalled (nothing else runs then),
# else 1 if any part failed, else 0.  The kernel's own reports (KASAN,
# lockdep, hung task, ...) go to the console; the host looks for them.

gcov=/sys/kernel/debug/gcov
kmemleak=/sys/kernel/debug/kmemleak
fs=/sys/kernel/debug/failslab
status=0

# Suspects from boot are the kernel's, not this workload's: report them
# now (an object must be 5 s old), then clear them.  (Some early ones show
# only later; the count at the end leaves them out too.)
if [ -w "$kmemleak" ]; then
	# No scans in the background: only the two at the end count.
	echo scan=off > "$kmemleak"
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

if [ -d "$fs" ]; then
	echo "lab11: failslab"
	# By default failslab spares allocations that may sleep (GFP_KERNEL),
	# which is nearly all of them here.  No random failures: only the
	# allocation that failnth picks.  No stack for each failure.
	echo N > "$fs/ignore-gfp-wait"
	echo 0 > "$fs/probability"
	echo 0 > "$fs/verbose"
	# gcov/reset after each unload: every load makes its files anew, so
	# that the allocations of kernel/gcov's export fail in turn too.
	./failnth load ./stressb.ko rounds=2 "$gcov/reset" || status=1
	insmod ./stressa.ko rounds=2
	./failnth read "$(find "$gcov" -name a.gcda | head -n 1)" || status=1
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
	cat "$kmemleak" > /tmp/kmemleak
	# Objects allocated before user space started (comm "swapper/0",
	# pid 0: ACPI's early caches on this kernel) are not this workload's.
	boot=$(grep -c '^  comm "swapper/0", pid 0,' /tmp/kmemleak)
	suspects=$(($(grep -c "^unreferenced object" /tmp/kmemleak) - boot))
	echo "lab11: kmemleak: $suspects suspects ($boot more from early boot, not counted)"
	if [ "$suspects" -ne 0 ]; then
		awk '/^unreferenced object/ { keep = 0; rec = $0; next }
		     /^  comm / { keep = $0 !~ /"swapper\/0", pid 0,/ }
		     keep { if (rec) { print rec; rec = "" } print }' /tmp/kmemleak |
			head -n 60
		status=1
	fi
fi
echo "lab11: done, status $status"
exit "$status"
