#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load the module (its init runs the out-of-line list_empty() 3 times).
set -e
insmod outofline.ko
