#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench.sh - time the lab loop and print the figures (make bench).
#
#   tools/bench.sh           warm: a second 'make demo', and edit -> report
#   tools/bench.sh --cold    also a cold 'make demo' in a fresh work
#                           directory (extract, commit, build: minutes)
#
# Prints one line per figure; it asserts nothing (speed is measured here,
# not in the test suite).
set -eu
cd "$(dirname "$0")/.."

now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{ printf "%.1f", $1 - $2 }'; }

if [ "${1:-}" = "--cold" ]; then
	cold=$(mktemp -d /tmp/gcovlab-cold.XXXXXX)
	echo "bench: cold make demo in GCOVLAB_WORK=$cold (empty: no tree, no builds, no ccache)"
	t=$(now)
	GCOVLAB_WORK=$cold make -s demo > "$cold.log" 2>&1
	echo "bench: cold make demo: $(since "$t") s (log: $cold.log)"
	grep -E 'done in|built the' "$cold.log" | sed 's/^/bench:   /'
	rm -rf "$cold"
fi

t=$(now)
make -s demo > /dev/null
echo "bench: warm make demo: $(since "$t") s"

work=$(mktemp -d /tmp/gcovlab-edit.XXXXXX)
cp labs/driver/gcovdemo.c labs/driver/Kbuild labs/driver/workload-basic.sh "$work/"
vm/gcovlab run --mainline --module "$work" --workload "$work/workload-basic.sh" \
	--out "$work.out" > /dev/null
# The edit: one more line in the driver's init function.
sed -i 's|^\tpr_info("ready: /dev/%s\\n", gcovdemo_dev.name);|&\n\tpr_info("edited\\n");|' "$work/gcovdemo.c"
grep -q 'pr_info("edited' "$work/gcovdemo.c"
t=$(now)
vm/gcovlab run --mainline --module "$work" --workload "$work/workload-basic.sh" \
	--out "$work.out" > "$work.log" 2>&1
echo "bench: edit the driver -> new report: $(since "$t") s"
grep -E 'done in|finished in' "$work.log" | sed 's/^/bench:   /'
grep -q 'edited' "$work.out/console.log"
rm -rf "$work" "$work.out" "$work.log"
