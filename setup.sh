#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh - install the Debian packages gcov-kernel-labs needs, then
# optionally run a make target (default: nothing).
#
#   ./setup.sh          install only (idempotent: installed packages are kept)
#   ./setup.sh demo     install, then run 'make demo' (the README's first command)
#
# Works on a fresh Debian 12 without make: it installs make first.
# Uses sudo only when not already root.
set -eu

# What each package is for:
#   make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio kmod ccache pkg-config
#       build the kernel (tinyconfig) and out-of-tree modules, with ccache
#   linux-source-6.1      the packaged kernel tree the labs start from
#   xz-utils git          unpack it, keep it as a git repository
#   qemu-system-x86       the guest (TCG)
#   busybox-static        the guest's userland (initramfs)
#   lcov                  gcov front-end: lcov, genhtml (gcov comes with gcc)
#   gcovr                 the same data for CI systems: Cobertura XML, JSON
#   python3 python3-pytest the tool and the tests (/usr/bin/python3)
#   python3-ply python3-git  checkpatch.pl's SPDX check (scripts/spdxcheck.py)
#   python3-sphinx python3-sphinx-rtd-theme graphviz   the documentation site
#   python3-matplotlib       the charts of the Performance page (drawn at build)
#   chromium chromium-driver python3-selenium          the page check
#   gcc-11 clang-15       Debian's other compilers: the tests build with them
#                         to show the compiler guard and the version check
#                         refusing the real thing (nothing is built with them
#                         otherwise)
#   the script linter, package shellcheck
PACKAGES="make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio kmod ccache pkg-config
linux-source-6.1 xz-utils git qemu-system-x86 busybox-static lcov gcovr
python3 python3-pytest python3-ply python3-git python3-sphinx python3-sphinx-rtd-theme graphviz
python3-matplotlib
chromium chromium-driver python3-selenium shellcheck gcc-11 clang-15"

if [ "$(id -u)" -eq 0 ]; then
	SUDO=
else
	SUDO=sudo
	if ! command -v sudo >/dev/null 2>&1; then
		echo "setup.sh: not root and no sudo: run it as root, or install sudo" >&2
		exit 1
	fi
fi

missing=
for pkg in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $pkg"
	fi
done

if [ -n "$missing" ]; then
	echo "setup.sh: installing Debian packages:$missing"
	$SUDO apt-get update
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
else
	echo "setup.sh: all Debian packages already installed"
fi

if [ $# -gt 0 ]; then
	cd "$(dirname "$0")"
	echo "setup.sh: running make $*"
	exec make "$@"
fi
