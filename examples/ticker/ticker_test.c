/* The example's test (make test APP=examples/ticker): a short run keeps
 * every sample in order, and the context ends it on time. */
#include "gmk.h"
#include "gmk_test.h"

uint64_t ticker_pipeline(uint64_t run, uint64_t period, uint64_t *sum);

TEST(example_ticker_pipeline_sums_every_sample_and_stops)
{
	uint64_t sum, n = 0;

	/* A machine slow enough to deliver no tick in the window (a loaded
	 * host's QEMU) gets a longer one: the test is of the pipeline. */
	for (uint64_t ms = 200; n == 0 && ms <= 5000; ms *= 5) {
		uint64_t t0 = time_now();
		n = ticker_pipeline(ms * NSEC_PER_MSEC, 5 * NSEC_PER_MSEC, &sum);
		uint64_t took = time_now() - t0;
		ASSERT_EQ(sum, 3 * n * (n + 1) / 2);	/* samples 1..n, scaled by 3 */
		/* Ticks are never made up: at most one per period of the
		 * time it ran (past the deadline too, on a loaded host, until
		 * the stages see ctx done). */
		ASSERT_LE(n, took / (5 * NSEC_PER_MSEC) + 1);
		ASSERT_GE(took, ms * NSEC_PER_MSEC);	/* not before the deadline */
	}
	ASSERT_GT(n, 0);
}
