#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
set -e
insmod foreign.ko
insmod real.ko
rmmod real
rmmod foreign
