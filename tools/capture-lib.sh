# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154
#
# tools/capture-lib.sh: what the chapter capture scripts share, sourced by
# tools/capture-gcc.sh, tools/capture-kbuild.sh and tools/capture-format.sh.
# The caller sets "me" (its name) and "help_lines" (the sed range of its
# usage text), then calls capture_args with its default DEST folder
# (docs/captures/NAME) and its arguments.  Afterwards the current
# directory is the top of the checkout and "dest" is set.  For start,
# run and status the caller also sets "work" (the scratch folder the
# commands run in) and "shown" (how the output names that folder).

die() {
	printf '%s: %s\n' "$me" "$*" >&2
	exit 1
}

# capture_help LINES ARG: on -h or --help, print the script's usage (the
# comment lines LINES, a sed range) and stop
capture_help() {
	case $2 in
	-h | --help)
		sed -n "$1p" "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	esac
}

# need TOOL...: each must be installed
need() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 ||
			die "$tool is not installed; run ./setup.sh to install what the labs need"
	done
}

# capture_args NAME [DEST]: DEST (relative to where the script was called
# from) or docs/captures/NAME; then cd to the checkout
capture_args() {
	name=$1
	shift
	[ $# -le 1 ] || die "usage: $me [DEST]"
	dest=${1:-}
	if [ -n "$dest" ]; then
		case $dest in
		/*) ;;
		*) dest=$(pwd)/$dest ;;
		esac
	fi
	cd "$(dirname "$0")/.." || die "cannot enter the checkout"
	[ -n "$dest" ] || dest=$(pwd)/docs/captures/$name
	mkdir -p "$dest"
	# The same output whatever the maintainer's locale.
	LC_ALL=C.UTF-8
	export LC_ALL
	unset LANGUAGE
}

# start NAME: begin DEST/NAME.txt afresh
start() {
	: >"$dest/$1.txt"
}

# run NAME COMMAND: append "$ COMMAND" and its output to DEST/NAME.txt.
# The command must succeed.
run() {
	printf '$ %s\n' "$2" >>"$dest/$1.txt"
	if ! (cd "$work" && sh -c "$2") >"$work/.out" 2>&1; then
		cat "$work/.out" >&2
		die "failed: $2"
	fi
	sed "s|$work|$shown|g" "$work/.out" >>"$dest/$1.txt"
}

# status NAME COMMAND [fails]: the same for a command that may fail, or
# must ("fails"); a non-zero exit status is shown after the output.
status() {
	printf '$ %s\n' "$2" >>"$dest/$1.txt"
	rc=0
	(cd "$work" && sh -c "$2") >"$work/.out" 2>&1 || rc=$?
	if [ "${3:-}" = fails ] && [ "$rc" -eq 0 ]; then
		die "succeeded, but should have failed: $2"
	fi
	sed "s|$work|$shown|g" "$work/.out" >>"$dest/$1.txt"
	[ "$rc" -eq 0 ] || printf '(exit status %s)\n' "$rc" >>"$dest/$1.txt"
}
