/*
 * Blocking and waking, and giving up the core: gopark/goready (the only
 * way a G blocks and is woken), gosched and goexit. Each switches to g0
 * with mcall; the *_m half runs there, requeues or parks the G, and
 * schedules.
 */
#include "kernel/atomic.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/spinlock.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/tracebuf.h"

static SCHED_HOT void park_m(struct g *gp)
{
	struct m *mp = getm();
	preempt_enable_no_resched();	/* gopark's; we are switching anyway */
	casgstatus(gp, _Grunning, _Gwaiting);
	traceGoPark(gp);
	dropg();
	bool (*fn)(struct g *, void *) = mp->waitunlockf;
	if (fn) {
		void *lock = mp->waitlock;
		mp->waitunlockf = NULL;
		mp->waitlock = NULL;
		/* Runs after gp is _Gwaiting and its context saved, so a
		 * goready on another core as soon as the lock drops is safe. */
		if (!fn(gp, lock)) {
			traceGoUnpark(gp);
			casgstatus(gp, _Gwaiting, _Grunnable);
			execute(gp, true);	/* the same slice: never left */
		}
	}
	schedule();
}

void gopark(bool (*unlockf)(struct g *, void *), void *lock,
	    enum waitreason reason)
{
	struct g *gp = getg();
	/* Preemption off until park_m: a G preempted here would resume on
	 * another M, whose park_m would not find these fields. */
	preempt_disable();
	struct m *mp = gp->m;
	if (gp == mp->g0)
		panic("gopark on g0");
	if (readgstatus(gp) != _Grunning)
		panic("gopark: goroutine %llu is not running",
		      (unsigned long long)gp->goid);
	mp->waitunlockf = unlockf;
	mp->waitlock = lock;
	gp->waitreason = reason;
	mcall(park_m);
}

/*
 * goready: make the parked gp runnable, next on this P (runnext), so that
 * a hand-off (a channel send waking a receiver, say) runs at once and on a
 * warm cache; the G displaced from runnext keeps its place in the queue.
 */
void goready(struct g *gp)
{
	ready(gp);
}

void goready_bad(struct g *gp, uint32_t st)
{
	panic("goready: goroutine %llu is %s, not waiting",
	      (unsigned long long)gp->goid, gstatus_string(st));
}

/*
 * goschedImpl: gp goes to the global queue, behind everything else, so
 * that it lets every P's work go first rather than just its own P's.
 * Go's gosched_m is goschedImpl(gp, false) and gopreempt_m (the tick's
 * preemption, sched/preempt.c) goschedImpl(gp, true).
 *
 * Preempted: Gs that devices readied run next on this P (Go's sysmon
 * injects them when nobody polled for 10 ms; gmk has no sysmon, and the
 * preemption is the tick's, sysmon's retake, or netpoll_kick's, which
 * took the core for exactly these Gs). Without this, Ps kept busy by
 * CPU-bound Gs would take those Gs back from the global queue before
 * ever reaching findrunnable's netpoll step. (The preemption's trace
 * event is emitted by its callers, which know whether it was async.)
 */
static inline __attribute__((always_inline, noreturn)) void
gosched_common(struct g *gp, bool preempted)
{
	if (preempted)
		schedfp(getm()->p, gp, SCHEDFP_PREEMPT);
	else
		traceGoSched(gp);
	casgstatus(gp, _Grunning, _Grunnable);
	dropg();
	spin_lock_nopreempt(&sched.lock);	/* on g0 */
	globrunqput(gp);
	spin_unlock_nopreempt(&sched.lock);
	if (preempted && netpoll_pending()) {
		struct gqueue q = { 0 };
		netpoll(&q);
		injectglist(getm()->p, &q, true);
	}
	wakep();
	schedule();
}

void goschedImpl(struct g *gp, bool preempted)
{
	gosched_common(gp, preempted);
}

static SCHED_HOT void gosched_m(struct g *gp)
{
	gosched_common(gp, false);
}

/* goyield_m: like gosched_m, but gp goes to the tail of this P's own
 * queue (Go's goyield, for semrelease's direct hand-off: the waiter in
 * runnext runs at once, and the yielder soon after on the same P). */
static SCHED_HOT void goyield_m(struct g *gp)
{
	struct p *pp = getm()->p;
	casgstatus(gp, _Grunning, _Grunnable);
	dropg();
	runqput(pp, gp, false);
	schedule();
}

void goyield(void)
{
	mcall(goyield_m);
}

void gosched(void)
{
	mcall(gosched_m);
}

static SCHED_HOT void goexit0(struct g *gp)
{
	struct m *mp = getm();
	traceGoEnd(gp);
	casgstatus(gp, _Grunning, _Gdead);
	dropg();
	gp->entry = NULL;
	gp->arg = NULL;
	gp->waitreason = 0;
	gfput(mp->p, gp);
	schedule();
}

void goexit(void)
{
	mcall(goexit0);
	__builtin_unreachable();
}
