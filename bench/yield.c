/*
 * yield: 2 Gs each call gosched() 1,000,000 times. Figure: wall time per
 * gosched (all of them, both Gs). Each gosched puts the G on the global
 * queue (Go's goschedImpl), so this is a round trip through sched.lock
 * and schedule(); with more Ps, the other P finds the G there.
 */
#include "bench/bench.h"

#define YIELDS_PER_G 1000000u
#define YIELD_GS 2u

/* Each G's own cache line: a line that both Gs write at every step
 * would measure the cores' coherence traffic at 2 Ps, not the scheduler
 * (the Go side pads its counters the same way). */
struct yield_arg {
	uint32_t n;		/* gosched calls to make */
	uint32_t done;		/* made; only this G writes it */
} __attribute__((aligned(64)));

static struct waitgroup yield_wg;

static void yield_g(void *arg)
{
	struct yield_arg *a = arg;
	for (uint32_t i = 0; i < a->n; i++) {
		gosched();
		a->done++;
	}
	waitgroup_done(&yield_wg);	/* publishes a->done to the waiter */
}

double bench_yield(struct bench_ctx *c)
{
	uint32_t n = bench_count(c, YIELDS_PER_G);
	struct yield_arg args[YIELD_GS];

	waitgroup_add(&yield_wg, YIELD_GS);
	uint64_t t0 = nanotime();
	for (uint32_t k = 0; k < YIELD_GS; k++) {
		args[k] = (struct yield_arg){ .n = n };
		go(yield_g, &args[k]);
	}
	waitgroup_wait(&yield_wg);
	uint64_t wall = nanotime() - t0;
	for (uint32_t k = 0; k < YIELD_GS; k++)
		if (args[k].done != n)
			bench_fail(c, "G %u yielded %u times, not %u", k, args[k].done, n);
	return (double)wall / ((double)YIELD_GS * n);
}
