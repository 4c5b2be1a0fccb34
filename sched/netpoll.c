/*
 * The poller, after Go's runtime/netpoll.go (pollDesc, netpollblock,
 * netpollunblock, netpollready, netpolldeadline) and the netpoll steps of
 * proc.go. See sched/netpoll.h for the API.
 *
 * Go's netpoll asks the OS (epoll, kqueue) which descriptors became ready
 * and returns their Gs. Here the "OS" is the interrupt handlers: the one
 * of a device calls netpollready, which does what Go's netpoll does with
 * each event (netpollready -> netpollunblock) and pushes the G it takes
 * off the descriptor onto a lock-free ready list. netpoll(q) drains that
 * list, as netpoll(0) returns its gList: the scheduler injects the Gs.
 *
 * Departure from Go: an interrupt handler may not touch run queues or
 * take sched.lock (the code it interrupted may hold either), so readying
 * is split: the handler only moves the G to the ready list, and makes
 * sure a core with a P comes to take it (netpoll_kick), which Go's
 * netpollBreak + wakep do for a thread blocked in epoll_wait.
 */
#include "kernel/atomic.h"
#include "kernel/ipi.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"

/* Gs readied by interrupts, a Treiber stack through g->schedlink
 * (pushed from any core's interrupt handler, drained by netpoll). */
volatile uintptr_t netpoll_readylist;	/* netpoll_pending peeks (netpoll.h) */
/* nanotime when the ready list last went from empty to not: the age of
 * its oldest G, for netpoll_overdue. (Go's sysmon measures the time since
 * the last poll, sched.lastpoll, and injects into the global queue; here
 * the overdue Gs run first, which is right only for Gs that did wait: a
 * G readied a moment ago after a long quiet spell would otherwise jump
 * the queue ahead of Gs that have waited a whole slice.) */
static volatile uint64_t readysince;
/* How netpoll_kick got the Gs run: an idle core woken, this core's G
 * preempted, or left to the others (for tests and the shell's sched).
 * Bumped from the interrupt handlers of several cores at once: by
 * netpoll_count_kick, a locked RMW, or increments would be lost. */
volatile uint64_t netpoll_kicks[4];
/* Gs parked in poll_wait (Go's netpollWaiters). A G an interrupt readies
 * leaves the count only once it is on the ready list, where checkdead
 * sees it (netpollready): for a moment it is counted twice, never in
 * neither. One a deadline readies leaves it first (netpolldeadline): a P
 * is held there, and checkdead needs every M idle. */
static volatile uint32_t nwaiters;

static volatile uintptr_t *gpp_of(struct pollDesc *pd, int mode)
{
	if (mode == 'r')
		return &pd->rg;
	if (mode == 'w')
		return &pd->wg;
	panic("poll: mode '%c' is neither 'r' nor 'w'", mode);
}

static void netpoll_count_kick(unsigned kind)
{
	atomic_xadd64(&netpoll_kicks[kind], 1);	/* full barrier; any core, any context */
}

/* ---- the ready list ------------------------------------------------- */

static void readylist_push(struct g *gp)
{
	for (;;) {
		uintptr_t old = atomic_loaduintptr(&netpoll_readylist);
		if (old == 0)		/* the first: its age is the list's */
			atomic_store64(&readysince, nanotime());
		gp->schedlink = (struct g *)old;
		/* CAS (full barrier): schedlink, and everything the handler
		 * wrote before netpollready (the data), come first. */
		if (atomic_casuintptr(&netpoll_readylist, old, (uintptr_t)gp)) {
			/* Non-empty now: every P's round looks (overdue Gs). */
			if (old == 0)
				p_attn_all(PATTN_NETPOLL);
			return;
		}
	}
}

uint32_t netpoll(struct gqueue *q)
{
	if (!netpoll_pending())
		return 0;
	/* xchg (full barrier): pairs with the pushers' CAS. */
	struct g *gp = (struct g *)atomic_xchguintptr(&netpoll_readylist, 0);
	struct g *rev = NULL;
	uint32_t n = 0;
	while (gp) {			/* LIFO -> the order they were readied */
		struct g *next = gp->schedlink;
		gp->schedlink = rev;
		rev = gp;
		gp = next;
		n++;
	}
	while (rev) {
		struct g *next = rev->schedlink;
		gqueue_pushback(q, rev);
		rev = next;
	}
	return n;
}

/*
 * One G the poller took, made runnable. A G locked to another M goes to
 * it as ready() sends one (ready_locked): readied by its device, it takes
 * its core now (lockosthread, proc.c), where a run queue would have its
 * owner find it only at its next round, after the slice of the G it runs
 * (Go's startlockedm hands the P over at once). True when it went there.
 */
static bool netpoll_ready_locked(struct g *gp)
{
	casgstatus(gp, _Gwaiting, _Grunnable);
	traceGoUnpark(gp);
	struct m *mp = getm();
	if (likely(gp->lockedm == NULL || gp->lockedm == mp))
		return false;
	ready_locked(mp, gp);
	return true;
}

/*
 * injectglist, for a caller on g0 with the P pp (or a G with preemption
 * off). Go hands some of the Gs to idle Ps through the global queue and
 * keeps the rest; gmk puts them all on pp's queue (runnext for the first
 * when asked: the preemption path, where the woken G is why the core was
 * taken) and wakes one spinner, which steals what it can. A G locked to
 * another core goes to that core (netpoll_ready_locked).
 */
void injectglist(struct p *pp, struct gqueue *q, bool next)
{
	struct g *gp;
	bool any = false;
	while ((gp = gqueue_pop(q)) != NULL) {
		if (netpoll_ready_locked(gp))
			continue;
		runqput(pp, gp, next);
		next = false;
		any = true;
	}
	if (any)
		wakep();
}

bool netpoll_overdue(uint64_t now)
{
	if (!netpoll_pending())
		return false;
	uint64_t last = atomic_load64(&readysince);
	return now > last && now - last >= NETPOLL_MAX_DELAY_NS;
}

struct g *netpoll_take(struct p *pp)
{
	struct gqueue q = { 0 };
	if (netpoll(&q) == 0)
		return NULL;
	struct g *gp;
	while ((gp = gqueue_pop(&q)) != NULL && netpoll_ready_locked(gp))
		;
	injectglist(pp, &q, false);
	return gp;
}

uint32_t netpoll_waiters(void)
{
	return atomic_load32(&nwaiters);
}

/* Go's netpollAdjustWaiters: after the Gs netpollunblock returned are
 * where checkdead looks for them (the ready list, a run queue). */
static void netpolladjustwaiters(int32_t delta)
{
	if (delta != 0)
		atomic_xadd32(&nwaiters, delta);	/* full barrier: the push first */
}

/* ---- blocking and unblocking (Go's netpollblock / netpollunblock) ---- */

/* What gopark's unlockf gets: on the parking G's stack. */
struct blockarg {
	volatile uintptr_t *gpp;
	void (*commit)(void *);
	void *arg;
};

/* gopark's unlockf: commit to parking unless readiness came meanwhile. */
static bool netpollblockcommit(struct g *gp, void *arg)
{
	struct blockarg *ba = arg;
	/* Copied first: once the CAS publishes gp, an interrupt on another
	 * core may ready it, and its stack (ba) is its own again. */
	volatile uintptr_t *gpp = ba->gpp;
	void (*commit)(void *) = ba->commit;
	void *carg = ba->arg;
	/* CAS pdWait -> G: an interrupt that came since netpollblock set
	 * pdReady (or a deadline pdNil), and then we must not sleep. */
	if (!atomic_casuintptr(gpp, pdWait, (uintptr_t)gp))
		return false;
	atomic_xadd32(&nwaiters, 1);
	if (commit)
		commit(carg);
	return true;
}

/*
 * Returns the G parked on the descriptor (to be readied), or NULL. With
 * ioready, the state becomes pdReady (consumed by the G, or by the next
 * waiter); a deadline (ioready false) does not leave it ready. A G
 * returned is still counted in nwaiters: *delta goes down by one, for
 * the caller's netpolladjustwaiters once the G is readied (Go's delta).
 */
static struct g *netpollunblock(volatile uintptr_t *gpp, bool ioready, int32_t *delta)
{
	for (;;) {
		uintptr_t old = atomic_loaduintptr(gpp);
		if (old == pdReady)
			return NULL;
		if (old == pdNil && !ioready)
			return NULL;	/* only a deadline: nothing to do */
		uintptr_t new_ = ioready ? pdReady : pdNil;
		if (atomic_casuintptr(gpp, old, new_)) {
			if (old == pdWait || old == pdNil)
				return NULL;
			(*delta)--;
			return (struct g *)old;
		}
	}
}

static bool deadline_passed(struct pollDesc *pd, int mode)
{
	uint64_t d = atomic_load64(mode == 'r' ? &pd->rd : &pd->wd);
	return d != 0 && nanotime() >= d;
}

/* Returns true if I/O is ready, false on a deadline (Go's netpollblock). */
static bool netpollblock(struct pollDesc *pd, int mode, void (*commit)(void *),
			 void *carg)
{
	volatile uintptr_t *gpp = gpp_of(pd, mode);
	struct blockarg ba = { gpp, commit, carg };
	for (;;) {
		if (atomic_casuintptr(gpp, pdReady, pdNil))
			return true;
		if (atomic_casuintptr(gpp, pdNil, pdWait))
			break;
		uintptr_t old = atomic_loaduintptr(gpp);
		if (old != pdReady && old != pdNil)
			panic("poll_wait: %s: two goroutines wait on mode '%c'",
			      pd->name ? pd->name : "pollDesc", mode);
	}
	/* Go rechecks closing after the store of pdWait: poll_unblock
	 * stores closing, then reads rg/wg (both full barriers), so either
	 * it sees pdWait and clears it (the commit fails) or we see closing. */
	if (atomic_load32(&pd->closing)) {
		atomic_xchguintptr(gpp, pdNil);
		return false;
	}
	/* The deadline timer is armed only while a G waits on the mode,
	 * and needs no sequence number as Go's does: a stale firing only
	 * wakes a later waiter early, which rechecks the deadline. */
	uint64_t d = atomic_load64(mode == 'r' ? &pd->rd : &pd->wd);
	struct timer *t = mode == 'r' ? &pd->rt : &pd->wt;
	if (d && nanotime() < d)
		timer_reset(t, d);
	if (d == 0 || nanotime() < d)
		gopark(netpollblockcommit, &ba, waitReasonIOWait);
	if (d)
		timer_stop(t);
	/* Whatever woke us, the state goes back to pdNil. */
	uintptr_t old = atomic_xchguintptr(gpp, pdNil);
	if (old > pdWait)
		panic("poll_wait: %s: corrupted state", pd->name ? pd->name : "pollDesc");
	return old == pdReady;
}

int poll_wait(struct pollDesc *pd, int mode)
{
	return poll_wait_commit(pd, mode, NULL, NULL);
}

int poll_wait_commit(struct pollDesc *pd, int mode, void (*commit)(void *),
		     void *arg)
{
	/* Closing first, as Go's netpollcheckerr: a closed descriptor's
	 * deadline is no longer the reason. */
	if (atomic_load32(&pd->closing))
		return POLL_ERR_CLOSING;
	if (deadline_passed(pd, mode))
		return POLL_ERR_TIMEOUT;
	for (;;) {
		if (netpollblock(pd, mode, commit, arg))
			return POLL_OK;
		/* Woken without readiness: closing, the deadline, or a stale
		 * timer. */
		if (atomic_load32(&pd->closing))
			return POLL_ERR_CLOSING;
		if (deadline_passed(pd, mode))
			return POLL_ERR_TIMEOUT;
	}
}

/* The deadline timers' callback (Go's netpolldeadlineimpl): on g0 with a
 * P, so the G can be readied as sleep's is. */
/*
 * A deadline (a timer callback, or poll_setdeadline): this M holds a P,
 * so checkdead cannot run until it gives it up, by which time the G is
 * on its run queue. The count comes down before goready: the G may run
 * on another P at once and must not find itself still counted.
 */
static void netpolldeadline(volatile uintptr_t *gpp)
{
	int32_t delta = 0;
	struct g *gp = netpollunblock(gpp, false, &delta);
	netpolladjustwaiters(delta);
	if (gp)
		goready(gp);
}

static void netpolldeadline_r(void *arg)
{
	netpolldeadline(&((struct pollDesc *)arg)->rg);
}

static void netpolldeadline_w(void *arg)
{
	netpolldeadline(&((struct pollDesc *)arg)->wg);
}

void poll_setdeadline(struct pollDesc *pd, uint64_t deadline, int mode)
{
	if (!pd->rt.f) {
		timer_init(&pd->rt, netpolldeadline_r, pd);
		timer_init(&pd->wt, netpolldeadline_w, pd);
	}
	if (mode == 'r' || mode == 'r' + 'w')
		atomic_store64(&pd->rd, deadline);
	if (mode == 'w' || mode == 'r' + 'w')
		atomic_store64(&pd->wd, deadline);
	/* A G already waiting sees the new deadline: wake it to recheck
	 * (it parks again with the new timer if the deadline is later). */
	preempt_disable();	/* goready works on this P */
	if (mode != 'w')
		netpolldeadline(&pd->rg);
	if (mode != 'r')
		netpolldeadline(&pd->wg);
	preempt_enable();
}

/*
 * From an interrupt handler: Go's netpollready for one event. The G goes
 * on the ready list before it leaves nwaiters (as Go's netpoll returns
 * the list and its delta, and findrunnable adjusts the count only after
 * injectglist): checkdead, which may run on another core as its last M
 * goes idle, must find it in one or the other, or it takes the woken G
 * for a deadlock.
 */
void netpollready(struct pollDesc *pd, int mode)
{
	int32_t delta = 0;
	struct g *gp = netpollunblock(gpp_of(pd, mode), true, &delta);
	if (!gp)
		return;
	readylist_push(gp);
	sched_race(SCHED_RACE_NETPOLL_READIED);
	netpolladjustwaiters(delta);
}

/*
 * After a device interrupt readied Gs: get a core with a P to them.
 *   - an idle P: wake one halted core that has an M without a P; stopm
 *     sees the ready list and takes an idle P (Go's netpollBreak waking
 *     the M blocked in netpoll). If this core is that M, it is about to
 *     look (its stopm loop runs on after the interrupt).
 *   - every P busy: take this core's G off (Go's preemptone): its P then
 *     runs the readied G next (gopreempt_m injects the ready list into
 *     runnext). This is what makes a keypress echo at once while CPU-
 *     bound Gs hold every P, instead of after their slice.
 * If this core has no P and none is idle (nprocs < cores), the busy Ps
 * take the Gs at their next tick (gopreempt_m) or netpoll step.
 */
/* An idle P and an M to take it: true when one was woken (or we are it). */
static bool netpoll_wake_idle(void)
{
	struct cpu *me = this_cpu();
	struct m *mp = me->m;
	if (atomic_load32(&sched.npidle) == 0)
		return false;
	if (mp && !mp->p) {
		netpoll_count_kick(NETPOLL_KICK_SELF);
		return true;		/* we are the idle M: stopm looks next */
	}
	/* A halted one first; else one on its way to stopm, where the IPI
	 * stays pending and its wfi/hlt returns at once. */
	int other = -1;
	for (unsigned i = 0; i < ncpus; i++) {
		struct m *om = cpus[i].m;
		/* load-acquire of a hint (acquirep/releasep store it): a
		 * stale one wakes a core that finds nothing, or none. */
		if (!om || &cpus[i] == me || atomic_loaduintptr((volatile uintptr_t *)&om->p))
			continue;
		if (atomic_load64(&cpus[i].halted_since) != 0) {
			ipi_send(i, IPI_WAKE);
			netpoll_count_kick(NETPOLL_KICK_IDLE);
			return true;
		}
		other = (int)i;
	}
	if (other >= 0) {
		ipi_send((unsigned)other, IPI_WAKE);
		netpoll_count_kick(NETPOLL_KICK_IDLE);
		return true;
	}
	return false;
}

void netpoll_wake(void)
{
	if (!atomic_load32(&mainstarted) || !netpoll_pending())
		return;
	if (!netpoll_wake_idle())
		netpoll_count_kick(NETPOLL_KICK_NONE);
}

void netpoll_kick(struct trapframe *tf)
{
	if (!atomic_load32(&mainstarted) || !netpoll_pending())
		return;
	struct m *mp = this_cpu()->m;
	if (netpoll_wake_idle())
		return;
	if (mp && mp->p) {
		netpoll_count_kick(NETPOLL_KICK_PREEMPT);
		sched_preempt_for_netpoll(tf);
	} else {
		netpoll_count_kick(NETPOLL_KICK_NONE);
	}
}

/*
 * Go's poll_runtime_pollUnblock: the descriptor is closing; the Gs that
 * wait on it wake (readied as a deadline readies them, without I/O
 * readiness) and see closing, and so does every later wait. From a G.
 */
void poll_unblock(struct pollDesc *pd)
{
	if (atomic_xchg32(&pd->closing, 1))	/* full barrier: before rg/wg */
		panic("poll_unblock: %s: already closing", pd->name ? pd->name : "pollDesc");
	preempt_disable();	/* goready works on this P */
	netpolldeadline(&pd->rg);
	netpolldeadline(&pd->wg);
	preempt_enable();
}

/* Go's pollOpen for a reused descriptor: nobody waits on it (the last
 * user's waits have returned), so the states start afresh. */
void poll_open(struct pollDesc *pd)
{
	if (atomic_loaduintptr(&pd->rg) > pdReady || atomic_loaduintptr(&pd->wg) > pdReady)
		panic("poll_open: %s: a goroutine still waits on it",
		      pd->name ? pd->name : "pollDesc");
	atomic_store64(&pd->rd, 0);
	atomic_store64(&pd->wd, 0);
	atomic_storeuintptr(&pd->rg, pdNil);
	atomic_storeuintptr(&pd->wg, pdNil);
	atomic_store32(&pd->closing, 0);	/* store-release: the rest first */
}
