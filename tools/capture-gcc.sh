#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/capture-gcc.sh: compile the small C files in docs/examples/gcc/ and keep
# what GCC and binutils say about them, for the pages "How GCC instruments
# code" and "The compiler guard".  Needs only gcc, binutils and gcov-dump
# (the gcc package); clang is used when it is installed.
#
#   tools/capture-gcc.sh [DEST]     DEST defaults to docs/captures/gcc
#
# Every DEST/<name>.txt holds one or more commands, each on a line that
# starts with "$ ", followed by what the command printed (stdout and
# stderr together), exactly as it printed it.  The commands run in a
# fresh temporary directory that holds copies of docs/examples/gcc/*.c, so every
# path in the output is relative, except the working directory that
# gcov-dump prints for a .gcno file and the .gcda file name that GCC
# stores in the object: there the temporary directory's name is written
# as /tmp/gcc-demo.
#
# What changes from one run to the next: the "stamp" that gcov-dump
# prints (GCC makes a new one for every compilation), and the version
# numbers if the compiler is upgraded.  guard-clang.txt needs clang: on a
# machine without it the committed file is kept and the script says so.

set -eu

me=tools/capture-gcc.sh
# shellcheck source=tools/capture-lib.sh
. "$(dirname "$0")/capture-lib.sh"

capture_help 4,9 "${1:-}"
capture_args gcc "$@"
need gcc objdump readelf nm strings gcov gcov-dump

work=$(mktemp -d "${TMPDIR:-/tmp}/capture-gcc.XXXXXX")
shown=/tmp/gcc-demo
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cp docs/examples/gcc/*.c "$work/"

# --- How GCC instruments code -----------------------------------------

start compile
run compile "gcc --version | head -n 1"
run compile "gcc -O2 -fprofile-arcs -ftest-coverage -c demo.c"
run compile "ls demo.*"

start sections
run sections "objdump -h demo.o"

start readelf
run readelf "readelf -SW demo.o | grep -E 'Nr\\]|init_array|fini_array|text\\.(startup|exit)'"

start nm
run nm "nm demo.o"
run nm "nm -S demo.o | grep __gcov0"

start ctor
run ctor "objdump -dr --no-show-raw-insn -j .text.startup -j .text.exit demo.o"

start gcno
run gcno "gcov-dump -l demo.gcno"

start flags-alone
run flags-alone "gcc -O2 -fprofile-arcs -c demo.c -o arcs-only.o"
run flags-alone "gcc -O2 -ftest-coverage -c demo.c -o notes-only.o"
run flags-alone "ls arcs-only.* notes-only.*"
run flags-alone "nm arcs-only.o"
run flags-alone "nm notes-only.o"

start userspace
run userspace "gcc -O2 --coverage -c main.c"
run userspace "gcc --coverage main.o demo.o -o demo"
run userspace "./demo && ls *.gcda"
run userspace "gcov-dump -l demo.gcda"
run userspace "gcov demo.c && cat demo.c.gcov"

start loop-im
run loop-im "objdump -dr --no-show-raw-insn -j .text demo.o"
run loop-im "gcc -O2 -fprofile-arcs -ftest-coverage -fno-tree-loop-im -c demo.c -o demo-no-im.o"
run loop-im "objdump -dr --no-show-raw-insn -j .text demo-no-im.o"

start stack
run stack "gcc -O2 -fstack-usage -c bits.c && cat bits.su"
run stack "gcc -O2 -fprofile-arcs -ftest-coverage -fstack-usage -c bits.c && cat bits.su"
run stack "gcc -O2 -fprofile-arcs -ftest-coverage -fno-tree-loop-im -fstack-usage -c bits.c && cat bits.su"

# --- The compiler guard -----------------------------------------------

start layout
run layout "objdump -s -j .data.rel demo.o"
run layout "readelf -rW demo.o | awk '/rela[.]data[.]rel/,/^\$/'"
run layout "objdump -t demo.o | grep -F .data.rel"
run layout "strings -a demo.o | grep -F .gcda"

start guard
run guard "gcc -dM -E -x c /dev/null | grep -E '__GNUC(_MINOR|_PATCHLEVEL)?__ '"
run guard "gcc -c guard.c && echo accepted"
status guard "gcc -U__GNUC__ -D__GNUC__=13 -c guard.c" fails

if command -v clang >/dev/null 2>&1; then
	start guard-clang
	run guard-clang "clang --version | head -n 1"
	run guard-clang "clang -dM -E -x c /dev/null | grep -E '__GNUC(_MINOR|_PATCHLEVEL)?__ |__clang_m'"
	status guard-clang "clang -c guard.c" fails
else
	printf '%s: clang is not installed; kept %s/guard-clang.txt as it was\n' \
		"$me" "$dest" >&2
fi

printf '%s: captures written to %s\n' "$me" "$dest"
