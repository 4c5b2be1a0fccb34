/* Helpers shared by the scheduler tests (tests/sched_*.c). */
#ifndef GMK_TESTS_SCHED_TESTUTIL_H
#define GMK_TESTS_SCHED_TESTUTIL_H

#include "kernel/atomic.h"
#include "kernel/time.h"
#include "sched/sched.h"

/* Wait, yielding, until *counter reaches want or timeout_ns passes;
 * returns the last value seen. Tests have no WaitGroup yet. */
static inline uint64_t wait_count(volatile uint64_t *counter, uint64_t want,
				  uint64_t timeout_ns)
{
	uint64_t end = nanotime() + timeout_ns;
	uint64_t v;
	while ((v = atomic_load64(counter)) < want && nanotime() < end)
		gosched();
	return v;
}

/*
 * wait_count for work that may be slow but must not stop: waits until
 * *counter reaches want, and gives up only when neither it nor *progress
 * (a count the workers bump as they go) has moved for stall_ns. A hosted
 * board with more core threads than host CPUs, on a loaded host, can take
 * tens of seconds for thousands of switches through sched.lock (a lock
 * whose holder the host has descheduled); a lost G stops both counts.
 */
static inline uint64_t wait_count_progress(volatile uint64_t *counter, uint64_t want,
					   volatile uint64_t *progress, uint64_t stall_ns)
{
	uint64_t last = atomic_load64(progress), v;
	uint64_t lastv = atomic_load64(counter);
	uint64_t since = nanotime();
	while ((v = atomic_load64(counter)) < want) {
		uint64_t p = atomic_load64(progress), now = nanotime();
		if (p != last || v != lastv) {
			last = p;
			lastv = v;
			since = now;
		} else if (now - since >= stall_ns) {
			break;
		}
		gosched();
	}
	return v;
}

/* Snapshot of every P's run count (struct p's nrun). */
static inline void nrun_snapshot(uint64_t *out)
{
	for (uint32_t i = 0; i < sched_nprocs(); i++)
		out[i] = atomic_load64(&sched_p(i)->nrun);
}

/* gopark unlock function that publishes the parked G into *slot once it is
 * really waiting, so that a waker never sees a G that is still running. */
static inline bool publish_parked(struct g *gp, void *slot)
{
	atomic_storeuintptr((volatile uintptr_t *)slot, (uintptr_t)gp);
	return true;
}

#endif
