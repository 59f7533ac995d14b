#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/capture-format.sh: produce the real output that the pages "The
# gcov_info layout", "In-memory to in-file counter reordering", "The .gcda
# format" and "The debugfs interface and persistence" show.
#
#   tools/capture-format.sh [--host-only] [DEST]   DEST: docs/captures/format
#
# Host part: compiles docs/examples/format/*.c with gcc and runs them, the model of
# the kernel's writer (kwriter.c), gcov-dump, od, gcov and the tools
# tools/gcda_normalise.py and gcov_info_dump.py.  Kernel part (left
# out with --host-only, keeping the committed files): runs the sample
# driver's basic workload on the mainline kernel with vm/gcovlab and keeps
# the .gcda the kernel wrote (DEST/gcovdemo.gcda) and what the tools say
# about it and about the module's object file; then runs
# docs/examples/format/workload-debugfs.sh there and keeps its output
# (DEST/debugfs.txt).
#
# Every DEST/<name>.txt holds one or more commands, each on a line that
# starts with "$ ", and what the command printed (stdout and stderr),
# unchanged.  The commands run in a scratch directory, /tmp/gcovlab-format
# (under TMPDIR if set; written as /tmp/gcovlab-format in the output),
# that holds copies of docs/examples/format/*.c and a link "labs" to the checkout's
# labs/, so the tools' paths read as they do from the top of a checkout.
# The directory is made afresh and removed at the end; the fixed name keeps
# the paths that GCC hashes into its checksums the same from run to run,
# so only the stamps change between captures.

set -eu

me=tools/capture-format.sh
# shellcheck source=tools/capture-lib.sh
. "$(dirname "$0")/capture-lib.sh"

host_only=
case ${1:-} in
-h|--help)
	sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
--host-only)
	host_only=1
	shift
	;;
esac
[ $# -le 1 ] || die "usage: $me [--host-only] [DEST]"
capture_args format "$@"
repo=$(pwd -P)

need gcc gcov gcov-dump od nm cmp

scratch=${TMPDIR:-/tmp}/gcovlab-format
shown=/tmp/gcovlab-format
work=$scratch
if [ -e "$scratch" ] || [ -L "$scratch" ]; then
	if [ -L "$scratch" ] || [ ! -f "$scratch/.capture-format" ]; then
		die "$scratch exists and was not made by $me; move it away"
	fi
	rm -rf "$scratch"
fi
mkdir -p "$scratch"
: >"$scratch/.capture-format"
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
cp docs/examples/format/*.c "$scratch/"
ln -s "$repo/labs" "$scratch/labs"
ln -s "$repo/tools" "$scratch/tools"

# --- The gcov_info layout ----------------------------------------------

start layout
run layout "gcc -std=c11 -O0 layout.c -o layout && ./layout"

start active
run active "gcc -O2 -fprofile-arcs -fprofile-values -c values.c"
run active "nm -S values.o | grep gcov"
run active "tools/gcov_info_dump.py values.o"

# --- The .gcda format: libgcov and the kernel's form -------------------

start sample-build
run sample-build "gcc -O2 -fprofile-arcs -ftest-coverage -c sample.c"
run sample-build "gcc --coverage sample.o -o sample-libgcov"
run sample-build "gcc -O2 -c kwriter.c && gcc sample.o kwriter.o -o sample-kernel"

start sample-libgcov
run sample-libgcov "./sample-libgcov && mv sample.gcda libgcov.gcda"
run sample-libgcov "gcov-dump -l libgcov.gcda"
run sample-libgcov "od -A d -t x4 libgcov.gcda"

start sample-kernel
run sample-kernel "./sample-kernel && mv sample.gcda kernel.gcda"
run sample-kernel "gcov-dump -l kernel.gcda"
run sample-kernel "od -A d -t x4 kernel.gcda"

start sample-normalise
run sample-normalise "tools/gcda_normalise.py libgcov.gcda normalised.gcda --gcno sample.gcno"
run sample-normalise "cmp normalised.gcda kernel.gcda && echo identical"
run sample-normalise "tools/gcov_info_dump.py sample.o --gcda normalised.gcda"

start sample-gcov
run sample-gcov "cp libgcov.gcda sample.gcda && gcov sample.c && mv sample.c.gcov libgcov.c.gcov"
run sample-gcov "cp kernel.gcda sample.gcda && gcov sample.c && mv sample.c.gcov kernel.c.gcov"
status sample-gcov "diff libgcov.c.gcov kernel.c.gcov"
run sample-gcov "cat kernel.c.gcov"

start sample-errors
run sample-errors "head -c 140 libgcov.gcda > cut.gcda && cp cut.gcda sample.gcda && gcov sample.c"
status sample-errors "tools/gcda_normalise.py cut.gcda out.gcda" fails
run sample-errors "cp kernel.gcda sample.gcda && printf 'X' | dd of=sample.gcda bs=1 seek=32 conv=notrunc status=none && gcov sample.c"
run sample-errors "cp kernel.gcda other.gcda && printf 'ABCD' | dd of=other.gcda bs=1 seek=16 conv=notrunc status=none"
status sample-errors "tools/gcda_normalise.py other.gcda out.gcda" fails
run sample-errors "gcc -O2 -fprofile-arcs -ftest-coverage -c sample.c -o again.o"
run sample-errors "tools/gcda_normalise.py libgcov.gcda out.gcda --gcno sample.gcno && echo written"
status sample-errors "tools/gcda_normalise.py libgcov.gcda out.gcda --gcno again.gcno" fails

# --- Persistence: what tells two compilations apart ----------------------

start seed
run seed "gcc -O2 -fprofile-arcs -c sample.c -o plain1.o && gcc -O2 -fprofile-arcs -c sample.c -o plain2.o"
run seed "for o in plain1.o plain2.o; do tools/gcov_info_dump.py \$o | grep -E 'stamp|0x14'; done"
run seed "gcc -O2 -fprofile-arcs -frandom-seed=lab -c sample.c -o seed1.o && gcc -O2 -fprofile-arcs -frandom-seed=other -c sample.c -o seed2.o"
run seed "mkdir constant && sed 's/x > 100/x > 200/' sample.c > constant/sample.c"
run seed "cd constant && gcc -O2 -fprofile-arcs -frandom-seed=lab -c sample.c -o ../constant.o"
run seed "mkdir branch && sed 's/return x \\* 2;/if (x == 7)\\n\\t\\treturn 0;\\n\\treturn x * 2;/' sample.c > branch/sample.c"
run seed "diff sample.c branch/sample.c; cd branch && gcc -O2 -fprofile-arcs -frandom-seed=lab -c sample.c -o ../branch.o"
run seed "for o in seed1.o seed2.o constant.o branch.o; do echo \$o; tools/gcov_info_dump.py \$o | grep -E 'stamp|0x14|__gcov0.scale'; done"

# --- The kernel's file: the sample driver on mainline --------------------

if [ -n "$host_only" ]; then
	printf '%s: --host-only: kept the committed driver captures in %s\n' \
		"$me" "$dest" >&2
else
	printf '%s: running the sample driver on the mainline kernel ...\n' "$me" >&2
	if ! vm/gcovlab run --mainline --module labs/driver \
		--workload labs/driver/workload-basic.sh --out "$scratch/run" \
		>"$scratch/gcovlab.log" 2>&1; then
		cat "$scratch/gcovlab.log" >&2
		die "vm/gcovlab run failed"
	fi
	cp "$scratch/run/build/gcovdemo.gcda" "$dest/gcovdemo.gcda"

	start driver-dump
	run driver-dump "gcov-dump -l run/build/gcovdemo.gcda"

	start driver-od
	run driver-od "od -A d -t x4 run/build/gcovdemo.gcda"

	start driver-info
	run driver-info "tools/gcov_info_dump.py run/build/gcovdemo.o --gcda run/build/gcovdemo.gcda"

	start driver-normalise
	run driver-normalise "tools/gcda_normalise.py run/build/gcovdemo.gcda same.gcda --gcno run/build/gcovdemo.gcno"
	run driver-normalise "cmp same.gcda run/build/gcovdemo.gcda && echo identical"

	# The debugfs interface, step by step: only the workload's part of
	# what vm/gcovlab prints (it ends with the guest's console messages
	# in between) goes into DEST/debugfs.txt.
	printf '%s: running docs/examples/format/workload-debugfs.sh on the mainline kernel ...\n' "$me" >&2
	if ! vm/gcovlab run --mainline --module labs/driver \
		--workload docs/examples/format/workload-debugfs.sh --out "$scratch/debugfs" \
		>"$scratch/debugfs.log" 2>&1; then
		cat "$scratch/debugfs.log" >&2
		die "vm/gcovlab run with workload-debugfs.sh failed"
	fi
	# Two kernel messages that have nothing to do with the workload (the
	# emulated mouse and the TSC clocksource) arrive at random moments;
	# they are left out.
	sed -n '/^---- workload output/,/^---- end of workload output/p' \
		"$scratch/debugfs.log" | sed "s|$scratch|$shown|g" |
		sed '/\] input: /d; /\] clocksource: /d' >"$dest/debugfs.txt"
	grep -q 'has not returned' "$dest/debugfs.txt" ||
		printf '%s: note: the write to the ghost returned this time\n' "$me" >&2
fi

printf '%s: captures written to %s\n' "$me" "$dest"
