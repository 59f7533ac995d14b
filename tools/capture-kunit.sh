#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/capture-kunit.sh [DEST]: run vm/gcovlab kunit as the chapter
# docs/kunit-coverage.rst shows it (four in-tree suites on mainline; the
# series' own suites on Lab 12's kernel; the instructors' example module,
# labs/kunit-driver) and store the output in DEST/mainline.txt,
# DEST/module.txt and DEST/series-own.txt (default docs/captures/kunit).
# The work directory is written ~/.cache/gcov-kernel-labs and the output
# folder ~/kunit, as on a student's machine.  Moves the kernel tree to
# lab-12 and back to baseline; refuses a tree with uncommitted changes (as
# vm/gcovlab does).
me=capture-kunit.sh
help_lines=4,12
# shellcheck source=tools/capture-lib.sh
. "$(dirname "$0")/capture-lib.sh"
capture_help "$help_lines" "${1:-}"
capture_args kunit "$@"
need qemu-system-x86_64 lcov genhtml gcovr
wd=$(vm/gcovlab env) || die "vm/gcovlab env failed"
wd=${wd#export GCOVLAB_WORK=}
out=$(mktemp -d /tmp/kunit-capture.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$out"' EXIT
# run NAME COMMAND: as capture-lib's, but from the top of the checkout
# (vm/gcovlab), its scratch file in the output folder
run_here() {
	printf '$ %s\n' "$2" >>"$dest/$1.txt"
	if ! sh -c "$2" >"$out/.out" 2>&1; then
		cat "$out/.out" >&2
		die "failed: $2"
	fi
	cat "$out/.out" >>"$dest/$1.txt"
}

tidy() {
	sed -i "s|$wd|~/.cache/gcov-kernel-labs|g; s|$out|~/kunit|g" "$dest/$1.txt"
}

echo "$me: the four suites on mainline ..." >&2
start mainline
run_here mainline "vm/gcovlab kunit --mainline --suite cmdline --suite list_sort \
--suite linear-ranges-test --suite time_test_cases --cover lib/cmdline.c \
lib/list_sort.c lib/linear_ranges.c kernel/time/timeconv.c --out $out/mainline"
tidy mainline

echo "$me: an out-of-tree module's own suite on mainline ..." >&2
start module
run_here module "vm/gcovlab kunit --mainline --module labs/kunit-driver --cover rpn.c \
--out $out/rpn"
sed -i "s|$out/rpn|~/rpn|g" "$dest/module.txt"
tidy module

echo "$me: the series' own suites on Lab 12's kernel ..." >&2
start series-own
run_here series-own "vm/gcovlab kunit --lab 12 --suite gcov_gcc_12 --suite gcov_fs \
--suite gcov_base --cover kernel/gcov/gcc_12.c kernel/gcov/fs.c kernel/gcov/base.c \
--out $out/own"
tidy series-own
git -C "$wd/linux" switch -q baseline || die "could not put the tree back on baseline"
echo "$me: captures in $dest" >&2
