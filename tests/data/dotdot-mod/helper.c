// SPDX-License-Identifier: GPL-2.0
int dotdot_helper(int n);

int dotdot_helper(int n)
{
	return n * 2;
}
