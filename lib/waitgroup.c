/*
 * sync.WaitGroup, following Go's sync/waitgroup.go. One 64-bit word holds
 * the counter (high half, signed) and the number of waiters (low half), so
 * that Add and Wait agree on both with a single atomic operation.
 */
#include "lib/sync.h"
#include "lib/runtime.h"

/* The counter is now v = state's high half, after adding delta; the misuse
 * checks, and the wake-up of the waiters when it reached 0. */
static __noinline void waitgroup_settle(struct waitgroup *wg, uint64_t state, int32_t delta)
{
	int32_t v = (int32_t)(state >> 32);
	uint32_t w = (uint32_t)state;
	if (v < 0)
		panic("sync: negative WaitGroup counter");
	if (w != 0 && delta > 0 && v == delta)
		panic("sync: WaitGroup misuse: Add called concurrently with Wait");
	if (v > 0 || w == 0)
		return;
	/*
	 * The counter reached 0 with waiters. Nobody may change the state
	 * now: Adds must not run concurrently with Wait at zero, and new
	 * Waits see 0 and return. Check for misuse cheaply, then reset the
	 * waiter count and wake them all.
	 */
	if (atomic_load64(&wg->state) != state)
		panic("sync: WaitGroup misuse: Add called concurrently with Wait");
	atomic_store64(&wg->state, 0);
	for (; w != 0; w--)
		semrelease1(&wg->sema, false);
}

void waitgroup_add(struct waitgroup *wg, int32_t delta)
{
	uint64_t state = atomic_xadd64(&wg->state,
				       (int64_t)((uint64_t)(int64_t)delta << 32));
	/* Above 0 with no waiter: nothing to check or wake. */
	if (likely((int32_t)(state >> 32) > 0 && (uint32_t)state == 0))
		return;
	waitgroup_settle(wg, state, delta);
}

/* Add(-1): with the counter still above 0 there is nothing to check (a
 * negative counter and a Wait to wake need it at 0 or below). */
void waitgroup_done(struct waitgroup *wg)
{
	uint64_t state = atomic_xadd64(&wg->state, (int64_t)((uint64_t)-1 << 32));
	if (likely((int32_t)(state >> 32) > 0))
		return;
	waitgroup_settle(wg, state, -1);
}

void waitgroup_wait(struct waitgroup *wg)
{
	for (;;) {
		uint64_t state = atomic_load64(&wg->state);
		if ((int32_t)(state >> 32) == 0)
			return;
		/* Count ourselves as a waiter, then sleep. */
		if (atomic_cas64(&wg->state, state, state + 1)) {
			semacquire1(&wg->sema, false, waitReasonSyncWaitGroupWait);
			if (atomic_load64(&wg->state) != 0)
				panic("sync: WaitGroup is reused before previous Wait has returned");
			return;
		}
	}
}
