// SPDX-License-Identifier: GPL-2.0
/*
 * labs/lab06/wc.c: the program of Lab 6, a tiny word counter.
 *
 * Reads lines from standard input and prints, for each, how many words it
 * has.  A line of more than five words also goes through long_line(), so
 * the input decides whether that function runs at all.
 */
#include <stdio.h>

#define LONG_LINE 5

__attribute__((noinline)) static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

__attribute__((noinline)) static int count_words(const char *s)
{
	int words = 0, in_word = 0;

	for (; *s; s++) {
		if (is_space(*s))
			in_word = 0;
		else if (!in_word) {
			in_word = 1;
			words++;
		}
	}
	return words;
}

__attribute__((noinline)) static void long_line(int n, int words)
{
	printf("line %d is long: %d words\n", n, words);
}

int main(void)
{
	char line[256];
	int n = 0, total = 0;

	while (fgets(line, sizeof(line), stdin)) {
		int words = count_words(line);

		n++;
		total += words;
		if (words > LONG_LINE)
			long_line(n, words);
	}
	printf("%d lines, %d words\n", n, total);
	return 0;
}
