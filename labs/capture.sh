#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# labs/capture.sh: run the commands of the Lab 0 page and keep what they
# print, so that docs/labs/lab0.rst shows real output.  "make captures"
# runs it; the site build then needs no kernel.
#
#   labs/capture.sh [DEST]     DEST defaults to docs/captures/lab0
#
# Each step runs its command exactly as the page spells it (with "sh -c",
# from the repository root unless the page has the student cd elsewhere)
# and stores stdout and stderr in DEST/<step>.txt.  What differs between
# machines is then rewritten:
#
#   the checkout's absolute path        ->  ~/gcov-kernel-labs
#   the work directory's real path      ->  ~/.cache/gcov-kernel-labs
#   $HOME where a path starts           ->  ~
#   $HOME inside a longer path          ->  /<home>   (the debugfs mirror
#                                          of a build path, under gcda/)
#
# Nothing else is changed; durations, timestamps and gcov stamps stay as
# they were.  tests/test_captures.py re-runs this script and masks those.
# Two outputs may be cut, and a cut is always marked in the file: the
# excerpt of gcovdemo.c.gcov (its range found by function name) and the
# "git show --stat" of the baseline, if it ever grows beyond TRIM_OVER
# lines (today it is shown whole).
#
# The runs write to ~/lab0/basic and ~/lab0/full.  Those two directories
# are removed first, and only if vm/gcovlab made them (.gcovlab-out).
#
# DEST also receives report.png, a screenshot of the basic run's genhtml
# report (the function list of gcovdemo.c) taken with headless Chromium in
# a 1200x800 window, with the empty rows below the report cut off.

set -eu

TRIM_OVER=60     # outputs longer than this are shortened ...
TRIM_HEAD=50     # ... to their first TRIM_HEAD lines
TRIM_TAIL=5      # ... and their last TRIM_TAIL lines

me=labs/capture.sh

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
[ $# -le 1 ] || die "usage: $me [DEST]"

# A DEST given is relative to where the script was started; the default
# is in the repository.
dest=${1:-}
if [ -n "$dest" ]; then
	case $dest in
	/*) ;;
	*) dest=$(pwd)/$dest ;;
	esac
fi

cd "$(dirname "$0")/.."
repo=$(pwd -P)
repo_logical=$(pwd -L)
[ -n "$dest" ] || dest=$repo/docs/captures/lab0

if [ -z "${HOME:-}" ] || [ "$HOME" = / ]; then
	die "HOME must be set to a home directory"
fi
for tool in perl gcov gcov-dump chromium; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed; run ./setup.sh to install what the labs need"
done

# The page shows the default work directory.  Another one is fine if it is
# the same directory by another name (e.g. ~/.cache/gcov-kernel-labs is a
# symbolic link to it).
work=$HOME/.cache/gcov-kernel-labs
if [ -n "${GCOVLAB_WORK:-}" ] &&
	[ "$(realpath -m "$GCOVLAB_WORK")" != "$(realpath -m "$work")" ]; then
	die "GCOVLAB_WORK is $GCOVLAB_WORK, but the Lab 0 page shows the default" \
		"work directory $work.  Unset GCOVLAB_WORK, or make $work a" \
		"symbolic link to your work directory, and run again."
fi
unset GCOVLAB_WORK

# Refuse before anything is removed.
basic=$HOME/lab0/basic
full=$HOME/lab0/full
for out in "$basic" "$full"; do
	if [ -L "$out" ] || { [ -e "$out" ] && [ ! -f "$out/.gcovlab-out" ]; }; then
		die "$out exists and was not made by vm/gcovlab (no .gcovlab-out in" \
			"it).  Lab 0 writes its results there: move it away and run again."
	fi
done
for out in "$basic" "$full"; do
	rm -rf "$out"
done

mkdir -p "$dest"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Outputs in the captures should not depend on the maintainer's locale.
LC_ALL=C.UTF-8
export LC_ALL
unset LANGUAGE
# git decorates "log" and "show" with branch and tag names when it writes
# to a terminal, which is what a student sees; ask for the same here.
GIT_CONFIG_COUNT=1
GIT_CONFIG_KEY_0=log.decorate
GIT_CONFIG_VALUE_0=short
export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0

# The rewriting described at the top.  perl is there wherever lcov is.
normalise() {
	CAP_REPO=$repo CAP_REPO_L=$repo_logical CAP_WORK=$(realpath -m "$work") \
	CAP_WORK_L=$work CAP_HOME=$HOME perl -pe '
		BEGIN {
			%r = ($ENV{CAP_REPO} => "~/gcov-kernel-labs",
			      $ENV{CAP_REPO_L} => "~/gcov-kernel-labs",
			      $ENV{CAP_WORK} => "~/.cache/gcov-kernel-labs",
			      $ENV{CAP_WORK_L} => "~/.cache/gcov-kernel-labs");
			# longest first, so that a path inside another is not
			# rewritten half-way
			@k = sort { length($b) <=> length($a) } keys %r;
			$h = $ENV{CAP_HOME};
		}
		for $p (@k) { s{(?<![\w.~/-])\Q$p\E(?![\w.-])}{$r{$p}}g }
		s{(?<![\w.~/-])\Q$h\E(?![\w.-])}{~}g;
		s{\Q$h\E(?=/)}{/<home>}g;
	'
}

# trim: shorten stdin to TRIM_HEAD + TRIM_TAIL lines if it is longer than
# TRIM_OVER, saying how many lines were left out and by whom.
trim() {
	awk -v over="$TRIM_OVER" -v head="$TRIM_HEAD" -v tail="$TRIM_TAIL" '
		{ line[NR] = $0 }
		END {
			if (NR <= over) { for (i = 1; i <= NR; i++) print line[i]; exit }
			for (i = 1; i <= head; i++) print line[i]
			printf "[... %d lines left out by labs/capture.sh ...]\n", NR - head - tail
			for (i = NR - tail + 1; i <= NR; i++) print line[i]
		}'
}

count=0

# step NAME COMMAND [FILTER]: run COMMAND as the page shows it, from the
# current directory, and store its normalised output in DEST/NAME.txt.
step() {
	name=$1 cmd=$2 filter=${3:-cat}
	printf '%s: %-14s $ %s\n' "$me" "$name" "$cmd" >&2
	status=0
	sh -c "$cmd" >"$tmp/$name.raw" 2>&1 </dev/null || status=$?
	normalise <"$tmp/$name.raw" | $filter >"$dest/$name.txt"
	if [ "$status" -ne 0 ]; then
		tail -n 30 "$tmp/$name.raw" >&2
		die "step $name failed (exit $status): $cmd"
	fi
	count=$((count + 1))
}

# The lines of gcovdemo.c.gcov for calc_apply() and calc_token(), with the
# file's header (the line-0 records), located by function name so that an
# edit to the driver moves the excerpt with it.
gcov_excerpt() {
	gcov_file=$1
	awk '
		{
			# "  count:lineno:source"; the source may hold colons too
			rest = substr($0, index($0, ":") + 1)
			n = substr(rest, 1, index(rest, ":") - 1) + 0
			src = substr(rest, index(rest, ":") + 1)
			last = n
		}
		n == 0 { print; next }
		src ~ /^static int calc_apply\(/ { from = n }
		src ~ /^static int calc_token\(/ { intoken = 1 }
		from && !to {
			if (!shown) {
				if (from > 1)
					printf "[... lines 1-%d left out by labs/capture.sh ...]\n", from - 1
				shown = 1
			}
			print
			if (intoken && src == "}") to = n
		}
		END {
			if (!from || !to) {
				print "capture.sh: calc_apply() or calc_token() not found" > "/dev/stderr"
				exit 1
			}
			if (last > to)
				printf "[... lines %d-%d left out by labs/capture.sh ...]\n", to + 1, last
		}' "$gcov_file"
}

# ---- the steps, in the order of docs/labs/lab0.rst ----------------------

step tree 'vm/gcovlab tree'
step git-log 'git -C ~/.cache/gcov-kernel-labs/linux log --oneline gcovlab-baseline'
step git-show-baseline 'git -C ~/.cache/gcov-kernel-labs/linux show --stat gcovlab-baseline' trim
step build-mainline 'vm/gcovlab build --mainline'
step config-gcov 'grep GCOV ~/.cache/gcov-kernel-labs/build/mainline/.config'
step run-basic 'vm/gcovlab run --mainline --module labs/driver --workload labs/driver/workload-basic.sh --out ~/lab0/basic'
step find-gcda 'find ~/lab0/basic/gcda -type f'
step gcov 'cd ~/lab0/basic/build && gcov -o . gcovdemo.c'

cd "$basic/build"
printf '%s: %-14s (calc_apply and calc_token of gcovdemo.c.gcov)\n' "$me" gcov-excerpt >&2
gcov_excerpt gcovdemo.c.gcov >"$tmp/gcov-excerpt.raw" ||
	die "could not cut the excerpt out of $basic/build/gcovdemo.c.gcov"
normalise <"$tmp/gcov-excerpt.raw" >"$dest/gcov-excerpt.txt"
count=$((count + 1))
step gcov-dump 'gcov-dump -l gcovdemo.gcda | head -20'
cd "$repo"

step run-full 'vm/gcovlab run --mainline --module labs/driver --workload labs/driver/workload-full.sh --out ~/lab0/full'
step summaries 'head ~/lab0/basic/summary.txt ~/lab0/full/summary.txt'

# The page's "Check" section.
step check-status 'cat ~/lab0/basic/status ~/lab0/full/status'
step check-missed 'grep -c "#####" ~/lab0/basic/build/gcovdemo.c.gcov'
step check-header 'od -A d -t x4 -N 16 ~/lab0/basic/build/gcovdemo.gcda'
step check-lcov 'lcov --summary ~/lab0/full/lcov.info'

# ---- the screenshot of the basic run's report ---------------------------

# The report's function list for gcovdemo.c: one click below the source
# view, it shows the file's totals and every function's call count on one
# screen.  (Headless --screenshot cannot scroll, so the source view would
# show only the licence comment.)  It is taken from a copy of the report
# with the same rewriting as the text captures.
printf '%s: %-14s (genhtml report of the basic run, headless Chromium)\n' "$me" report.png >&2
cp -R "$basic/html" "$tmp/html"
find "$tmp/html" -name '*.html' | while read -r page; do
	normalise <"$page" >"$page.new" && mv "$page.new" "$page"
done
shot=$(find "$tmp/html" -name gcovdemo.c.func-sort-c.html | head -n 1)
[ -n "$shot" ] || die "genhtml made no function list for gcovdemo.c in $basic/html"
rm -f "$dest/report.png"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
	--no-first-run --disable-background-networking \
	--disable-component-update --disable-sync --hide-scrollbars \
	--user-data-dir="$tmp/chromium-profile" --window-size=1200,800 \
	--screenshot="$dest/report.png" "file://$shot" \
	>"$tmp/chromium.log" 2>&1 || true
if [ ! -s "$dest/report.png" ]; then
	tail -n 20 "$tmp/chromium.log" >&2
	die "headless Chromium made no screenshot of the report"
fi
# The report fills the top half of the window; cut off the empty rows
# below it (plain Python: zlib is all a PNG needs).
/usr/bin/python3 - "$dest/report.png" <<'EOF' || die "could not trim $dest/report.png"
import struct, sys, zlib

path = sys.argv[1]
with open(path, "rb") as f:
    data = f.read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and not interlace, "unexpected PNG layout"
bpp = 4 if ctype == 6 else 3
stride = w * bpp
raw = zlib.decompress(idat)
rows, prev = [], bytearray(stride)
for y in range(h):
    ftype = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if ftype == 1:
            line[i] = (line[i] + a) & 255
        elif ftype == 2:
            line[i] = (line[i] + b) & 255
        elif ftype == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif ftype == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
last = h - 1
while last > 0 and rows[last] == rows[h - 1]:
    last -= 1
keep = min(h, last + 1 + 24)


def chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))


with open(path, "wb") as f:
    f.write(data[:8] + chunk(b"IHDR", struct.pack(">IIBBBBB", w, keep, 8, ctype, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows[:keep]), 9)) +
            chunk(b"IEND", b""))
EOF
count=$((count + 1))

printf '%s: %d captures in %s\n' "$me" "$count" "$dest" >&2
