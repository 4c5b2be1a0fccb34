/*
 * The benchmarks (bench/) still work: every one of them, with tiny
 * counts, passes its own sanity checks (every G ran, the counts add up).
 * Their figures mean nothing at this size; `make bench` measures.
 */
#include "kernel/test.h"
#include "bench/bench.h"

/* The full counts divided by this: 1,000 spawns, 100 fanout Gs, one
 * sleep per latency run. Small enough for 8 cores under TCG. */
#define SMOKE_BENCHES "all/1000"

TEST(bench_smoke_all_benchmarks_pass_their_sanity_checks)
{
	test_needs_async_preempt();	/* the steal and fanout spinners */
	test_needs_small_stacks();	/* spawn and parked: 1-2 KiB */
	ASSERT_EQ(bench_main(SMOKE_BENCHES), 0);
}
