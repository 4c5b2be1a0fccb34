/*
 * checkdead: when the last M goes idle, nothing can run again unless a
 * timer or a device interrupt readies a G (an idle core wakes for it:
 * stopm). If no timer can fire and Gs are still parked, they wait for
 * each other: a deadlock, reported as Go reports it, with the Gs, their
 * wait reasons and their stacks.
 *
 * A timer whose deadline is past the end of time (TIME_NEVER: a sleep or
 * timer of UINT64_MAX ns, say) can fire no more than an absent one, so
 * it does not count, and a G that waits on nothing else (a sleep of
 * that length parks with no timer at all) is blocked for good, like one
 * on a nil channel. Go's checkdead returns as soon as any P has a timer,
 * whatever its deadline, so a Go program whose only G sleeps for
 * math.MaxInt64 hangs where gmk reports the deadlock.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/panic.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"

/* Times every M was idle with Gs waiting on a device (for the tests). */
uint64_t checkdead_netpoll_waits;

/* Caller holds sched.lock (called from mput). */
void checkdead(void)
{
	/* Ms, not Ps: after a gomaxprocs shrink there are more Ms than Ps,
	 * and the spare ones stay idle. */
	if (sched.nmidle < sched.mcount)
		return;		/* some M still runs or looks for work */
	/* A timer that will fire may wake a G (sleep, say): not dead (Go
	 * checks every P's timer heap the same way). when0 is 0 for a heap
	 * of none, or of none that ever fires. */
	for (uint32_t i = 0; i < sched.nprocs; i++)
		if (timers_when0(allp[i]) != 0)
			return;
	/* A G waiting on a device will be woken by its interrupt, and one
	 * it already readied is about to run: not dead either (Go's M
	 * blocked in netpoll keeps its run count above zero). */
	if (netpoll_waiters() != 0 || netpoll_pending()) {
		checkdead_netpoll_waits++;
		return;
	}

	uint32_t nwaiting = 0, nrunnable = 0, nrunning = 0;
	struct g *gp = (struct g *)atomic_loaduintptr((volatile uintptr_t *)&sched.allgs);
	for (struct g *it = gp; it; it = it->alllink) {
		switch (readgstatus(it)) {
		case _Gwaiting:	 nwaiting++; break;
		case _Grunnable: nrunnable++; break;
		case _Grunning:	 nrunning++; break;
		}
	}
	if (nrunnable || nrunning)
		panic("checkdead: every M is idle but %u Gs are runnable and "
		      "%u running", nrunnable, nrunning);
	if (nwaiting == 0)
		panic("checkdead: no goroutines left (the main G exited?)");

	/* fatal() prints every G with its wait reason and stack (as Go's
	 * throw does), sched/traceback.c. */
	fatal("all goroutines are asleep - deadlock! (%u goroutine%s waiting)",
	      nwaiting, nwaiting == 1 ? "" : "s");
}
