/* The example's test (make test APP=examples/ticker): a short run keeps
 * every sample in order, and the context ends it on time. */
#include "gmk.h"
#include "gmk_test.h"

uint64_t ticker_pipeline(uint64_t run, uint64_t period, uint64_t *sum);

TEST(example_ticker_pipeline_sums_every_sample_and_stops)
{
	uint64_t sum, t0 = time_now();
	uint64_t n = ticker_pipeline(200 * NSEC_PER_MSEC, 5 * NSEC_PER_MSEC, &sum);
	uint64_t took = time_now() - t0;

	ASSERT_GT(n, 0);
	ASSERT_EQ(sum, 3 * n * (n + 1) / 2);	/* samples 1..n, scaled by 3 */
	ASSERT_LE(n, 200 / 5 + 1);		/* ticks are never made up */
	ASSERT_GE(took, 200 * NSEC_PER_MSEC);	/* not before the deadline */
}
