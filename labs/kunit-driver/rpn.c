// SPDX-License-Identifier: GPL-2.0
/*
 * A calculator in reverse Polish notation: the code under test of the
 * instructors' KUnit example (docs/instructors.rst).  "2 3 + 4 *" is 20.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "rpn.h"

#define RPN_DEPTH 8

struct rpn_stack {
	long value[RPN_DEPTH];
	int depth;
};

static int rpn_push(struct rpn_stack *s, long v)
{
	if (s->depth == RPN_DEPTH)
		return -ENOSPC;
	s->value[s->depth++] = v;
	return 0;
}

static int rpn_apply(struct rpn_stack *s, char op)
{
	long a, b;

	if (s->depth < 2)
		return -EINVAL;
	b = s->value[--s->depth];
	a = s->value[--s->depth];
	switch (op) {
	case '+':
		return rpn_push(s, a + b);
	case '-':
		return rpn_push(s, a - b);
	case '*':
		return rpn_push(s, a * b);
	case '/':
		if (!b)
			return -EDOM;
		return rpn_push(s, a / b);
	}
	return -EINVAL;
}

int rpn_eval(const char *expr, long *result)
{
	struct rpn_stack s = { .depth = 0 };
	char word[24];
	int err;

	while (*expr) {
		size_t len = strcspn(expr, " ");

		if (!len) {
			expr++;
			continue;
		}
		if (len >= sizeof(word))
			return -E2BIG;
		memcpy(word, expr, len);
		word[len] = '\0';
		expr += len;
		if (len == 1 && strchr("+-*/", word[0]))
			err = rpn_apply(&s, word[0]);
		else {
			long v;

			err = kstrtol(word, 10, &v);
			if (!err)
				err = rpn_push(&s, v);
		}
		if (err)
			return err;
	}
	if (s.depth != 1)
		return -EINVAL;
	*result = s.value[0];
	return 0;
}
