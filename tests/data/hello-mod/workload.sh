#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
set -e
insmod hello.ko rounds=5
rmmod hello
