#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# export-series.sh - write the series from a kernel tree branch into patches/
#
#   tools/export-series.sh TREE BRANCH [VERSION]
#
# TREE is a git repository of the kernel tree (vm/gcovlab's, or a worktree
# of it), BRANCH the series on top of the tag gcovlab-baseline, VERSION the
# series' version for the subject prefix ("2" gives "[PATCH v2 NN/MM]").
# The files are written as git format-patch makes them, without the
# signature and with the trailing space of blank context lines removed,
# so that checkpatch -f on the files is clean too (git am takes both).
# patches/*.patch is replaced as a whole; the old files are in git.
set -eu

if [ $# -lt 2 ]; then
	echo "usage: $0 TREE BRANCH [VERSION]" >&2
	exit 2
fi
tree=$1
branch=$2
version=${3:-}
out=$(cd "$(dirname "$0")/.." && pwd)/patches

if ! git -C "$tree" rev-parse -q --verify "$branch^{commit}" >/dev/null; then
	echo "export-series.sh: no branch $branch in $tree" >&2
	echo "  create it there first (git -C $tree branch)" >&2
	exit 1
fi
prefix=PATCH
[ -n "$version" ] && prefix="PATCH v$version"

echo "export-series.sh: writing gcovlab-baseline..$branch to $out"
rm -f "$out"/*.patch
git -C "$tree" format-patch -q --no-signature --subject-prefix="$prefix" \
	-o "$out" gcovlab-baseline.."$branch"
for p in "$out"/*.patch; do
	sed -i 's/^ $//' "$p"
done
set -- "$out"/*.patch
echo "export-series.sh: $# patch files"
