/*
 * steal: 10,000 Gs of 10 us work each, all started by one G, so all of
 * them land in its P's queue (and, past RUNQ_SIZE, the global queue, as
 * in Go). Figure: wall time / ideal wall time, where ideal = total work /
 * nprocs; 1.0 is perfect. The other Ps get work only by stealing.
 */
#include <string.h>

#include "bench/bench.h"
#include "tests/sched_testutil.h"

#define STEAL_GS	10000u
#define STEAL_WORK_NS	(10 * NSEC_PER_USEC)

static uint8_t steal_ran[STEAL_GS];
static struct waitgroup steal_wg;

static void steal_g(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	uint64_t t0 = nanotime();
	while (nanotime() - t0 < STEAL_WORK_NS)
		;				/* the work: 10 us on the CPU */
	steal_ran[i]++;				/* one writer per slot unless run twice */
	waitgroup_done(&steal_wg);
}

double bench_steal(struct bench_ctx *c)
{
	uint32_t n = bench_count(c, STEAL_GS);

	memset(steal_ran, 0, n);
	waitgroup_add(&steal_wg, (int32_t)n);
	uint64_t t0 = nanotime();
	for (uintptr_t i = 0; i < n; i++)
		go(steal_g, (void *)i);
	waitgroup_wait(&steal_wg);
	uint64_t wall = nanotime() - t0;

	struct runs_tally t = tally_runs(steal_ran, n);
	if (t.missing || t.twice)
		bench_fail(c, "%u of %u Gs never ran, %u ran twice", t.missing, n, t.twice);
	double ideal = (double)n * STEAL_WORK_NS / c->nprocs;
	return (double)wall / ideal;
}
