/*
 * make run's demo: one G starts many short Gs on its own P; the other
 * cores must steal them (watch the SCHED lines with schedtrace=50). Ends
 * with how many Gs each P ran and how many it stole.
 */
#include <stdio.h>

#include "gmk.h"

#define DEMO_GS 200000u
#define DEMO_WORK_STEPS 2000	/* LCG steps per G: a little real work */
#define DEMO_WINDOW 4096u	/* Gs alive at once */
#define DEMO_WAIT_NS (60 * NSEC_PER_SEC)	/* for the last ones to end */

static uint64_t demo_done;	/* atomic: Gs that have done their work */
static volatile uint64_t demo_sink;

static void demo_work(void *arg)
{
	uint64_t x = (uintptr_t)arg;
	for (int i = 0; i < DEMO_WORK_STEPS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	demo_sink = x;
	__atomic_fetch_add(&demo_done, 1, __ATOMIC_SEQ_CST);
}

static uint64_t done_now(void)
{
	return __atomic_load_n(&demo_done, __ATOMIC_ACQUIRE);
}

PROGRAM(sched_demo, "spawn 200000 Gs from one G; the other Ps steal them")
{
	uint32_t np = sched_nprocs();
	struct sched_pstats *before = kmalloc(np * sizeof *before);
	for (uint32_t i = 0; i < np; i++)
		sched_pstats(i, &before[i]);

	/* No G of an earlier run is left (it waited for all of them): the
	 * count starts again, so that the program runs again. */
	__atomic_store_n(&demo_done, 0, __ATOMIC_SEQ_CST);
	uint64_t t0 = time_now();
	printf("sched_demo: %u Gs from one G, %u Ps\n", DEMO_GS, np);
	for (uint32_t i = 0; i < DEMO_GS; i++) {
		go(demo_work, (void *)(uintptr_t)i);
		while (i + 1 - done_now() > DEMO_WINDOW)
			gosched();
	}
	uint64_t end = time_now() + DEMO_WAIT_NS, done;
	while ((done = done_now()) < DEMO_GS && time_now() < end)
		gosched();
	uint64_t ms = (time_now() - t0) / NSEC_PER_MSEC;

	printf("sched_demo: %llu of %u Gs ran in %llu ms\n",
	       (unsigned long long)done, DEMO_GS, (unsigned long long)ms);
	for (uint32_t i = 0; i < np; i++) {
		struct sched_pstats st;
		sched_pstats(i, &st);
		printf("  P%u: ran %llu Gs, stole %llu, from global %llu, runnext %llu\n",
		       i, (unsigned long long)(st.nrun - before[i].nrun),
		       (unsigned long long)(st.nsteal - before[i].nsteal),
		       (unsigned long long)st.nglobget,
		       (unsigned long long)st.nrunnext);
	}
	kfree(before);
	return done == DEMO_GS ? 0 : 1;
}
