#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload: what rmmod leaves depends on gcov_persist=.  With
# gcov_persist=0 on the kernel command line the file goes with the module;
# otherwise (the default, or a value the kernel refused) a ghost stays.
set -e
fail() {
	echo "lab7: FAIL: $*"
	exit 1
}
want=ghost
case " $(cat /proc/cmdline) " in
*" gcov_persist=0 "*) want=gone ;;
esac
echo "lab7: expecting: $want"
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
f=$(find /sys/kernel/debug/gcov -name gcovdemo.gcda)
[ -n "$f" ] || fail "no gcovdemo.gcda in debugfs"
rmmod gcovdemo
if [ -e "$f" ]; then got=ghost; else got=gone; fi
echo "lab7: after rmmod: $got"
[ "$got" = "$want" ] || fail "expected $want after rmmod"
# Loading again must work either way.
insmod gcovdemo.ko
[ -e "$f" ] || fail "no file after the second insmod"
echo "lab7: reloaded"
