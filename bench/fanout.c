/*
 * fanout: one G starts 100,000 Gs, each running 1,000 steps of a 64-bit
 * LCG. Figure: efficiency = serial time / (nprocs x wall time), where the
 * serial time is the same 100,000 x 1,000 steps run in a plain loop by
 * one G in the same run. 1.0 means every P was busy with useful work all
 * along; spawning, queueing and stealing are what it costs.
 */
#include "bench/bench.h"

#define FANOUT_GS	100000u
#define FANOUT_STEPS	1000u

static uint64_t fanout_results[FANOUT_GS];
static struct waitgroup fanout_wg;

static void fanout_g(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	fanout_results[i] = bench_lcg(i, FANOUT_STEPS);
	waitgroup_done(&fanout_wg);	/* publishes the result to the waiter */
}

double bench_fanout(struct bench_ctx *c)
{
	uint32_t n = bench_count(c, FANOUT_GS);
	uint64_t serial = 0, par = 0;

	uint64_t t0 = nanotime();
	for (uint32_t i = 0; i < n; i++)
		serial ^= bench_lcg(i, FANOUT_STEPS);
	uint64_t serial_ns = nanotime() - t0;

	waitgroup_add(&fanout_wg, (int32_t)n);
	t0 = nanotime();
	for (uintptr_t i = 0; i < n; i++)
		go(fanout_g, (void *)i);
	waitgroup_wait(&fanout_wg);
	uint64_t wall = nanotime() - t0;

	for (uint32_t i = 0; i < n; i++)
		par ^= fanout_results[i];
	if (par != serial)
		bench_fail(c, "the Gs' results fold to %#llx, the serial loop's to %#llx",
			   (unsigned long long)par, (unsigned long long)serial);
	return (double)serial_ns / ((double)c->nprocs * (double)wall);
}
