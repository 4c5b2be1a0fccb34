/*
 * The `make run` demo: Go's concurrent prime sieve, and a fan-out/fan-in
 * computation over every core, both checked against a plain sieve.
 *
 * 1. Sieve: a generator G sends 2, 3, 4, ... down a channel; each prime
 *    found starts a filter G that passes on only the numbers its prime
 *    does not divide. The chain grows to PRIMES_N filters, one G each.
 * 2. Fan-out/fan-in: WORKERS_PER_CORE workers per core take ranges from a
 *    jobs channel, count the primes in each by trial division and send
 *    the counts to a results channel, which a closer G closes once the
 *    WaitGroup says every worker is done.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gmk.h"

#define PRIMES_N		1000	/* primes the sieve chain finds */
#define SIEVE_CHAN_CAP		8	/* Go's sieve is unbuffered; 8 slots park
					   less: 0.5-0.8 s here, not 1.5-1.7 s */
#define FAN_LIMIT		1000000	/* count primes below this ... */
#define FAN_CHUNK		10000	/* ... in jobs of this many numbers */
#define WORKERS_PER_CORE	4

/* ---- the plain sieve of Eratosthenes, the reference ---- */

static uint8_t *plain_sieve(uint32_t limit)	/* 1 = composite */
{
	uint8_t *comp = kmalloc(limit);

	comp[0] = comp[1] = 1;
	for (uint32_t i = 2; (uint64_t)i * i < limit; i++)
		if (!comp[i])
			for (uint32_t j = i * i; j < limit; j += i)
				comp[j] = 1;
	return comp;
}

/* ---- 1. the concurrent sieve ---- */

struct gen_arg {
	chan_t out;
	uint32_t last;
};

static void generate(void *p)
{
	struct gen_arg *a = p;

	for (uint32_t i = 2; i <= a->last; i++)
		chan_send(a->out, &i);
	chan_close(a->out);
	kfree(a);
}

struct filter_arg {
	chan_t in, out;
	uint32_t prime;
};

static void filter(void *p)
{
	struct filter_arg *a = p;
	uint32_t i;

	while (chan_recv(a->in, &i))
		if (i % a->prime != 0)
			chan_send(a->out, &i);
	chan_close(a->out);
	kfree(a);
}

/* Runs the chain; fills primes[0..n) and returns how many it found. */
static uint32_t concurrent_sieve(uint32_t *primes, uint32_t n, uint32_t last)
{
	chan_t ch = chan_make(sizeof(uint32_t), SIEVE_CHAN_CAP);
	static chan_t all[PRIMES_N + 1];
	struct gen_arg *g = kmalloc(sizeof *g);
	uint32_t found = 0, prime;

	*g = (struct gen_arg){ ch, last };
	all[0] = ch;
	go(generate, g);
	while (found < n && chan_recv(ch, &prime)) {
		primes[found++] = prime;
		chan_t next = chan_make(sizeof(uint32_t), SIEVE_CHAN_CAP);
		struct filter_arg *f = kmalloc(sizeof *f);
		*f = (struct filter_arg){ ch, next, prime };
		go(filter, f);
		ch = next;
		all[found] = ch;
	}
	/* The generator stops at `last`, so the chain drains and closes. */
	while (chan_recv(ch, &prime))
		;
	/* Each filter closes its output last thing; after that it only
	 * frees its argument. Yield until they have all gone. */
	for (int i = 0; i < 100; i++)
		gosched();
	for (uint32_t i = 0; i <= found; i++)
		chan_free(all[i]);
	return found;
}

/* ---- 2. fan-out / fan-in ---- */

struct fan {
	chan_t jobs;			/* uint32_t: first number of a range */
	chan_t results;			/* uint32_t: primes in that range */
	struct waitgroup wg;
};

static bool is_prime(uint32_t n)
{
	if (n < 2)
		return false;
	for (uint32_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return false;
	return true;
}

static void fan_worker(void *p)
{
	struct fan *f = p;
	uint32_t lo;

	while (chan_recv(f->jobs, &lo)) {
		uint32_t count = 0;
		for (uint32_t n = lo; n < lo + FAN_CHUNK && n < FAN_LIMIT; n++)
			count += is_prime(n);
		chan_send(f->results, &count);
	}
	waitgroup_done(&f->wg);
}

static void fan_closer(void *p)
{
	struct fan *f = p;

	waitgroup_wait(&f->wg);
	chan_close(f->results);
}

static void fan_feeder(void *p)
{
	struct fan *f = p;

	for (uint32_t lo = 0; lo < FAN_LIMIT; lo += FAN_CHUNK)
		chan_send(f->jobs, &lo);
	chan_close(f->jobs);
}

static uint32_t fan_out_in(uint32_t nworkers, uint32_t *njobs)
{
	static struct fan f;
	uint32_t total = 0, count;

	f = (struct fan){ 0 };
	f.jobs = chan_make(sizeof(uint32_t), 0);
	f.results = chan_make(sizeof(uint32_t), 4);
	waitgroup_add(&f.wg, (int32_t)nworkers);
	for (uint32_t i = 0; i < nworkers; i++)
		go(fan_worker, &f);
	go(fan_closer, &f);
	go(fan_feeder, &f);
	*njobs = 0;
	while (chan_recv(f.results, &count)) {
		total += count;
		(*njobs)++;
	}
	for (int i = 0; i < 100; i++)
		gosched();
	chan_free(f.jobs);
	chan_free(f.results);
	return total;
}

/* ---- main ---- */

PROGRAM(primes, "concurrent prime sieve and a fan-out/fan-in over all cores")
{
	bool good = true;
	uint32_t nprocs = sched_nprocs();
	int ncores = num_cpu();
	struct sched_pstats *before = kmalloc(nprocs * sizeof *before);
	uint64_t *idle0 = kmalloc(ncores * sizeof *idle0);

	for (uint32_t i = 0; i < nprocs; i++)
		sched_pstats(i, &before[i]);
	printf("primes: %u Ps\n", nprocs);

	/* Reference: the PRIMES_N-th prime bounds the generator. */
	uint8_t *comp = plain_sieve(FAN_LIMIT);
	static uint32_t want[PRIMES_N], got[PRIMES_N];
	uint32_t nwant = 0;
	for (uint32_t i = 2; i < FAN_LIMIT && nwant < PRIMES_N; i++)
		if (!comp[i])
			want[nwant++] = i;

	uint64_t t0 = time_now();
	uint32_t found = concurrent_sieve(got, PRIMES_N, want[PRIMES_N - 1]);
	uint64_t t1 = time_now();
	bool sieve_ok = found == PRIMES_N && memcmp(got, want, sizeof want) == 0;
	printf("primes: sieve of %u filter Gs: %u primes, last %u, %llu ms: %s\n",
	       PRIMES_N, found, found ? got[found - 1] : 0,
	       (unsigned long long)((t1 - t0) / NSEC_PER_MSEC),
	       sieve_ok ? "matches the plain sieve" : "WRONG");
	good = good && sieve_ok;

	uint32_t nref = 0;
	for (uint32_t i = 0; i < FAN_LIMIT; i++)
		nref += !comp[i];
	kfree(comp);
	uint32_t njobs, nworkers = WORKERS_PER_CORE * nprocs;
	for (int i = 0; i < ncores; i++)
		idle0[i] = core_idle_ns(i);
	t0 = time_now();
	uint32_t nfan = fan_out_in(nworkers, &njobs);
	t1 = time_now();
	bool fan_ok = nfan == nref && njobs == (FAN_LIMIT + FAN_CHUNK - 1) / FAN_CHUNK;
	printf("primes: fan-out/fan-in, %u workers, %u jobs: %u primes below %u, %llu ms: %s\n",
	       nworkers, njobs, nfan, FAN_LIMIT,
	       (unsigned long long)((t1 - t0) / NSEC_PER_MSEC),
	       fan_ok ? "matches the plain sieve" : "WRONG");
	good = good && fan_ok;
	printf("primes: cores busy during fan-out:");
	for (int i = 0; i < ncores; i++) {
		uint64_t idle = core_idle_ns(i) - idle0[i];
		uint64_t busy = idle < t1 - t0 ? (t1 - t0) - idle : 0;
		printf(" %u%%", (unsigned)(busy * 100 / (t1 - t0)));
	}
	printf("\n");

	uint64_t total_run = 0, total_steal = 0;
	printf("primes: per P: Gs run (stolen)\n");
	for (uint32_t i = 0; i < nprocs; i++) {
		struct sched_pstats st;
		sched_pstats(i, &st);
		uint64_t r = st.nrun - before[i].nrun;
		uint64_t s = st.nsteal - before[i].nsteal;
		printf("primes:   P%-2u %8llu (%llu)\n", i, (unsigned long long)r,
		       (unsigned long long)s);
		total_run += r;
		total_steal += s;
	}
	printf("primes: %llu Gs run, %llu stolen; %s\n", (unsigned long long)total_run,
	       (unsigned long long)total_steal,
	       good ? "all results checked: OK" : "FAILED");
	kfree(idle0);
	kfree(before);
	return good ? 0 : 1;
}
