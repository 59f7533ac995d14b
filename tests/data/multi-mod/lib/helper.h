/* SPDX-License-Identifier: GPL-2.0 */
int multi_sum_squares(int n);
