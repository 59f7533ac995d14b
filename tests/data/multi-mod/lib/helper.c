// SPDX-License-Identifier: GPL-2.0
#include "helper.h"

int multi_sum_squares(int n)
{
	int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += i * i;
	return sum;
}
