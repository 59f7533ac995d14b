#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# labs/capture-lab6.sh: run the commands of docs/labs/lab6.rst (the data
# format on the host) and keep what they print in docs/captures/lab6/, so
# that the page shows real output.  "make captures" runs it.
#
#   labs/capture-lab6.sh [DEST]     DEST defaults to docs/captures/lab6
#
# Each step runs its command exactly as the page spells it (sh -c, from
# the repository root) and stores stdout and stderr in DEST/<step>.txt,
# with the paths that differ between machines rewritten as
# labs/capture-series.sh does (checkout -> ~/gcov-kernel-labs, work
# directory -> ~/.cache/gcov-kernel-labs, $HOME -> ~).
#
# The lab boots nothing: it compiles labs/format-lab/wc.c and the tree's
# kernel/gcov/gcc_12.c (branch lab-6) on the host, in ~/lab6.  The script
# refuses to start if ~/lab6 exists and was not made by an earlier run of
# this script, and it leaves the kernel tree on branch baseline
# ("vm/gcovlab lab 0", the page's last step; also on failure).

set -eu

me=labs/capture-lab6.sh

die() {
	printf '%s: %s\n' "$me" "$*" >&2
	exit 1
}

case ${1:-} in
-h|--help)
	sed -n '4,8p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac
dest=${1:-}
if [ -n "$dest" ]; then
	case $dest in
	/*) ;;
	*) dest=$(pwd)/$dest ;;
	esac
fi

cd "$(dirname "$0")/.."
repo=$(pwd -P)
[ -n "$dest" ] || dest=$repo/docs/captures/lab6
if [ -z "${HOME:-}" ] || [ "$HOME" = / ]; then
	die "HOME must be set to a home directory"
fi
work=$HOME/.cache/gcov-kernel-labs
if [ -n "${GCOVLAB_WORK:-}" ] &&
	[ "$(realpath -m "$GCOVLAB_WORK")" != "$(realpath -m "$work")" ]; then
	die "GCOVLAB_WORK is $GCOVLAB_WORK, but the lab page shows the default" \
		"work directory $work; unset GCOVLAB_WORK or link $work to it"
fi
unset GCOVLAB_WORK
for tool in gcc gcov gcov-dump od cmp diff; do
	command -v "$tool" >/dev/null || die "$tool not found"
done

out=$HOME/lab6
marker=.capture-lab6
if [ -L "$out" ] || { [ -e "$out" ] && [ ! -e "$out/$marker" ]; }; then
	die "$out exists and was not made by $me; move it away and run again"
fi
rm -rf "$out"

mkdir -p "$dest"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capture.XXXXXX")
cleanup() {
	vm/gcovlab lab 0 >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

LC_ALL=C.UTF-8
export LC_ALL
unset LANGUAGE GCOVLAB_SUFFIX GCOVLAB_RESET GCOVLAB_TWICE


# normalise() and step(): labs/capture-lib.sh
# shellcheck source=labs/capture-lib.sh
. "$repo/labs/capture-lib.sh"

# The page spells the paths with ~; sh -c expands it.
# shellcheck disable=SC2088
T='~/.cache/gcov-kernel-labs/linux'
step lab6 ok "vm/gcovlab lab 6"
step log ok "git -C $T log --oneline baseline..lab-6"
step writer ok "sed -n '/^size_t gcov_info_to_gcda/,/^}/p' $T/kernel/gcov/gcc_12.c"
step mkdir ok "mkdir ~/lab6 && cp labs/format-lab/wc.c ~/lab6/"
: >"$out/$marker"
step compile ok "gcc -O2 -fprofile-arcs -ftest-coverage -fno-tree-loop-im -c ~/lab6/wc.c -o ~/lab6/wc.o && ls ~/lab6"
step gcc12 ok "gcc -O2 -Wall -I labs/harness/shim -I $T/kernel/gcov -c $T/kernel/gcov/gcc_12.c -o ~/lab6/gcc_12.o"
step harness ok "gcc -O2 -Wall -I labs/harness/shim -I $T/kernel/gcov -c labs/harness/harness.c -o ~/lab6/harness.o"
step link ok "gcc ~/lab6/wc.o ~/lab6/harness.o ~/lab6/gcc_12.o -o ~/lab6/wc-series && nm ~/lab6/wc-series | grep -E ' (__gcov_[a-z_]+|gcov_info_to_gcda)$'"
step link-libgcov ok "gcc -fprofile-arcs ~/lab6/wc.o -o ~/lab6/wc-libgcov && nm ~/lab6/wc-libgcov | grep -E ' (__gcov_[a-z_]+|gcov_info_to_gcda)$'"
step run ok "printf 'the cat sat\\non the mat\\n' | ~/lab6/wc-series && ls ~/lab6"
step dump ok "gcov-dump -l ~/lab6/wc.gcda"
step names ok "gcov-dump ~/lab6/wc.gcno | grep FUNCTION"
step od ok "od -A d -t x4 ~/lab6/wc.gcda"
step gcov ok "gcov -t -o ~/lab6 ~/lab6/wc.c"
step run-long ok "printf 'the quick brown fox jumps over the lazy dog\\nhi\\n' | GCOVLAB_SUFFIX=.long ~/lab6/wc-series"
step diff fail "od -A d -t x4 ~/lab6/wc.gcda > ~/lab6/short.od && od -A d -t x4 ~/lab6/wc.gcda.long > ~/lab6/long.od && diff ~/lab6/short.od ~/lab6/long.od"
step dump-long ok "gcov-dump -l ~/lab6/wc.gcda.long | grep -A 1 COUNTERS"
step libgcov ok "mv ~/lab6/wc.gcda ~/lab6/wc.gcda.series && printf 'the cat sat\\non the mat\\n' | ~/lab6/wc-libgcov && wc -c ~/lab6/wc.gcda ~/lab6/wc.gcda.series"
step cmp fail "cmp ~/lab6/wc.gcda ~/lab6/wc.gcda.series"
step dump-libgcov ok "gcov-dump -l ~/lab6/wc.gcda"
step normalise ok "/usr/bin/python3 labs/format/gcda_normalise.py ~/lab6/wc.gcda ~/lab6/wc.gcda.norm && cmp ~/lab6/wc.gcda.norm ~/lab6/wc.gcda.series && echo same"
step back ok "vm/gcovlab lab 0"
printf '%s: captured in %s\n' "$me" "$dest" >&2
