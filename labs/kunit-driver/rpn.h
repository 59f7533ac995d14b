/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RPN_H
#define RPN_H

/* Evaluate EXPR, integers and + - * / in reverse Polish notation. */
int rpn_eval(const char *expr, long *result);

#endif
