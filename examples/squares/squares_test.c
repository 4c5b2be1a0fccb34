/* The example's test (make test APP=examples/squares): the program, run
 * as run= runs it, exits 0 only when the sum is 338350. */
#include "gmk.h"
#include "gmk_test.h"

TEST(example_squares_sums_to_338350)
{
	const struct program *p = program_find("squares", 7);

	ASSERT(p != NULL);
	ASSERT(program_start(p));
	int status = program_main(p);
	program_end(p);
	ASSERT_EQ(status, 0);
}
