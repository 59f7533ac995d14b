/* SPDX-License-Identifier: GPL-2.0 */
/*
 * docs/gcda-format.rst: a small program for libgcov and for the model of
 * the kernel's writer (kwriter.c) to write a .gcda file about.
 */

/*
 * Runs three times; the branch to "return 100" is never taken.  noinline
 * keeps it out of main(), so that its counts stay its own.
 */
__attribute__((noinline)) int scale(int x)
{
	if (x > 100)
		return 100;
	return x * 2;
}

/* Never runs. */
int never(int x)
{
	if (x < 0)
		return -x;
	return x;
}

int main(int argc, char **argv)
{
	int i, sum = 0;

	(void)argv;
	for (i = 0; i < 3; i++)
		sum += scale(argc + i);
	return sum == 12 ? 0 : 1;
}
