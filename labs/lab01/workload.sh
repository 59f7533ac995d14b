#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lab 1 workload: what did the built-in demo (if the kernel has it) and the
# module say about their constructors?
set -e
echo "built-in: $(dmesg | grep -o 'ctor_demo: .*' || echo 'no ctor_demo in this kernel (see step 3)')"
insmod ctor_mod.ko
dmesg | grep -o 'ctor_mod: .*'
rmmod ctor_mod
