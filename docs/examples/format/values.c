/* SPDX-License-Identifier: GPL-2.0 */
/*
 * docs/gcov-info-layout.rst: a division, so that -fprofile-values has
 * something to measure besides arcs, and a function without one.
 */

int ratio(int a, int b)
{
	return a / b;
}

int twice(int x)
{
	return x > 0 ? 2 * x : 0;
}
