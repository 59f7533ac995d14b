# SPDX-License-Identifier: GPL-2.0
"""gcovlab: the lab loop of gcov-kernel-labs (tree, kernel, guest, report)."""
