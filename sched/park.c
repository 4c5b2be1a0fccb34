/*
 * Blocking and waking, and giving up the core: gopark/goready (the only
 * way a G blocks and is woken), gosched and goexit. Each switches to g0
 * with mcall; the *_m half (park_m, gosched_m, goyield_m, goexit0) runs
 * there, requeues or parks the G, and schedules. Those halves live in
 * proc.c, beside schedule(), whose body each inlines (one frame on g0,
 * not two, and no checks that the switch itself has just made true).
 */
#include "kernel/atomic.h"
#include "kernel/console.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/spinlock.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/sudog.h"
#include "sched/tracebuf.h"

/* gopark's part after the console line: preemption is off (once, counted
 * for park_m to drop) and the G is about to switch. */
static __always_inline void gopark_switch(struct g *gp, bool (*unlockf)(struct g *, void *),
					  void *lock, enum waitreason reason)
{
	struct m *mp = gp->m;
	if (gp == mp->g0)
		gopark_on_g0();
	/* A G that is not _Grunning here: park_m's casgstatus reports it,
	 * naming the G and both statuses. */
	mp->waitunlockf = unlockf;
	mp->waitlock = lock;
	gp->waitreason = reason;
	mcall(park_m);
}

void gopark(bool (*unlockf)(struct g *, void *), void *lock,
	    enum waitreason reason)
{
	struct g *gp = getg();
	if (gp != gp->m->g0 && gp->stack_hi)	/* g0 has no G-local area (and panics below) */
		gopark_line(gp);
	/* Preemption off until park_m: a G preempted here would resume on
	 * another M, whose park_m would not find these fields. */
	preempt_disable();
	gopark_switch(gp, unlockf, lock, reason);
}

/* gopark or goparkunlock_spin (schedimpl.h) called on g0: a timer callback's
 * park is named as such, anything else is this panic. */
void gopark_on_g0(void)
{
	timer_callback_blocked_check();
	panic("gopark on g0");
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

void goyield(void)
{
	mcall(goyield_m);
}

void gosched(void)
{
	mcall(gosched_m);
}

void goexit(void)
{
	/* Its partial line out, its C library state freed, where it has
	 * either (on g0, whose area this is not, glocal_exit does nothing,
	 * and mcall panics). */
	struct g *gp = getg();
	if (gp->stack_hi && glocal_exit_due(gp->stack_hi))
		glocal_exit();
#if defined(GMK_SAN_FIBERS) || !GMK_FASTPATH
	/* The sanitizer builds' switches are C wrappers; the reference
	 * build takes Go's mcall. */
	mcall(goexit0);
	__builtin_unreachable();
#else
	mcall_exit(goexit0);
#endif
}
