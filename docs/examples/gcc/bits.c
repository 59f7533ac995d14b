/* SPDX-License-Identifier: GPL-2.0 */
/*
 * docs/gcc-instrumentation.rst: one loop with 32 branches, so 32 arc
 * counters that loop invariant motion may keep in registers (and spill to
 * the stack) while the loop runs.
 */

#define BIT(k) do { if (v[i] & (1u << (k))) seen[k]++; } while (0)

void count_bits(const unsigned int *v, int n, unsigned int *seen)
{
	int i;

	for (i = 0; i < n; i++) {
		BIT(0);  BIT(1);  BIT(2);  BIT(3);  BIT(4);  BIT(5);  BIT(6);  BIT(7);
		BIT(8);  BIT(9);  BIT(10); BIT(11); BIT(12); BIT(13); BIT(14); BIT(15);
		BIT(16); BIT(17); BIT(18); BIT(19); BIT(20); BIT(21); BIT(22); BIT(23);
		BIT(24); BIT(25); BIT(26); BIT(27); BIT(28); BIT(29); BIT(30); BIT(31);
	}
}
