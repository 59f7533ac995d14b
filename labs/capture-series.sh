#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# labs/capture-series.sh: run the commands of a series lab page (Labs 1-5, 7-11)
# and keep what they print in docs/captures/labN/, so that the page shows
# real output.  "make captures" runs it for every series lab.
#
#   labs/capture-series.sh N [DEST]     DEST defaults to docs/captures/labN
#
# Each step runs its command exactly as the page spells it (sh -c, from
# the repository root) and stores stdout and stderr in DEST/<step>.txt,
# with the paths that differ between machines rewritten as labs/capture.sh
# does (checkout -> ~/gcov-kernel-labs, work directory ->
# ~/.cache/gcov-kernel-labs, $HOME -> ~).
#
# The steps use the branch names the pages give a student (my-lab1-before,
# my-lab1, my-lab4).  The script refuses to start if one of them exists or
# the kernel tree is not clean, and deletes the ones it made at the end;
# it leaves the tree on branch baseline.  Results go to ~/labN/, removed
# first only if vm/gcovlab made them.

set -eu

me=labs/capture-series.sh

die() {
	printf '%s: %s\n' "$me" "$*" >&2
	exit 1
}

case ${1:-} in
-h|--help)
	sed -n '4,8p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
[1-5]|7|8|9|10|11) lab=$1 ;;
*) die "usage: $me N [DEST]   (N = 1 to 5, or 7 to 11)" ;;
esac
dest=${2:-}
if [ -n "$dest" ]; then
	case $dest in
	/*) ;;
	*) dest=$(pwd)/$dest ;;
	esac
fi

cd "$(dirname "$0")/.."
repo=$(pwd -P)
[ -n "$dest" ] || dest=$repo/docs/captures/lab$lab
if [ -z "${HOME:-}" ] || [ "$HOME" = / ]; then
	die "HOME must be set to a home directory"
fi
work=$HOME/.cache/gcov-kernel-labs
if [ -n "${GCOVLAB_WORK:-}" ] &&
	[ "$(realpath -m "$GCOVLAB_WORK")" != "$(realpath -m "$work")" ]; then
	die "GCOVLAB_WORK is $GCOVLAB_WORK, but the lab pages show the default" \
		"work directory $work; unset GCOVLAB_WORK or link $work to it"
fi
unset GCOVLAB_WORK
tree=$work/linux

vm/gcovlab tree >/dev/null
[ -z "$(git -C "$tree" status --porcelain)" ] ||
	die "the kernel tree $tree has uncommitted changes; commit or stash them first"
for b in my-lab1-before my-lab1 my-lab4 my-lab8 my-lab9 my-lab10 my-lab11; do
	if git -C "$tree" rev-parse --verify --quiet "refs/heads/$b" >/dev/null; then
		die "branch $b exists in $tree; the capture would use that name." \
			"Rename it (git -C $tree branch -m $b $b-mine) and run again."
	fi
done
out=$HOME/lab$lab
if [ -L "$out" ] || { [ -e "$out" ] && [ -z "$(find "$out" -maxdepth 2 -name .gcovlab-out)" ]; }; then
	die "$out exists and was not made by vm/gcovlab; move it away and run again"
fi
rm -rf "$out"

mkdir -p "$dest"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capture.XXXXXX")
made=""
cleanup() {
	git -C "$tree" checkout --quiet baseline 2>/dev/null || true
	for b in $made; do
		git -C "$tree" branch -D "$b" >/dev/null 2>&1 || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

LC_ALL=C.UTF-8
export LC_ALL
# git am and git commit need an identity; the pages ask students to set
# theirs.  Without one (a fresh CI user), use a stand-in for this run only.
if [ -z "$(git config user.email || true)" ]; then
	GIT_AUTHOR_NAME=student GIT_AUTHOR_EMAIL=student@example.invalid
	GIT_COMMITTER_NAME=student GIT_COMMITTER_EMAIL=student@example.invalid
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
fi
unset LANGUAGE


# normalise() and step(): labs/capture-lib.sh
# shellcheck disable=SC2034 # read by step() in labs/capture-lib.sh
step_label="lab $lab "
# shellcheck source=labs/capture-lib.sh
. "$repo/labs/capture-lib.sh"

# The pages spell the paths with ~; sh -c expands it.
# shellcheck disable=SC2088
T='~/.cache/gcov-kernel-labs/linux'
# shellcheck disable=SC2088
B='~/.cache/gcov-kernel-labs/build/lab'
case $lab in
1)
	made="my-lab1-before my-lab1"
	step switch-before ok "git -C $T switch -c my-lab1-before baseline"
	step am-before ok "git -C $T am \"\$PWD/labs/ctor/builtin-demo.patch\""
	step run-before ok "vm/gcovlab run --tree --module labs/ctor --workload labs/ctor/workload.sh --out ~/lab1/before"
	step orphan ok "grep 'orphan section' $B/gcovlab-build.log"
	step readelf ok "readelf -SW $B/init/ctor_demo.o | grep -E 'Name|init_array'"
	step lab1 ok "vm/gcovlab lab 1"
	step show ok "git -C $T show --stat lab-1 | tail -n 8"
	step switch-after ok "git -C $T switch -c my-lab1 lab-1 && git -C $T am \"\$PWD/labs/ctor/builtin-demo.patch\""
	step run-after ok "vm/gcovlab run --tree --module labs/ctor --workload labs/ctor/workload.sh --out ~/lab1/after"
	step ctors ok "nm $B/vmlinux | grep -E '__ctors_(start|end)'"
	step back ok "git -C $T switch baseline"
	;;
2)
	step lab2 ok "vm/gcovlab lab 2"
	step guard ok "sed -n '/^#if defined(__clang__)/,/^#endif/p' $T/kernel/gcov/gcc_version.h"
	step build ok "vm/gcovlab build --lab 2"
	step fire fail "make -s -C $T O=$B KCFLAGS='-U__GNUC__ -D__GNUC__=13 -U__GNUC_MINOR__ -D__GNUC_MINOR__=1' kernel/gcov/base.o"
	step repair ok "vm/gcovlab build --lab 2 --force"
	step back ok "vm/gcovlab lab 0"
	;;
3)
	step lab3 ok "vm/gcovlab lab 3"
	step seq-write ok "grep -n -A 14 '^int seq_write' $T/fs/seq_file.c"
	step run ok "vm/gcovlab run --lab 3 --module labs/seqwrite --workload labs/seqwrite/workload.sh --out ~/lab3"
	step back ok "vm/gcovlab lab 0"
	;;
4)
	made="my-lab4"
	step lab4 ok "vm/gcovlab lab 4"
	step log ok "git -C $T log --oneline baseline..lab-4"
	step run-driver ok "vm/gcovlab run --lab 4 --module labs/driver --workload labs/driver/workload-basic.sh --out ~/lab4/driver"
	step gcno ok "ls ~/lab4/driver/build/"
	step cmd-flags ok "grep -o -- '-fprofile-arcs -ftest-coverage -fno-tree-loop-im' ~/lab4/driver/build/.gcovdemo.o.cmd ; grep -l -- -fprofile-arcs ~/lab4/driver/build/.*.cmd"
	step branch ok "git -C $T switch -c my-lab4 lab-4 && printf '\\nGCOV := y\\n' >> $T/init/Makefile && git -C $T commit -q -am 'init: profile every object' && git -C $T log --oneline -1"
	step build ok "vm/gcovlab build --tree"
	step profiled ok "grep -l -- -fprofile-arcs $B/init/.*.o.cmd"
	step boot ok "vm/gcovlab boot --tree --out ~/lab4/boot && grep -E 'gcov: ' ~/lab4/boot/console.log"
	step ctors ok "nm $B/vmlinux | grep -E '__ctors_(start|end)'"
	step back ok "git -C $T switch baseline"
	;;
5)
	step lab5 ok "vm/gcovlab lab 5"
	step show ok "git -C $T show --stat lab-5 | tail -n 4"
	step run ok "vm/gcovlab run --lab 5 --module labs/driver --workload labs/driver/workload-full.sh --out ~/lab5"
	step registry ok "grep 'gcov: ' ~/lab5/console.log"
	step back ok "vm/gcovlab lab 0"
	;;
7)
	step lab7 ok "vm/gcovlab lab 7"
	step run ok "vm/gcovlab run --lab 7 --module labs/driver --workload labs/driver/workload-basic.sh --out ~/lab7/basic"
	step find ok "cd ~/lab7/basic/gcda && find . -name '*.gcda'"
	step kunit ok "sed -n '/KTAP version 1/,/ok 1 gcov_gcc_12/p' ~/lab7/basic/console.log"
	step compare ok "vm/gcovlab compare --lab 7 --module labs/driver --workload labs/driver/workload-full.sh --out ~/lab7/compare"
	step outofline ok "vm/gcovlab compare --lab 7 --module tests/data/outofline --workload tests/data/outofline/workload.sh --out ~/lab7/outofline"
	step persist ok "vm/gcovlab run --lab 7 --module labs/driver --workload tests/data/lab7/reads.sh --out ~/lab7/persist"
	step persist0 ok "vm/gcovlab run --lab 7 --module labs/driver --workload tests/data/lab7/persist.sh --append gcov_persist=0 --out ~/lab7/persist0"
	step changed ok "vm/gcovlab run --lab 7 --module labs/driver --module-v2 tests/data/lab7/changed --random-seed lab7 --workload tests/data/lab7/changed.sh --out ~/lab7/changed"
	step nonroot ok "vm/gcovlab run --lab 7 --module labs/driver --workload tests/data/lab7/nonroot.sh --out ~/lab7/nonroot"
	step back ok "vm/gcovlab lab 0"
	# The site publishes step 2's lcov report (lcov --no-external: the
	# driver's file only), with the machine's paths rewritten like the text.
	if [ "$dest" = "$repo/docs/captures/lab7" ]; then
		report=$repo/docs/reports/lab7-report
		rm -rf "$report"
		mkdir -p "$report"
		cp -R "$HOME/lab7/basic/html/." "$report/"
		find "$report" -name '*.html' | while IFS= read -r page; do
			normalise <"$page" >"$tmp/page.html"
			mv "$tmp/page.html" "$page"
		done
		echo "$me: lcov report copied to docs/reports/lab7-report/" >&2
	fi
	;;
8)
	made="my-lab8"
	step lab8 ok "vm/gcovlab lab 8"
	step show ok "git -C $T show --stat lab-8 | tail -n 4"
	step run ok "vm/gcovlab run --lab 8 --module labs/driver --workload labs/driver/workload-basic.sh --out ~/lab8/driver"
	step links ok "make -s -C $B M=\$HOME/lab8/driver/build gcov_links && ls -l ~/lab8/driver/build/*.gcda"
	step repoint ok "make -s -C $B M=\$HOME/lab8/driver/build gcov_links GCOV_DATA_DIR=\$HOME/lab8/driver/gcda && ls -l ~/lab8/driver/build/*.gcda"
	step gcov ok "cd ~/lab8/driver/build && gcov -o . gcovdemo.c"
	step branch ok "git -C $T switch -c my-lab8 lab-8 && printf '\\nGCOV := y\\n' >> $T/init/Makefile && git -C $T commit -q -am 'init: profile every object' && git -C $T log --oneline -1"
	step build ok "vm/gcovlab build --tree && ls -l $B/init/*.gcda"
	step boot ok "vm/gcovlab boot --tree --out ~/lab8/boot"
	step builtin ok "make -s -C $T O=$B gcov_links GCOV_DATA_DIR=\$HOME/lab8/boot/gcda && cd $B && gcov -o init/ main.c"
	step clean ok "make -s -C $B M=\$HOME/lab8/driver/build clean && ls ~/lab8/driver/build"
	step back ok "git -C $T switch baseline && rm -f $B/*.gcov"
	;;
9)
	made="my-lab9"
	step lab9 ok "vm/gcovlab lab 9"
	step build1 fail "vm/gcovlab build --lab 9"
	step branch ok "git -C $T switch -c my-lab9 lab-9"
	step vdso ok "grep -n GCOV $T/arch/x86/entry/vdso/Makefile"
	step fix1 ok "sed -i 's/^GCOV_PROFILE := n\$/GCOV := n/' $T/arch/x86/entry/vdso/Makefile && git -C $T diff --stat"
	step build2 fail "vm/gcovlab build --tree --variant all"
	step fix2 ok "sed -i 's/^GCOV_PROFILE\\t:= n\$/GCOV\\t\\t:= n/' $T/arch/x86/purgatory/Makefile && git -C $T diff --stat"
	step build3 fail "vm/gcovlab build --tree --variant all"
	step fix3 ok "sed -i 's/^GCOV_PROFILE := n\$/GCOV := n/' $T/arch/x86/boot/compressed/Makefile && git -C $T diff --stat"
	step build4 fail "vm/gcovlab build --tree --variant all"
	step fix4 ok "sed -i 's/^GCOV_PROFILE := n\$/GCOV := n/' $T/arch/x86/boot/Makefile && git -C $T diff --stat"
	step build5 ok "vm/gcovlab build --tree --variant all"
	step commit ok "git -C $T commit -q -am 'x86: exclude what cannot call the gcov code' && git -C $T diff --stat my-lab9 lab-10 -- arch drivers"
	step run ok "vm/gcovlab run --tree --variant all --module labs/driver --workload labs/driver/workload-basic.sh --out ~/lab9/all --timeout 600"
	step report ok "vm/gcovlab kernel-report --out ~/lab9/all --tree --variant all"
	step back ok "git -C $T switch baseline"
	;;
10)
	made="my-lab10"
	step lab10 ok "vm/gcovlab lab 10"
	step plain ok "vm/gcovlab run --lab 10 --module labs/smp --workload labs/smp/workload.sh --out ~/lab10/plain"
	step plain-count ok "grep -h 'FNDA:.*gcovrace_hit' ~/lab10/plain/lcov.info"
	step plain-code ok "objdump -d ~/lab10/plain/build/gcovrace.o | grep -A 4 '<gcovrace_hit>:'"
	step fix ok "git -C $T switch -c my-lab10 lab-10 && git -C $T am \"\$PWD\"/patches/0011-*.patch"
	step atomic ok "vm/gcovlab run --tree --variant smp --module labs/smp --workload labs/smp/workload.sh --out ~/lab10/atomic"
	step atomic-count ok "grep -h 'FNDA:.*gcovrace_hit' ~/lab10/atomic/lcov.info"
	step atomic-code ok "objdump -d ~/lab10/atomic/build/gcovrace.o | grep -A 4 '<gcovrace_hit>:'"
	step back ok "git -C $T switch baseline"
	;;
11)
	made="my-lab11"
	step lab11 ok "vm/gcovlab lab 11"
	step build ok "vm/gcovlab build --lab 11"
	step bug ok "git -C $T switch -c my-lab11 lab-11 && git -C $T am \"\$PWD\"/labs/stress/v1-remove-under-lock.patch"
	step v1 fail "vm/gcovlab run --tree --variant debug --module labs/stress --workload labs/stress/stress.sh --out ~/lab11/v1 --timeout 150 --append STRESS_SECONDS=20"
	step v1-hung ok "grep -m 1 -A 32 'blocked for more than' ~/lab11/v1/console.log"
	step v1-remover ok "labs/stress/blocked.py ~/lab11/v1/console.log debugfs_remove"
	step v1-opener ok "labs/stress/blocked.py ~/lab11/v1/console.log gcov_file_open"
	step v1-locks ok "sed -n '/Showing all locks held/,/=====/{p;/=====/q}' ~/lab11/v1/console.log"
	step fixed ok "git -C $T switch lab-11"
	step helpers ok "gcc -static -Os -o ~/lab11/badio labs/stress/badio.c && gcc -static -Os -o ~/lab11/failnth labs/stress/failnth.c"
	step v2 ok "vm/gcovlab run --lab 11 --module labs/stress --workload labs/stress/lab11.sh --file labs/stress/stress.sh --file ~/lab11/badio --file ~/lab11/failnth --out ~/lab11/v2 --timeout 600 --append 'gcov_persist=garbage gcov_persist=-1 gcov_persist=99999999999999999999 STRESS_SECONDS=60'"
	step v2-summary ok "grep -E '^(stress|badio|failnth|lab11):' ~/lab11/v2/workload.log"
	step v2-checkers ok "grep -E 'KernelAddressSanitizer|Lock dependency validator|memory leak detector|hung_task|invalid gcov_persist' ~/lab11/v2/console.log"
	step mainline fail "vm/gcovlab run --mainline --variant debug --module labs/stress --workload labs/stress/stress.sh --out ~/lab11/mainline --timeout 150 --append STRESS_SECONDS=20"
	step mainline-remover ok "labs/stress/blocked.py ~/lab11/mainline/console.log debugfs_remove"
	step mainline-locks ok "sed -n '/Showing all locks held/,/=====/{p;/=====/q}' ~/lab11/mainline/console.log"
	step summary ok "labs/stress/summary.py v2=~/lab11/v2 v1=~/lab11/v1 mainline=~/lab11/mainline"
	step table ok "labs/stress/summary.py --csv 'series v2=~/lab11/v2' 'series v1 (bug 1 put back)=~/lab11/v1' 'mainline 6.1=~/lab11/mainline'"
	mv "$dest/table.txt" "$dest/table.csv"
	step back ok "git -C $T switch baseline && git -C $T branch -D my-lab11"
	;;
esac
printf '%s: lab %s captured in %s\n' "$me" "$lab" "$dest" >&2
