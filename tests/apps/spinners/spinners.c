/*
 * A test application (tools/test-plan boots it on every board): a
 * goroutine per P spins in the application's own code, calling nothing,
 * while main sleeps 10 ms. Go preempts a goroutine that spins at the end
 * of its slice, so main's timer gets a P and main wakes; where the
 * application's code could not be preempted (the hosted board once took
 * it for foreign code, as glibc's), main would never wake and the boot
 * would hang.
 *
 *   make run APP=tests/apps/spinners [CMDLINE="run=spinners -- N"]
 */
#include <stdio.h>
#include <stdlib.h>

#include "gmk.h"

#define MAX_SPINNERS 64

/* Each spinner's count, so that main can see every one has started. */
static volatile unsigned long spins[MAX_SPINNERS];

static void spin(void *arg)
{
	volatile unsigned long *n = arg;

	for (;;)		/* no call: never a safe point of its own */
		(*n)++;
}

PROGRAM(spinners, "N goroutines (default: one per P) spin for ever while main sleeps 10 ms")
{
	int n = argc > 1 ? atoi(argv[1]) : gomaxprocs(0);

	if (n < 1 || n > MAX_SPINNERS) {
		printf("spinners: want 1 to %d spinners, not '%s'\n", MAX_SPINNERS, argv[1]);
		return 2;
	}
	for (int i = 0; i < n; i++)
		go(spin, (void *)&spins[i]);
	/* Every spinner running (it is preempted to let main on): then every
	 * P is in the application's loop while main sleeps. */
	for (int i = 0; i < n; i++)
		while (spins[i] == 0)
			gosched();
	uint64_t t0 = time_now();
	sleep_ns(10 * NSEC_PER_MSEC);
	uint64_t slept = time_now() - t0;
	/* How late is the host's business (a loaded host is late); that main
	 * woke at all is the test. */
	printf("spinners: main woke; spinners %d, Ps %d (slept %llu us)\n",
	       n, gomaxprocs(0), (unsigned long long)(slept / NSEC_PER_USEC));
	return 0;
}
