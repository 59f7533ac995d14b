#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 7 test workload: one load, one calculation, unload (the reference
# for the revived counts of reads.sh).
set -e
insmod gcovdemo.ko
echo "2 3 +" > /dev/gcovdemo
rmmod gcovdemo
