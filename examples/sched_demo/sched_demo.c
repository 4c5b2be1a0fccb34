/*
 * make run's demo: one G starts many short Gs on its own P; the other
 * cores must steal them (watch the SCHED lines with schedtrace=50). Ends
 * with how many Gs each P ran and how many it stole.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/kernel.h"
#include "kernel/percpu.h"
#include "tests/sched_testutil.h"

#define DEMO_GS 200000u
#define DEMO_WORK_STEPS 2000	/* LCG steps per G: a little real work */
#define DEMO_WINDOW 4096u	/* Gs alive at once */

static volatile uint64_t demo_done;
static volatile uint64_t demo_sink;

static void demo_work(void *arg)
{
	uint64_t x = (uintptr_t)arg;
	for (int i = 0; i < DEMO_WORK_STEPS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	demo_sink = x;
	atomic_xadd64(&demo_done, 1);
}

PROGRAM(sched_demo, "spawn 200000 Gs from one G; the other Ps steal them")
{
	uint32_t np = sched_nprocs();
	uint64_t nrun0[MAX_CPUS], nrun1[MAX_CPUS], steal0[MAX_CPUS];
	nrun_snapshot(nrun0);
	for (uint32_t i = 0; i < np; i++)
		steal0[i] = sched_p(i)->nsteal;

	/* No G of an earlier run is left (it waited for all of them): the
	 * count starts again, so that the program runs again. */
	atomic_store64(&demo_done, 0);
	uint64_t t0 = nanotime();
	printf("sched_demo: %u Gs from one G, %u Ps\n", DEMO_GS, np);
	for (uint32_t i = 0; i < DEMO_GS; i++) {
		go(demo_work, (void *)(uintptr_t)i);
		while (i + 1 - atomic_load64(&demo_done) > DEMO_WINDOW)
			gosched();
	}
	uint64_t done = wait_count(&demo_done, DEMO_GS, 60 * NSEC_PER_SEC);
	uint64_t ms = (nanotime() - t0) / NSEC_PER_MSEC;

	nrun_snapshot(nrun1);
	printf("sched_demo: %llu of %u Gs ran in %llu ms\n",
	       (unsigned long long)done, DEMO_GS, (unsigned long long)ms);
	for (uint32_t i = 0; i < np; i++) {
		struct p *pp = sched_p(i);
		printf("  P%u: ran %llu Gs, stole %llu, from global %llu, runnext %llu\n",
		       i, (unsigned long long)(nrun1[i] - nrun0[i]),
		       (unsigned long long)(pp->nsteal - steal0[i]),
		       (unsigned long long)pp->nglobget,
		       (unsigned long long)pp->nrunnext);
	}
	return done == DEMO_GS ? 0 : 1;
}
