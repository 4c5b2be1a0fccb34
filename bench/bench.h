/*
 * The benchmarks of docs/benchmarks.md, as kernel code (bench/, a
 * file each).
 *
 * Each benchmark is one function that does the workload once and returns
 * its figure; the harness (bench/harness.c) runs it BENCH_RUNS
 * times and prints one line with the median, the minimum and the maximum:
 *
 *   bench spawn nprocs=2 median=84.1 min=80.2 max=90.7 ns/G
 *
 * A run checks its own work (every G ran, the counts add up) and calls
 * bench_fail when a check does not hold: the line then says FAIL and why,
 * and the run's exit status is non-zero. The same workloads in Go are in
 * bench/go/; tools/bench and tools/bench-compare drive both.
 */
#ifndef GMK_BENCH_BENCH_H
#define GMK_BENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/kernel_api.h"

#define BENCH_RUNS	5	/* each figure is the median of this many */
#define BENCH_AUX_MAX	5	/* secondary figures per benchmark */

/* One benchmark's state across its runs. */
struct bench_ctx {
	uint32_t div;			/* the full counts divided by this */
	uint32_t nprocs;		/* Ps the scheduler runs with */
	volatile uint32_t failed;	/* set once, by the first bench_fail */
	char why[160];			/* what that check said */
	double aux[BENCH_AUX_MAX];	/* this run's secondary figures */
};

struct bench {
	const char *name;
	const char *unit;		/* printed after the figures */
	int decimals;
	double (*run)(struct bench_ctx *c);
	const char *aux_name[BENCH_AUX_MAX];	/* NULL = unused slot */
	int aux_decimals;
};

/* The full count `full` (docs/benchmarks.md) scaled down by the run's
 * divisor (at least 1). */
static inline uint32_t bench_count(const struct bench_ctx *c, uint32_t full)
{
	uint32_t n = full / c->div;
	return n ? n : 1;
}

/* Record a failed sanity check (the first one is printed). Any G. */
void bench_fail(struct bench_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Run the benchmarks that `which` names, in docs/benchmarks.md's order,
 * printing one line each: "all" or names joined by commas, each
 * optionally "/N" to divide its counts by N ("all/1000", "spawn,parked/10"; the line then
 * ends with scale=1/N). Returns the number that failed, or -1 (with a
 * message) when `which` is malformed or names no benchmark.
 */
int bench_main(const char *which);

/* The workloads, one file each (bench/<name>.c). */
double bench_spawn(struct bench_ctx *c);
double bench_yield(struct bench_ctx *c);
double bench_pingpong(struct bench_ctx *c);
double bench_fanout(struct bench_ctx *c);
double bench_parked(struct bench_ctx *c);
double bench_latency(struct bench_ctx *c);
double bench_steal(struct bench_ctx *c);

/* Knuth's MMIX 64-bit LCG, `steps` times from x: the CPU-bound work of
 * fanout and latency (the Go side runs the same). */
static inline uint64_t bench_lcg(uint64_t x, uint32_t steps)
{
	for (uint32_t i = 0; i < steps; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

#endif
