/*
 * Host test of the atomics' orderings (kernel/atomic.h), on real cores:
 * the store-buffering litmus test, Dekker's pattern, which the scheduler
 * relies on where one side stores a flag and then loads the other's
 * (pidleput's npidle against netpoll_kick's ready list, wakep's
 * submission against a spinner's nmspinning):
 *
 *   A: x = 1; r1 = y;        B: y = 1; r2 = x;
 *
 * r1 == r2 == 0 means each load passed its own store: both sides missed
 * each other. atomic_storesc (Go's atomic.Store) must never allow it.
 * atomic_store (store-release, a plain mov on x86-64) does, on x86: its
 * count is printed, not asserted (an arm64 host has none, and the
 * ThreadSanitizer build's stores are calls that may fence).
 *
 *   atomic_test [rounds]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/atomic.h"
#include "tests/host/check.h"
#include "tests/host/host.h"

int check_failures;

/* Each on its own cache line, as two unrelated flags would be. */
static struct {
	volatile uint32_t v;
	char pad[60];
} __attribute__((aligned(64))) x, y, arrive, r2;

static uint32_t rounds = 2000000;
static volatile uint32_t use_sc;

/* Both sides wait for the same count, then each spins a few turns of its
 * own (varied) before its pair: the two pairs overlap in some rounds. */
static void barrier(uint32_t target)
{
	atomic_xadd32(&arrive.v, 1);
	/* On a host with other work the partner may be off its CPU: give
	 * ours up now and then rather than spin out a whole time slice. */
	for (uint32_t n = 1; atomic_load32(&arrive.v) < target; n++)
		if ((n & 1023) == 0)
			sched_yield();
}

static void spin(uint32_t n)
{
	for (volatile uint32_t i = 0; i < n; i++)
		;
}

static void *side_b(void *arg)
{
	(void)arg;
	uint32_t seed = 12345;
	for (uint32_t i = 0; i < rounds; i++) {
		barrier(4 * i + 2);
		seed = seed * 1103515245u + 12345u;
		spin(seed >> 29);
		if (use_sc)
			atomic_storesc32(&y.v, 1);
		else
			atomic_store32(&y.v, 1);
		atomic_store32(&r2.v, atomic_load32(&x.v));
		barrier(4 * i + 4);
	}
	return NULL;
}

/* Rounds in which both loads passed their stores. */
static uint32_t run(bool sc)
{
	pthread_t t;
	uint32_t both = 0, seed = 777;
	atomic_store32(&arrive.v, 0);
	use_sc = sc;
	if (pthread_create(&t, NULL, side_b, NULL) != 0) {
		perror("pthread_create");
		exit(2);
	}
	for (uint32_t i = 0; i < rounds; i++) {
		atomic_store32(&x.v, 0);
		atomic_store32(&y.v, 0);
		barrier(4 * i + 2);
		seed = seed * 1103515245u + 12345u;
		spin(seed >> 29);
		if (sc)
			atomic_storesc32(&x.v, 1);
		else
			atomic_store32(&x.v, 1);
		uint32_t r1 = atomic_load32(&y.v);
		barrier(4 * i + 4);
		if (r1 == 0 && atomic_load32(&r2.v) == 0)
			both++;
	}
	pthread_join(t, NULL);
	return both;
}

static void test_storesc_then_load_never_both_miss(void)
{
	uint32_t rel = run(false);
	uint32_t sc = run(true);
	printf("#   %u rounds: both loads passed their stores %u times with "
	       "atomic_store32, %u with atomic_storesc32\n", rounds, rel, sc);
	CHECK(sc == 0, "%u rounds of %u saw the store-buffering outcome", sc, rounds);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = (uint32_t)strtoul(argv[1], NULL, 0);
	host_tests_init(2);	/* printf is the kernel's: it needs a core */
	static const struct host_test tests[] = {
		{ "storesc_then_load_never_both_miss", test_storesc_then_load_never_both_miss },
	};
	return host_run_tests(tests, HOST_NTESTS(tests), NULL);
}
