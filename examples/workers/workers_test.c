/* The example's tests (make test APP=examples/workers): the pool's sum is
 * one goroutine's, and an error stops the jobs not yet started. */
#include "gmk.h"
#include "gmk_test.h"

int workers_run(uint32_t njobs, uint32_t fail, uint64_t *sum, uint32_t *ran);

TEST(example_workers_sum_matches_one_goroutine)
{
	uint64_t sum;
	uint32_t ran;

	ASSERT_EQ(workers_run(1000, 0, &sum, &ran), 0);
	ASSERT_EQ(ran, 1000);
	ASSERT_EQ(sum, 59542);		/* Collatz steps of 1..1000 */
}

TEST(example_workers_first_error_cancels_the_rest)
{
	uint64_t sum;
	uint32_t ran;

	ASSERT_EQ(workers_run(20000, 10, &sum, &ran), -1);
	ASSERT_LT(ran, 20000 - 1);	/* jobs after the error were skipped */
}
