/*
 * spawn: one G starts 1,000,000 Gs that each mark a WaitGroup done and
 * exit. Figure: wall time per G, from the first go() to the Wait's return.
 * What it exercises: newproc (free-G cache, stack reuse), runqput with its
 * overflow to the global queue, wakep and stealing by the idle Ps.
 *
 * The Gs get Go's initial stack size (G_STACK_SMALL, 2 KiB), as `go f()`
 * does in Go. At 1 P the spawner runs a whole time slice before the Gs it
 * made run: ~30,000 Gs alive at once under -icount (measured), ~600 MiB
 * with 16 KiB stacks and their guards, ~70 MiB with 2 KiB ones.
 */
#include "bench/bench.h"

#define SPAWN_GS 1000000u

static struct waitgroup spawn_wg;
static volatile uint64_t spawn_ran;

static void spawn_g(void *arg)
{
	atomic_xadd64(&spawn_ran, 1);
	waitgroup_done(&spawn_wg);
}

double bench_spawn(struct bench_ctx *c)
{
	uint32_t n = bench_count(c, SPAWN_GS);

	atomic_store64(&spawn_ran, 0);
	waitgroup_add(&spawn_wg, (int32_t)n);
	uint64_t t0 = nanotime();
	for (uint32_t i = 0; i < n; i++)
		go_stack(spawn_g, NULL, G_STACK_SMALL);
	waitgroup_wait(&spawn_wg);
	uint64_t wall = nanotime() - t0;
	uint64_t ran = atomic_load64(&spawn_ran);
	if (ran != n)
		bench_fail(c, "%llu of %u Gs ran", (unsigned long long)ran, n);
	return (double)wall / n;
}
