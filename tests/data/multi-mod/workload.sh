#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
set -e
insmod multi.ko n=6
rmmod multi
