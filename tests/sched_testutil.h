/* Helpers shared by the scheduler tests (tests/sched_*.c and others) and
 * the benchmarks' own checks (bench/). */
#ifndef GMK_TESTS_SCHED_TESTUTIL_H
#define GMK_TESTS_SCHED_TESTUTIL_H

#include "kernel/atomic.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "sched/netpoll.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"

/* Recursion without end, 512 bytes a frame, for the tests that overflow
 * a G's stack on purpose (tests/sched_stack_fatal.c). Call it as
 * stack_eat(NULL, 0). */
uint64_t stack_eat(volatile uint8_t *prev, uint64_t n);

/* A G is parked on pd in mode 'r' or 'w' (its slot holds the G: not nil,
 * pdReady or pdWait). netpoll_waiters() counts every pollDesc's waiters,
 * the console's writers among them when its output is slow, so a test
 * asks about its own pollDesc. */
static inline bool pd_parked(struct pollDesc *pd, int mode)
{
	return atomic_loaduintptr(mode == 'r' ? &pd->rg : &pd->wg) > pdWait;
}

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

/*
 * The exactly-once check of n Gs that each bump their own slot of ran[]
 * (one writer per slot unless a G runs twice): how many slots were never
 * run, and how many were run more than once.
 */
struct runs_tally {
	uint32_t missing, twice;
};

static inline struct runs_tally tally_runs(const uint8_t *ran, uint32_t n)
{
	struct runs_tally t = { 0, 0 };
	for (uint32_t i = 0; i < n; i++) {
		t.missing += ran[i] == 0;
		t.twice += ran[i] > 1;
	}
	return t;
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

/* fn as a timer callback 1 ms from now, then a second's sleep: for the
 * fatal tests of what a callback must not do (its fatal error, which
 * names fn as written, as timer_init does, comes first). */
#define fire_timer_callback(fn) fire_timer_callback_named((fn), #fn)
static inline void fire_timer_callback_named(void (*fn)(void *), const char *name)
{
	static struct timer t;

	timer_init_named(&t, fn, NULL, name);
	timer_start(&t, nanotime() + NSEC_PER_MSEC);
	sleep_ns(NSEC_PER_SEC);
}

/*
 * No G but the caller runs or waits to run: every other P is idle (its M
 * found no work; a G that was exiting there reached its P's free list
 * first) and neither the caller's P nor the global queue holds a G. Gs
 * that said they were done (a waitgroup_done, then the return) have then
 * all exited: until they have, they are counted (num_goroutine) and keep
 * their stacks, however long the host leaves the vCPU running one of
 * them unscheduled.
 */
static inline bool sched_quiescent(void)
{
	preempt_disable();	/* getm()->p stays this G's P */
	bool mine = runqempty(getm()->p);
	preempt_enable();
	return mine && globrunqempty() &&
	       atomic_load32(&sched.npidle) == sched_nprocs() - 1;
}

/* How long the Gs that said they were done may take to exit: every
 * caller's timeout. */
#define QUIESCENT_TIMEOUT_NS (10 * NSEC_PER_SEC)

/* Yield until sched_quiescent(); false after timeout_ns. */
static inline bool wait_quiescent(uint64_t timeout_ns)
{
	uint64_t end = nanotime() + timeout_ns;

	for (;;) {
		gosched();
		if (sched_quiescent())
			return true;
		if (nanotime() > end)
			return false;
	}
}

#endif
