/* SPDX-License-Identifier: GPL-2.0 */
/* docs/gcc-instrumentation.rst: a loop and a branch for GCC to count. */

int demo_sum(const int *v, int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			continue;
		s += v[i];
	}
	return s;
}
