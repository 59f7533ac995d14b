/* SPDX-License-Identifier: GPL-2.0 */
/* docs/gcc-instrumentation.rst: run demo_sum() once in user space. */

int demo_sum(const int *v, int n);

int main(void)
{
	static const int v[] = { 3, -1, 4, -1, 5 };

	return demo_sum(v, 5) == 12 ? 0 : 1;
}
