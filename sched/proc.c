/*
 * The scheduler loop, after Go's proc.go: schedule -> findrunnable ->
 * execute, work stealing, and the parking and unparking of Ms.
 *
 * gmk has exactly one M per core, made at boot; Go makes threads on
 * demand. An M without a P is on sched.midle and halts its core; wakep /
 * startm hand it a P and wake it with an IPI.
 *
 * Invariant that replaces Go's newm: an M joins sched.midle in the same
 * critical section (under sched.lock) in which its P joins sched.pidle,
 * and leaves it in the same critical section in which it gets a P back.
 * With as many Ms as Ps, an idle P therefore always has an idle M to run
 * it, so startm never needs an M that does not exist.
 *
 * Worker parking/unparking follows Go exactly (see the long comment at the
 * top of proc.go): a new G is submitted to a run queue, then a StoreLoad
 * barrier, then nmspinning is checked (wakep); a spinning M that gives up
 * decrements nmspinning, then a StoreLoad barrier, then rechecks every
 * run queue ("the delicate dance" in findrunnable). Either the submitter
 * sees the spinner, or the spinner sees the G.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "sched/console_io.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/tracebuf.h"

/* Every 61st schedtick a P takes one G from the global queue before its
 * own, so that two Gs respawning each other locally cannot starve it. 61
 * is Go's choice: prime, so it does not fall into step with the
 * application's own periods. */
#define GLOBRUNQ_FAIRNESS_TICKS 61
/* Passes over all Ps in stealwork; runnext (and timers) only on the last. */
#define STEAL_TRIES 4

struct p *allp[MAX_CPUS];
static struct p pstore[MAX_CPUS];
struct m allm[MAX_CPUS];
static struct g g0store[MAX_CPUS];
volatile uint32_t mainstarted;
static uint64_t boot_seed;

/* Go's stealOrder: visit the Ps from a random start with a random stride
 * coprime to their count, so that each pass sees every P exactly once and
 * different Ms start in different places. */
static struct {
	uint32_t count;
	uint32_t ncoprimes;
	uint32_t coprimes[MAX_CPUS];
} stealorder;

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void stealorder_reset(uint32_t count)
{
	stealorder.count = count;
	stealorder.ncoprimes = 0;
	for (uint32_t i = 1; i <= count; i++)
		if (gcd(i, count) == 1)
			stealorder.coprimes[stealorder.ncoprimes++] = i;
}

struct g *getg(void) { return arch_getg(); }
uint64_t goid(void) { return getg()->goid; }
struct p *sched_p(uint32_t id) { return id < sched.nprocs ? allp[id] : NULL; }
uint32_t sched_nprocs(void) { return sched.nprocs; }
uint64_t sched_seed(void) { return boot_seed; }

/* xorshift64: per M, so no lock and no shared cache line. Preemption off:
 * a G (select) that migrated mid-update would race with the old M. */
uint32_t cheaprand(void)
{
	preempt_disable();
	struct m *mp = getm();
	uint64_t x = mp->fastrand;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	mp->fastrand = x;
	preempt_enable();
	return (uint32_t)(x >> 32);
}

void casgstatus(struct g *gp, uint32_t oldval, uint32_t newval)
{
	if (!atomic_cas32(&gp->atomicstatus, oldval, newval))
		panic("casgstatus: goroutine %llu: %s -> %s, but it is %s",
		      (unsigned long long)gp->goid, gstatus_string(oldval),
		      gstatus_string(newval), gstatus_string(readgstatus(gp)));
}

/* Called by switch.S when mcall is misused; they do not return. */
void mcall_returned(void);
void mcall_on_g0(void);
void mcall_returned(void) { panic("mcall: the function returned"); }
void mcall_on_g0(void) { panic("mcall called on g0"); }

/* ---- Ms and Ps: lists under sched.lock ------------------------------- */

static bool m_on_midle(struct m *mp)
{
	for (struct m *it = sched.midle; it; it = it->schedlink)
		if (it == mp)
			return true;
	return false;
}

/* mput: mp joins the idle Ms; may find the whole system asleep. */
static void mput(struct m *mp)
{
	mp->schedlink = sched.midle;
	sched.midle = mp;
	sched.nmidle++;
	checkdead();
}

static struct m *mget(void)
{
	struct m *mp = sched.midle;
	if (mp) {
		sched.midle = mp->schedlink;
		mp->schedlink = NULL;
		sched.nmidle--;
	}
	return mp;
}

static void mremove(struct m *mp)
{
	for (struct m **it = &sched.midle; *it; it = &(*it)->schedlink)
		if (*it == mp) {
			*it = mp->schedlink;
			mp->schedlink = NULL;
			sched.nmidle--;
			return;
		}
	panic("mremove: M%u is not idle", mp->id);
}

static void pidleput(struct p *pp)
{
	if (!runqempty(pp))
		panic("pidleput: P%u has a non-empty run queue", pp->id);
	atomic_store32(&pp->status, _Pidle);
	pp->link = sched.pidle;
	sched.pidle = pp;
	atomic_store32(&sched.npidle, sched.npidle + 1);	/* release */
	pp->nidle++;
}

/* Take the idle P pp off the idle list, if it is on it. */
static bool pidlegetp(struct p *pp)
{
	for (struct p **it = &sched.pidle; *it; it = &(*it)->link)
		if (*it == pp) {
			*it = pp->link;
			pp->link = NULL;
			atomic_store32(&sched.npidle, sched.npidle - 1);
			return true;
		}
	return false;
}

static struct p *pidleget(void)
{
	struct p *pp = sched.pidle;
	if (pp) {
		sched.pidle = pp->link;
		pp->link = NULL;
		atomic_store32(&sched.npidle, sched.npidle - 1);
	}
	return pp;
}

/* pidleget for an M about to spin: if there is no P, record that a
 * spinner was wanted, so that an M about to stop spins instead. */
static struct p *pidlegetspinning(void)
{
	struct p *pp = pidleget();
	if (!pp)
		atomic_store32(&sched.needspinning, 1);
	return pp;
}

static void acquirep(struct p *pp)
{
	struct m *mp = getm();
	if (mp->p || pp->m)
		panic("acquirep: M%u has P, or P%u has M", mp->id, pp->id);
	mp->p = pp;
	pp->m = mp;
	atomic_store32(&pp->status, _Prunning);
	traceProcStart(mp);
}

static struct p *releasep(void)
{
	struct m *mp = getm();
	struct p *pp = mp->p;
	traceProcStop();
	pp->m = NULL;
	mp->p = NULL;
	atomic_store32(&pp->status, _Pidle);
	return pp;
}

/* ---- parking the core ---------------------------------------------- */

/*
 * The earliest timer on an idle P, and that P (a lock-free hint). Busy
 * Ps' timers are their own cores' business (their tick); an idle P's
 * are the idle cores'. Go's checkTimersNoP / pollUntil.
 */
static uint64_t idle_timers_deadline(struct p **which)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i < sched.nprocs; i++) {
		struct p *pp = allp[i];
		if (atomic_load32(&pp->status) != _Pidle)
			continue;
		uint64_t w = timers_when0(pp);
		if (w && (best == 0 || w < best)) {
			best = w;
			*which = pp;
		}
	}
	return best;
}

/* An idle M whose deadline came takes the P whose timer is due (or any
 * idle P, pp NULL: for the Gs a device readied), as if startm had handed
 * it over (both leave the idle lists together). */
static bool claim_idle_p(struct m *mp, struct p *pp)
{
	spin_lock(&sched.lock);
	bool ok = m_on_midle(mp) && (pp ? pidlegetp(pp) : (pp = pidleget()) != NULL);
	if (ok)
		mremove(mp);
	spin_unlock(&sched.lock);
	if (ok)
		acquirep(pp);
	return ok;
}

/*
 * stopm: mp is already on sched.midle (put there with its P's release).
 * Halt until startm hands over a P, or an idle P's timer is due.
 *
 * Tickless: the core's timer is set for the earliest idle-P timer, or not
 * at all. Interrupts are masked from the checks to the wfi/hlt, and
 * arch_wait_for_interrupt wakes on a pending interrupt even while masked,
 * so the IPI of a notewakeup (or of timers_notify, for a new earlier
 * timer) that comes just after the checks is not lost.
 */
static void stopm(void)
{
	struct m *mp = getm();
	for (;;) {
		unsigned long flags = arch_irq_save();
		/* load-acquire: pairs with notewakeup's store-release, so
		 * m->nextp and m->spinning are visible. */
		if (atomic_load32(&mp->park)) {
			arch_irq_restore(flags);
			break;
		}
		/* A device readied Gs (netpoll_kick woke us, or we took the
		 * interrupt ourselves): take an idle P and run them, as Go's
		 * M blocked in netpoll(delay) does. */
		if (netpoll_pending()) {
			arch_irq_restore(flags);
			if (claim_idle_p(mp, NULL))
				return;
			continue;
		}
		struct p *tp = NULL;
		uint64_t deadline = idle_timers_deadline(&tp);
		uint64_t t0 = nanotime();
		if (deadline && deadline <= t0) {
			arch_irq_restore(flags);
			if (claim_idle_p(mp, tp))
				return;
			continue;	/* taken, or startm is handing us one */
		}
		timer_set_deadline(deadline);
		cpu_halt();
		arch_irq_restore(flags);
		schedtrace_maybe();
	}
	atomic_store32(&mp->park, 0);	/* noteclear: only mp itself */
	struct p *pp = mp->nextp;
	mp->nextp = NULL;
	acquirep(pp);
}

static void m_unpark(struct m *mp)
{
	atomic_store32(&mp->park, 1);		/* store-release: nextp first */
	ipi_send(mp->cpu->id, IPI_WAKE);
}

/* startm: run pp on an idle M, spinning (looking for work) if asked.
 * Caller holds sched.lock; it is released here. */
static void startm_locked(struct p *pp, bool spinning)
{
	struct m *nmp = mget();
	if (!nmp)
		panic("startm: idle P%u but no idle M (%u Ms idle)", pp->id,
		      sched.nmidle);
	spin_unlock(&sched.lock);
	nmp->spinning = spinning;
	nmp->nextp = pp;
	m_unpark(nmp);
}

/*
 * wakep: start one spinning M if there is an idle P and nobody spins
 * already (a spinner that finds work wakes the next one: resetspinning).
 * Called after putting a G on a run queue.
 */
void wakep(void)
{
	/* Be conservative about spinning Ms: start one only if none exist. */
	if (atomic_load32(&sched.nmspinning) != 0 ||
	    !atomic_cas32(&sched.nmspinning, 0, 1))
		return;
	spin_lock(&sched.lock);
	struct p *pp = pidlegetspinning();
	if (!pp) {
		atomic_xadd32(&sched.nmspinning, -1);
		spin_unlock(&sched.lock);
		return;
	}
	startm_locked(pp, true);
}

static void becomespinning(struct m *mp)
{
	mp->spinning = 1;
	atomic_xadd32(&sched.nmspinning, 1);
	atomic_store32(&sched.needspinning, 0);
}

static void resetspinning(void)
{
	struct m *mp = getm();
	if (!mp->spinning)
		panic("resetspinning: not a spinning M");
	mp->spinning = 0;
	uint32_t n = atomic_xadd32(&sched.nmspinning, -1);
	if ((int32_t)n < 0)
		panic("resetspinning: negative nmspinning");
	/* This M found work; if it was the last spinner, start another,
	 * since there may be more (see the comment at the top). */
	wakep();
}

/* ---- finding work --------------------------------------------------- */

/*
 * stealwork: STEAL_TRIES passes over the other busy Ps in a random order,
 * taking half of a victim's queue; runnext only on the last pass, since
 * its owner is likely to run it very soon.
 */
static struct g *stealwork(struct p *pp)
{
	uint32_t n = stealorder.count;
	for (int i = 0; i < STEAL_TRIES; i++) {
		bool steal_runnext = i == STEAL_TRIES - 1;
		uint32_t r = cheaprand();
		uint32_t pos = r % n;
		uint32_t inc = stealorder.coprimes[r / n % stealorder.ncoprimes];
		for (uint32_t k = 0; k < n; k++, pos = (pos + inc) % n) {
			struct p *p2 = allp[pos];
			if (p2 == pp)
				continue;
			/*
			 * On the last pass, fire p2's due timers (busy or idle:
			 * its own M may be stuck in a G, or it has none). Gs
			 * they ready come to our P (goready), as in Go.
			 */
			if (steal_runnext && timers_run(p2, nanotime())) {
				struct g *gp = runqget(pp, NULL);
				if (gp)
					return gp;
			}
			/* Don't bother to steal from an idle P: its queue is
			 * empty (pidleput checks). */
			if (atomic_load32(&p2->status) == _Pidle)
				continue;
			uint32_t t0 = pp->runqtail;
			struct g *gp = runqsteal(pp, p2, steal_runnext);
			if (gp) {
				traceSteal(p2, 1 + (pp->runqtail - t0));
				pp->nsteal += 1 + (pp->runqtail - t0);
				schedfp(pp, gp, SCHEDFP_STEAL);
				return gp;
			}
		}
	}
	return NULL;
}

static struct g *globrunqget_batch_locked(struct p *pp)
{
	struct gqueue q = { 0 };
	struct g *gp = globrunqgetbatch(GLOBRUNQ_BATCH_MAX, &q);
	spin_unlock(&sched.lock);
	if (gp) {
		pp->nglobget += 1 + q.size;
		runqputbatch(pp, &q);
	}
	return gp;
}

/*
 * findrunnable: a runnable G for this M's P, in Go's order. Blocks (halts
 * the core, without its P) until there is one. *inherit_time says the G
 * came from runnext and shares the current time slice.
 */
static struct g *findrunnable(bool *inherit_time)
{
	struct m *mp = getm();
	struct g *gp;

top:
	schedtrace_maybe();
	struct p *pp = mp->p;
	*inherit_time = false;

	/* Due timers first: the Gs they wake come to runnext (Go's
	 * checkTimers at the top of findRunnable). */
	timers_run(pp, nanotime());

	/* Device-readied Gs waiting too long (sysmon's netpoll, netpoll.h). */
	if (netpoll_pending() && netpoll_overdue(nanotime())) {
		gp = netpoll_take(pp);
		if (gp)
			return gp;
	}

	/* Fairness: now and then the global queue before the local one. */
	if (pp->schedtick % GLOBRUNQ_FAIRNESS_TICKS == 0 && !globrunqempty()) {
		spin_lock(&sched.lock);
		gp = globrunqget();
		spin_unlock(&sched.lock);
		if (gp) {
			pp->nglobget++;
			return gp;
		}
	}

	/* Local run queue: runnext, then the ring. A runnext chain
	 * shares one slice; the tick preempts it when that is used up. */
	gp = runqget(pp, inherit_time);
	if (gp && *inherit_time &&
	    nanotime() - pp->schedwhen >= sched_slice_ns()) {
		/*
		 * Nothing is left of the slice this chain shares: the tick
		 * has just preempted its last G (or is about to). Often
		 * that G was switched at the safe point that ends goready
		 * or go, right after it filled runnext; inheriting would
		 * then carry the chain on forever without a schedtick,
		 * and the 61st-tick check would never run the global
		 * queue. So the chain's next G starts a new slice, behind
		 * the ring.
		 */
		*inherit_time = false;
		if (!runqempty(pp)) {
			runqput(pp, gp, false);
			gp = runqget(pp, inherit_time);
		}
	}
	if (gp) {
		if (*inherit_time)
			pp->nrunnext++;
		return gp;
	}

	/* Global run queue, a batch. */
	if (!globrunqempty()) {
		spin_lock(&sched.lock);
		gp = globrunqget_batch_locked(pp);
		if (gp)
			return gp;
	}

	/* Poll the devices (Go's netpoll(0), at the same place): Gs their
	 * interrupts readied run here, the first now, the rest queued. */
	if (netpoll_pending()) {
		gp = netpoll_take(pp);
		if (gp)
			return gp;
	}

	/*
	 * Steal from other Ps. Limit the number of spinning Ms to half the
	 * busy Ps: with many idle Ps and little work, unbounded spinning
	 * burns cores for nothing.
	 */
	if (mp->spinning ||
	    2 * atomic_load32(&sched.nmspinning) <
		    sched.nprocs - atomic_load32(&sched.npidle)) {
		if (!mp->spinning)
			becomespinning(mp);
		gp = stealwork(pp);
		if (gp)
			return gp;
	}

	/*
	 * Nothing anywhere. Snapshot which Ps are busy before dropping ours:
	 * once we have no P we must not touch allp[...] state that an idle
	 * P could be reinitialised with (Go's allpSnapshot); with a fixed P
	 * count this only saves rereading statuses that change under us.
	 */
	uint64_t busy = 0;
	for (uint32_t i = 0; i < sched.nprocs; i++)
		if (atomic_load32(&allp[i]->status) != _Pidle)
			busy |= 1ull << i;

	spin_lock(&sched.lock);
	if (sched.runq.size != 0) {
		gp = globrunqget_batch_locked(pp);
		return gp;
	}
	if (!mp->spinning && atomic_load32(&sched.needspinning) == 1) {
		/* See "Delicate dance" below: someone wanted a spinner and
		 * found none idle; be it, instead of going to sleep. */
		becomespinning(mp);
		spin_unlock(&sched.lock);
		goto top;
	}
	if (mp->p != pp)
		panic("findrunnable: wrong P");
	pidleput(releasep());
	/* Read before mput: once on sched.midle, a startm may set our
	 * spinning for the work it hands us (found by TSan on hosted). */
	bool was_spinning = mp->spinning;
	mp->spinning = 0;
	mput(mp);
	spin_unlock(&sched.lock);

	/*
	 * Delicate dance: a G may have been submitted just before we
	 * decremented nmspinning; its submitter saw nmspinning > 0 and did
	 * not wake anyone (wakep). So after the decrement (a full barrier,
	 * StoreLoad) look at every run queue once more. If a submitter
	 * comes later, it sees nmspinning == 0 and wakes an M itself.
	 */
	if (was_spinning) {
		if ((int32_t)atomic_xadd32(&sched.nmspinning, -1) < 0)
			panic("findrunnable: negative nmspinning");

		for (uint32_t i = 0; i < sched.nprocs; i++) {
			if (!(busy & (1ull << i)) || runqempty(allp[i]))
				continue;
			spin_lock(&sched.lock);
			struct p *pp2 = NULL;
			/* Still idle? (A startm may already have claimed us,
			 * with a P: then stopm returns at once.) */
			if (m_on_midle(mp)) {
				pp2 = pidlegetspinning();
				if (pp2)
					mremove(mp);
			}
			spin_unlock(&sched.lock);
			if (pp2) {
				acquirep(pp2);
				becomespinning(mp);
				goto top;
			}
			break;	/* no P to run it: don't check the rest */
		}
	}
	stopm();
	goto top;
}

/* ---- running --------------------------------------------------------- */

/* execute: run gp on this M; a new time slice unless inherit_time. */
void execute(struct g *gp, bool inherit_time)
{
	struct m *mp = getm();
	struct p *pp = mp->p;
	uint64_t now = nanotime();
	mp->curg = gp;
	gp->m = mp;
	casgstatus(gp, _Grunnable, _Grunning);
	gp->preempt = 0;
	mp->cpu->resched = 0;
	if (!inherit_time) {
		pp->schedtick++;
		pp->schedwhen = now;	/* the tick measures the slice from here */
	}
	pp->runwhen = now;
	pp->nrun++;
	schedfp(pp, gp, SCHEDFP_EXECUTE);
	tick_arm_for_slice(pp);
	traceGoStart(gp, inherit_time);
	gogo(&gp->sched);
}

/* schedule: one round of the scheduler. Runs on g0, never returns. */
void schedule(void)
{
	struct m *mp = getm();
	if (getg() != mp->g0)
		panic("schedule: not on g0");
	if (mp->curg)
		panic("schedule: M%u still has curg", mp->id);
	if (!mp->p)
		panic("schedule: M%u has no P", mp->id);
	if (mp->cpu->preempt_off)
		panic("schedule: M%u: preempt-off count %u (a G switched out "
		      "holding a spinlock?)", mp->id, mp->cpu->preempt_off);
	struct p *pp = mp->p;
	if (pp->runwhen) {
		/* The G that ran last held the P this long without a switch. */
		uint64_t held = nanotime() - pp->runwhen;
		if (held > pp->maxhold_ns)
			pp->maxhold_ns = held;
		pp->runwhen = 0;
	}
	bool inherit;
	struct g *gp = findrunnable(&inherit);
	/* This M found work: if it was spinning, it stops, and starts the
	 * next spinner if it was the last. */
	if (mp->spinning)
		resetspinning();
	execute(gp, inherit);
}

/* dropg: the running G leaves its M (on g0, before it is requeued). */
void dropg(void)
{
	struct m *mp = getm();
	stackcheck(mp->curg);
	mp->curg->m = NULL;
	mp->curg = NULL;
}

/* ---- start-up ---------------------------------------------------------- */

static void minit(struct m *mp, struct cpu *c)
{
	struct g *g0 = &g0store[c->id];
	mp->id = c->id;
	mp->cpu = c;
	mp->g0 = g0;
	mp->fastrand = boot_seed ^ (0x9E3779B97F4A7C15ull * (c->id + 1));
	if (mp->fastrand == 0)
		mp->fastrand = 1;
	g0->m = mp;
	/* g0 runs on the core's boot stack. Each mcall starts afresh at
	 * its top: nothing that runs on g0 survives a switch. */
	g0->stack_hi = c->stack_top;
	g0->stack_lo = c->stack_top - KSTACK_SIZE;
	g0->sched.sp = c->stack_top;
	g0->sched.g = g0;
	g0->atomicstatus = _Grunning;
	c->m = mp;
}

static void schedinit(void)
{
	uint32_t online = 0, nprocs;
	for (unsigned i = 0; i < ncpus; i++)
		online += cpus[i].online ? 1 : 0;
	nprocs = kopts.nprocs ? kopts.nprocs : online;
	if (nprocs > online) {
		printf("gmk: nprocs=%u but %u cores are online: using %u\n",
		       nprocs, online, online);
		nprocs = online;
	}
	sched.nprocs = nprocs;
	boot_seed = kopts.seed_set ? kopts.seed : arch_counter();

	/* The first nprocs online cores get an M each; the others halt. */
	uint32_t nm = 0;
	for (unsigned i = 0; i < ncpus && nm < nprocs; i++) {
		if (!cpus[i].online)
			continue;
		minit(&allm[i], &cpus[i]);
		nm++;
	}
	for (uint32_t i = 0; i < nprocs; i++) {
		pstore[i].id = i;
		allp[i] = &pstore[i];
	}
	stealorder_reset(nprocs);
	schedfp_init();
	trace_init();

	/* This core: M0 with P0, running on its g0 now. */
	struct m *m0 = &allm[this_cpu()->id];
	arch_setg(m0->g0);
	acquirep(allp[0]);

	/* Every other P and M starts idle; an M is registered before its
	 * core gets here, so that wakep can hand it a P at once (it then
	 * finds m->park set when it arrives). */
	spin_lock(&sched.lock);
	for (uint32_t i = nprocs; i-- > 1;)
		pidleput(allp[i]);
	for (unsigned i = ncpus; i-- > 0;)
		if (allm[i].g0 && &allm[i] != m0) {
			allm[i].schedlink = sched.midle;
			sched.midle = &allm[i];
			sched.nmidle++;
		}
	spin_unlock(&sched.lock);

	fault_describe_hook = sched_fault_describe;
	preempt_init();
	console_io_init();
	printf("gmk: scheduler: %u Ps, %u cores, seed %llu\n", nprocs, online,
	       (unsigned long long)boot_seed);
}

/* A core beyond nprocs: no M, no P, no timer (tickless); IPIs still
 * reach it (smp_call_all). */
static __attribute__((noreturn)) void core_idle_forever(void)
{
	for (;;) {
		unsigned long flags = arch_irq_save();
		timer_set_deadline(0);
		cpu_halt();
		arch_irq_restore(flags);
	}
}

void sched_main(bool boot_core)
{
	struct cpu *c = this_cpu();
	if (boot_core) {
		schedinit();
		struct g *gp = newproc1(kernel_main_g, NULL, G_STACK_DEFAULT * 4);
		runqput(allp[0], gp, false);
		atomic_store32(&mainstarted, 1);
		smp_release_cores();	/* publishes schedinit (store-release) */
		schedule();
	}

	struct m *mp = c->m;
	if (!mp)	/* beyond nprocs: no M, no P */
		core_idle_forever();
	arch_setg(mp->g0);
	stopm();	/* on sched.midle since schedinit */
	schedule();
}
