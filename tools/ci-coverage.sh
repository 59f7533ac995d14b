#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Coverage of an out-of-tree driver in a CI job: build it against a
# gcovlab kernel, run a workload on it in QEMU, leave the reports for the
# CI system to keep (lcov.info and html/, coverage.xml in Cobertura's
# format, coverage.json from gcovr), and fail when line or branch coverage
# is below a threshold.  docs/instructors.rst has a CI job that calls it.
#
#   tools/ci-coverage.sh [--mainline | --lab N] [--min-lines PCT]
#                        [--min-branches PCT] DRIVER_DIR WORKLOAD OUT
#   tools/ci-coverage.sh --check-only [--min-lines PCT] [--min-branches PCT] OUT
#
# --mainline (the default) builds against mainline's gcov support, --lab N
# against the series as Lab N has it (7 or later: the first with a debugfs
# export).  --check-only only reads an earlier run's OUT.  Exit status: 0,
# 1 when a threshold is not met, or the run's own (the workload's, or 125
# when the tool failed).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=--mainline
lab=
min_lines=0
min_branches=0
check_only=

usage() {
	sed -n '9,10p' "$0" | sed 's/^# *//' >&2
	exit 2
}

number() {
	case $2 in
	'' | *[!0-9.]* | *.*.*) echo "ci-coverage: $1 wants a percentage, not '$2'" >&2; exit 2 ;;
	esac
}

while [ $# -gt 0 ]; do
	case $1 in
	--mainline) kernel=--mainline; shift ;;
	--lab) [ $# -ge 2 ] || usage; kernel=--lab; lab=$2; shift 2 ;;
	--min-lines) [ $# -ge 2 ] || usage; number "$1" "$2"; min_lines=$2; shift 2 ;;
	--min-branches) [ $# -ge 2 ] || usage; number "$1" "$2"; min_branches=$2; shift 2 ;;
	--check-only) check_only=1; shift ;;
	-h | --help) usage ;;
	-*) echo "ci-coverage: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done

if [ -n "$check_only" ]; then
	[ $# -eq 1 ] || usage
	out=$1
else
	[ $# -eq 3 ] || usage
	driver=$1
	workload=$2
	out=$3
	echo "ci-coverage: building $driver against the ${kernel#--}${lab:+ $lab} kernel and running $workload (the first run builds the kernel: minutes)"
	status=0
	# shellcheck disable=SC2086 # $lab is empty or one number
	"$top/vm/gcovlab" run $kernel $lab --module "$driver" --workload "$workload" --out "$out" || status=$?
	if [ "$status" -ne 0 ]; then
		echo "ci-coverage: the run failed (exit $status): see $out/console.log and the messages above" >&2
		exit "$status"
	fi
fi

if [ ! -f "$out/coverage.json" ]; then
	echo "ci-coverage: $out/coverage.json is missing: is $out the --out of a finished run?" >&2
	exit 2
fi
status=0
/usr/bin/python3 - "$out/coverage.json" "$min_lines" "$min_branches" <<'PY' || status=$?
import json
import sys

path, min_lines, min_branches = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
with open(path, encoding="utf-8") as f:
    files = json.load(f)["files"]
# gcovr lists every line of the file; the ones with code are those it
# does not mark as noncode (or excluded by a comment in the source)
lines = [line for f in files for line in f["lines"]
         if not line.get("gcovr/noncode") and not line.get("gcovr/excluded")]
hit = sum(1 for line in lines if line["count"] > 0)
branches = [b for line in lines for b in line["branches"]]
taken = sum(1 for b in branches if b["count"] > 0)
pct_lines = 100.0 * hit / len(lines) if lines else 0.0
pct_branches = 100.0 * taken / len(branches) if branches else 0.0
print("ci-coverage: %d files, lines %.1f%% (%d of %d), branches %.1f%% (%d of %d)" % (
    len(files), pct_lines, hit, len(lines), pct_branches, taken, len(branches)))
failed = []
if pct_lines < min_lines:
    failed.append("lines %.1f%% < --min-lines %g" % (pct_lines, min_lines))
if pct_branches < min_branches:
    failed.append("branches %.1f%% < --min-branches %g" % (pct_branches, min_branches))
for what in failed:
    print("ci-coverage: below the threshold: %s" % what, file=sys.stderr)
sys.exit(1 if failed else 0)
PY
echo "ci-coverage: reports for the CI system: $out/coverage.xml (Cobertura), $out/coverage.json, $out/lcov.info, $out/html/"
exit $status
