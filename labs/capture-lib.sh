# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2154
#
# labs/capture-lib.sh: the two functions the lab capture scripts share,
# sourced by labs/capture-series.sh and labs/capture-lab6.sh.  The caller
# sets me, repo, work, dest and tmp (and may set step_label, printed
# before each step's name).

# Rewrite what differs between machines: the checkout -> ~/gcov-kernel-labs,
# the work directory -> ~/.cache/gcov-kernel-labs, $HOME -> ~.
normalise() {
	CAP_REPO=$repo CAP_WORK=$(realpath -m "$work") CAP_WORK_L=$work \
	CAP_HOME=$HOME perl -pe '
		BEGIN {
			%r = ($ENV{CAP_REPO} => "~/gcov-kernel-labs",
			      $ENV{CAP_WORK} => "~/.cache/gcov-kernel-labs",
			      $ENV{CAP_WORK_L} => "~/.cache/gcov-kernel-labs");
			@k = sort { length($b) <=> length($a) } keys %r;
			$h = $ENV{CAP_HOME};
		}
		for $p (@k) { s{(?<![\w.~/-])\Q$p\E(?![\w.-])}{$r{$p}}g }
		s{(?<![\w.~/-])\Q$h\E(?![\w.-])}{~}g;
		s{\Q$h\E(?=/)}{/<home>}g;
	'
}

# step NAME EXPECT COMMAND: run COMMAND as the page shows it; EXPECT is
# "ok" (must succeed) or "fail" (must fail: the page shows an error).
step() {
	name=$1 expect=$2 cmd=$3
	printf '%s: %s%-16s $ %s\n' "$me" "${step_label:-}" "$name" "$cmd" >&2
	status=0
	sh -c "$cmd" >"$tmp/$name.raw" 2>&1 </dev/null || status=$?
	normalise <"$tmp/$name.raw" >"$dest/$name.txt"
	if { [ "$expect" = ok ] && [ "$status" -ne 0 ]; } ||
		{ [ "$expect" = fail ] && [ "$status" -eq 0 ]; }; then
		tail -n 30 "$tmp/$name.raw" >&2
		die "step $name: expected $expect, got exit $status: $cmd"
	fi
}
