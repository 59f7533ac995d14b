#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The workers are called through run(); busybox ash has $RANDOM.
# shellcheck disable=SC2317,SC3028
#
# stress.sh - Lab 11's stress workload for the debugfs gcov export (runs
# in the guest, next to stressa.ko and stressb.ko).
#
# For STRESS_SECONDS (default 20; give STRESS_SECONDS=N on the kernel
# command line, which the kernel hands to /init's environment), at once:
#   load-a, load-b  insmod/rmmod loops of the two modules: each load
#                   revives the ghost of the last one (gcov_persist=1);
#                   load-a also keeps its .gcda open across the rmmod and
#                   reads it afterwards
#   read-1..3       read every .gcda with read sizes 1 to 4096, from the
#                   start or after a seek, and check each whole image
#                   starts with the gcda magic
#   reset-all       write gcov/reset
#   reset-one       write a module's .gcda (a ghost's file goes with it)
# Every worker stops at the deadline and reports its operations.  If one
# is still running 30 s later, the kernel stopped making progress: the
# workload says which ones and exits 2.  Exit 1 if an operation that must
# succeed failed, or an image was malformed; 0 otherwise.

seconds=${STRESS_SECONDS:-20}
gcov=/sys/kernel/debug/gcov
tmp=/tmp/stress
mkdir -p "$tmp"
end=$(($(date +%s) + seconds))

# run NAME COMMAND...: repeat COMMAND until the deadline, keeping
# "<succeeded> <failed>" in $tmp/NAME
run() {
	name=$1
	shift
	ok=0
	failed=0
	while [ "$(date +%s)" -lt "$end" ]; do
		if "$@"; then
			ok=$((ok + 1))
		else
			failed=$((failed + 1))
		fi
		echo "$ok $failed" > "$tmp/$name"
	done
	echo "$ok $failed" > "$tmp/$name"
}

gcda_of() {
	find "$gcov" -name "$1" | head -n 1
}

load_a() {
	insmod ./stressa.ko rounds=$((RANDOM % 50)) || return 1
	file=$(gcda_of a.gcda)
	[ -n "$file" ] || return 1
	# Open, unload, then read: the image of open time, though the
	# module is gone.
	{ rmmod stressa && cat > "$tmp/a.img"; } < "$file" || return 1
	[ "$(head -c 4 "$tmp/a.img")" = "adcg" ]
}

load_b() {
	insmod ./stressb.ko rounds=$((RANDOM % 50)) || return 1
	rmmod stressb
}

read_all() {
	bad=0
	find "$gcov" -name '*.gcda' > "$tmp/list.$name"
	while IFS= read -r file; do
		case $((RANDOM % 4)) in
		0) bs=1 ;;
		1) bs=7 ;;
		2) bs=512 ;;
		*) bs=4096 ;;
		esac
		if [ $((RANDOM % 3)) -eq 0 ]; then
			# After a seek: only the read itself is checked.
			dd if="$file" of=/dev/null bs="$bs" skip=1 2>/dev/null
			continue
		fi
		# A file removed meanwhile fails to open: not an error.
		dd if="$file" of="$tmp/image.$name" bs="$bs" 2>/dev/null || continue
		if [ "$(head -c 4 "$tmp/image.$name")" != "adcg" ]; then
			echo "stress: malformed image of $file" \
				"($(wc -c < "$tmp/image.$name") bytes)"
			bad=1
		fi
	done < "$tmp/list.$name"
	return "$bad"
}

reset_all() {
	echo 1 > "$gcov/reset"
}

reset_one() {
	case $((RANDOM % 3)) in
	0) file=$(gcda_of a.gcda) ;;
	1) file=$(gcda_of b.gcda) ;;
	*) file=$(gcda_of shared.gcda) ;;
	esac
	# The file may go between find and write: only try.
	[ -n "$file" ] && { echo 1 > "$file"; } 2>/dev/null
	return 0
}

echo "stress: ${seconds} s, $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"$(cat /proc/cmdline)"
run load-a load_a &
pids="$!:load-a"
run load-b load_b &
pids="$pids $!:load-b"
for n in 1 2 3; do
	run "read-$n" read_all &
	pids="$pids $!:read-$n"
done
run reset-all reset_all &
pids="$pids $!:reset-all"
run reset-one reset_one &
pids="$pids $!:reset-one"

sleep "$seconds"
waited=0
while [ "$waited" -lt 30 ]; do
	running=
	for entry in $pids; do
		kill -0 "${entry%%:*}" 2>/dev/null && running="$running ${entry#*:}"
	done
	[ -z "$running" ] && break
	sleep 1
	waited=$((waited + 1))
done

status=0
for entry in $pids; do
	name=${entry#*:}
	{ read -r ok failed < "$tmp/$name"; } 2>/dev/null || { ok=0; failed=0; }
	echo "stress: $name $ok ok, $failed failed"
	case $name in
	load-*|read-*)
		[ "$ok" -gt 0 ] && [ "$failed" -eq 0 ] || status=1 ;;
	esac
done
if [ -n "$running" ]; then
	echo "stress: STALLED: still running 30 s after the deadline:$running"
	exit 2
fi
echo "stress: done, status $status"
exit $status
