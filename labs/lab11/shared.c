// SPDX-License-Identifier: GPL-2.0
/*
 * Code linked into both stress modules: some branches for gcov to count.
 */
#include <linux/kernel.h>
#include "shared.h"

unsigned int stress_work(unsigned int rounds)
{
	unsigned int i, odd = 0;

	for (i = 0; i < rounds; i++) {
		if (i & 1)
			odd++;
		else if (i % 3 == 0)
			odd += 2;
	}
	return odd;
}
