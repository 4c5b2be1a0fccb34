/* Must not build: EXPECT_EQ of floats would compare them as long long
 * (0.4 == 0.5); kernel/test.h refuses a float operand. (No TEST here:
 * tools/check-tests keeps tests in the tests folder; the refusal is the
 * compiler.s, wherever the macro is.) */
#include <gmk.h>
#include <gmk_test.h>

PROGRAM(float_assert, "compares floats with EXPECT_EQ")
{
	volatile double x = 0.4;

	EXPECT_EQ(x, 0.5);
	return 0;
}
