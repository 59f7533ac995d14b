// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of rpn.c.  Its cases leave some of rpn.c's error paths
 * unreached on purpose: the report of vm/gcovlab kunit shows which.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/module.h>

#include "rpn.h"

static void rpn_test_sums(struct kunit *test)
{
	long r;

	KUNIT_ASSERT_EQ(test, rpn_eval("2 3 +", &r), 0);
	KUNIT_EXPECT_EQ(test, r, 5L);
	KUNIT_ASSERT_EQ(test, rpn_eval("2 3 + 4 *", &r), 0);
	KUNIT_EXPECT_EQ(test, r, 20L);
	KUNIT_ASSERT_EQ(test, rpn_eval("  7  2 -", &r), 0);
	KUNIT_EXPECT_EQ(test, r, 5L);
}

static void rpn_test_bad_input(struct kunit *test)
{
	long r;

	KUNIT_EXPECT_EQ(test, rpn_eval("1 +", &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, rpn_eval("1 2", &r), -EINVAL);
	KUNIT_EXPECT_EQ(test, rpn_eval("1 x", &r), -EINVAL);
}

static struct kunit_case rpn_test_cases[] = {
	KUNIT_CASE(rpn_test_sums),
	KUNIT_CASE(rpn_test_bad_input),
	{}
};

static struct kunit_suite rpn_test_suite = {
	.name = "rpn",
	.test_cases = rpn_test_cases,
};
kunit_test_suite(rpn_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suite of a reverse Polish calculator");
