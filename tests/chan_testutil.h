/*
 * Helpers for the channel and sync tests: look into a channel's queues to
 * wait, without sleeping for a guessed time, until Gs are really parked.
 */
#ifndef GMK_TESTS_CHAN_TESTUTIL_H
#define GMK_TESTS_CHAN_TESTUTIL_H

#include "kernel/time.h"
#include "tests/kernel_api.h"
#include "sched/hchan.h"

/* Gs parked in c's receive (recv=true) or send queue now. */
static inline int chan_nwaiting(chan_t c, bool recv)
{
	int n = 0;

	spin_lock(&c->lock);
	for (struct sudog *s = recv ? c->recvq.first : c->sendq.first; s; s = s->next)
		n++;
	spin_unlock(&c->lock);
	return n;
}

/* Yield until n Gs wait in c's queue; false after timeout_ns. */
static inline bool chan_wait_for_waiters(chan_t c, bool recv, int n, uint64_t timeout_ns)
{
	uint64_t end = nanotime() + timeout_ns;

	while (chan_nwaiting(c, recv) < n) {
		if (nanotime() > end)
			return false;
		gosched();
	}
	return true;
}

/* Yield for about ns: lets other Gs run, even on one core. */
static inline void yield_for(uint64_t ns)
{
	uint64_t end = nanotime() + ns;

	while (nanotime() < end)
		gosched();
}

#define WAIT_TIMEOUT_NS (10 * NSEC_PER_SEC)

#endif
