#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/capture-kbuild.sh: run GNU make on the models in docs/examples/kbuild/ and
# keep what it prints, for the page "kbuild GCOV variables"
# (docs/kbuild-gcov.rst).  Needs only make; no kernel tree.
#
#   tools/capture-kbuild.sh [DEST]     DEST defaults to docs/captures/kbuild
#
# DEST/precedence.txt is a table: for each combination of GCOV_foo.o
# (per object), GCOV (per directory), a GCOV given on make's command
# line (which a directory's make sees as KBUILD_GCOV, see rule.mk) and
# CONFIG_GCOV_PROFILE_ALL, the script writes the directory's Makefile,
# runs docs/examples/kbuild/rule.mk on it and reports what make decided
# for foo.o.  "unset" means the Makefile (or the environment) has no such
# variable, "(empty)" a line that assigns nothing.
#
# DEST/origin.txt (docs/examples/kbuild/origin.mk) and DEST/rule.txt (rule.mk)
# hold commands, each after "$ ", and what they printed.
# They run in a temporary directory with copies of the two models and
# two directories: plain/ (an empty Makefile) and boot/ (GCOV := n, as
# arch/x86/boot/Makefile says it in the series).

set -eu

me=tools/capture-kbuild.sh
# shellcheck source=tools/capture-lib.sh
. "$(dirname "$0")/capture-lib.sh"

capture_help 4,8 "${1:-}"
capture_args kbuild "$@"
need make

mkdir -p "$dest"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capture-kbuild.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cp docs/examples/kbuild/rule.mk docs/examples/kbuild/origin.mk "$tmp/"

# Start from a clean slate: none of the variables under study may come
# from the environment of whoever runs the script.
unset GCOV KBUILD_GCOV MAKEFLAGS MAKELEVEL CONFIG_GCOV_PROFILE_ALL

# --- precedence table ---------------------------------------------------

# row OBJ DIR CMD ALL: one line of the table; each argument is a value,
# "unset" or "(empty)".  CMD is "make GCOV=CMD", which reaches the
# directory's make as KBUILD_GCOV in its environment.
row() {
	d=$tmp/row
	rm -rf "$d"
	mkdir "$d"
	: >"$d/Makefile"
	case $1 in
	unset) ;;
	"(empty)") echo 'GCOV_foo.o :=' >>"$d/Makefile" ;;
	*) echo "GCOV_foo.o := $1" >>"$d/Makefile" ;;
	esac
	case $2 in
	unset) ;;
	"(empty)") echo 'GCOV :=' >>"$d/Makefile" ;;
	*) echo "GCOV := $2" >>"$d/Makefile" ;;
	esac
	all=
	[ "$4" = unset ] || all=$4
	out=$(
		cd "$tmp" || exit
		[ "$3" = unset ] || export KBUILD_GCOV="$3"
		make -s -f rule.mk DIR=row CONFIG_GCOV_PROFILE_ALL="$all"
	) || die "make failed for row: $*"
	case $out in
	"foo.o: instrumented"*) result=yes ;;
	"foo.o: not instrumented") result=no ;;
	*) die "unexpected output for row $*: $out" ;;
	esac
	printf '%-12s %-9s %-13s %-13s %s\n' "$1" "$2" "$3" "$4" "$result" >>"$dest/precedence.txt"
}

printf '%-12s %-9s %-13s %-13s %s\n' GCOV_foo.o GCOV KBUILD_GCOV PROFILE_ALL instrumented \
	>"$dest/precedence.txt"
row unset unset unset unset
row unset unset unset y
row unset unset y unset
row unset y unset unset
row y unset unset unset
row unset n unset y
row unset n y unset
row y n unset y
row n y unset y
row n unset unset y
row n unset y unset
row unset y n unset
row unset unset n y
row "(empty)" n unset y
row unset "(empty)" unset y
row unset no unset y
row unset N unset y
row yes unset unset unset

# --- origin -------------------------------------------------------------

mkdir "$tmp/plain" "$tmp/boot"
: >"$tmp/plain/Makefile"
echo 'GCOV := n' >"$tmp/boot/Makefile"

# run NAME COMMAND: append "$ COMMAND" and its output to DEST/NAME.txt
run() {
	printf '$ %s\n' "$2" >>"$dest/$1.txt"
	if ! (cd "$tmp" && sh -c "$2") >"$tmp/.out" 2>&1; then
		cat "$tmp/.out" >&2
		die "failed: $2"
	fi
	cat "$tmp/.out" >>"$dest/$1.txt"
}

: >"$dest/origin.txt"
run origin "cat boot/Makefile"
run origin "make -s -f origin.mk DIR=plain"
run origin "GCOV=gcov-12 make -s -f origin.mk DIR=plain SUB=1"
run origin "GCOV=gcov-12 make -s -f origin.mk DIR=boot"
run origin "make -s -f origin.mk DIR=boot SUB=1 GCOV=y"
run origin "GCOV=y make -e -s -f origin.mk DIR=boot"
run origin "make -s -f origin.mk DIR=plain SUB=1 GCOV=y TOP=overrides"
run origin "make -s -f origin.mk DIR=plain SUB=1 GCOV=y TOP=unexport"
run origin "make -s -f origin.mk DIR=plain SUB=1 GCOV=y TOP=kbuild"
run origin "make -s -f origin.mk DIR=boot SUB=1 GCOV=y TOP=kbuild"

: >"$dest/rule.txt"
run rule "GCOV=gcov-12 make -s -f rule.mk DIR=plain"
run rule "GCOV=gcov-12 make -s -f rule.mk DIR=plain CONFIG_GCOV_PROFILE_ALL=y"
run rule "make -s -f rule.mk DIR=boot CONFIG_GCOV_PROFILE_ALL=y"
run rule "KBUILD_GCOV=y make -s -f rule.mk DIR=plain"
run rule "KBUILD_GCOV=y make -s -f rule.mk DIR=boot"
run rule "KBUILD_GCOV=n make -s -f rule.mk DIR=plain CONFIG_GCOV_PROFILE_ALL=y"
run rule "make -s -f rule.mk DIR=boot GCOV=y"
run rule "GCOV=gcov-12 make -e -s -f rule.mk DIR=boot CONFIG_GCOV_PROFILE_ALL=y"

printf '%s: captures written to %s\n' "$me" "$dest"
