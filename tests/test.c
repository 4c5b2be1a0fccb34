/*
 * The test harness's own checks (kernel/test.h): what ASSERT_NEAR takes
 * as equal. ASSERT_EQ and its kin refuse a float operand at compile time
 * (tests/apps-refused/float_assert, booted by tools/test-plan).
 */
#include <math.h>

#include "kernel/test.h"

TEST(test_near_takes_floats_within_epsilon_only)
{
	volatile double a = 0.4, b = 0.5, nan_ = NAN;

	EXPECT(!test_near(a, b, 0.01));
	EXPECT(!test_near(b, a, 0.01));
	EXPECT(test_near(a, b, 0.1000001));
	EXPECT(test_near(0.1 + 0.2, 0.3, 1e-12));
	EXPECT(!test_near(nan_, nan_, 1.0));
	EXPECT(!test_near(a, nan_, 1.0));
	ASSERT_NEAR(0.1 + 0.2, 0.3, 1e-12);
	EXPECT_NEAR(1.0f / 3, 0.3333333, 1e-6);
}
