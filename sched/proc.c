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
 * With at least as many Ms as Ps (as many at boot; gomaxprocs makes Ms
 * for more cores before it adds Ps, and keeps them when it removes Ps),
 * an idle P therefore always has an idle M to run it, so startm never
 * needs an M that does not exist.
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
#include "kernel/compiler.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/kmalloc.h"
#include "kernel/layout.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "sched/console_io.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/sync.h"
#include "sched/tracebuf.h"

/* Passes over all Ps in stealwork; runnext (and timers) only on the last. */
#define STEAL_TRIES 4

/* ThreadSanitizer reports a hint's racy read (prefetch_after_exit) as the
 * race that it is: its builds go without that read. */
#if defined(__SANITIZE_THREAD__)
#define PREFETCH_RACY_READS_OFF 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PREFETCH_RACY_READS_OFF 1
#endif
#endif
#ifndef PREFETCH_RACY_READS_OFF
#define PREFETCH_RACY_READS_OFF 0
#endif

struct p *allp[MAX_CPUS];
static struct p pstore[MAX_CPUS];
struct m allm[MAX_CPUS];
static struct g g0store[MAX_CPUS];
volatile uint32_t mainstarted;
static uint64_t boot_seed;
void (*sched_race_hook)(enum sched_race_point pt);	/* tests only (schedimpl.h) */

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

void casgstatus_bad(struct g *gp, uint32_t oldval, uint32_t newval)
{
	panic("casgstatus: goroutine %llu: %s -> %s, but it is %s",
	      (unsigned long long)gp->goid, gstatus_string(oldval),
	      gstatus_string(newval), gstatus_string(readgstatus(gp)));
}

/* Called by switch.S when mcall is misused; they do not return. */
void mcall_returned(void);
void mcall_on_g0(void);
void mcall_returned(void) { panic("mcall: the function returned"); }
void mcall_on_g0(void)
{
	timer_callback_blocked_check();	/* gosched or goexit in a callback */
	panic("mcall called on g0");
}

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

/* mp leaves sched.midle: if it kept time for the idle Ps, the next idle
 * M takes over (it recomputes in stopm when the IPI wakes it). */
static void m_leftidle_locked(struct m *mp)
{
	if (sched.timerm != mp)
		return;
	/* Atomic: timers_notify_keeper and stopm's watchdog look at timerm
	 * without sched.lock. */
	atomic_storeuintptr((volatile uintptr_t *)&sched.timerm, 0);
	if (sched.midle)
		ipi_send(sched.midle->cpu->id, IPI_WAKE);
}

/* mget: an idle M, preferring one that does not keep time (taking the
 * time-keeper costs a hand-over IPI). */
static struct m *mget(void)
{
	struct m **it = &sched.midle;
	if (*it && *it == sched.timerm && (*it)->schedlink)
		it = &(*it)->schedlink;
	struct m *mp = *it;
	if (mp) {
		*it = mp->schedlink;
		mp->schedlink = NULL;
		sched.nmidle--;
		m_leftidle_locked(mp);
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
			m_leftidle_locked(mp);
			return;
		}
	panic("mremove: M%u is not idle", mp->id);
}

static void pidleput(struct p *pp)
{
	if (!runqempty(pp) || pp->resumeg)
		panic("pidleput: P%u has a non-empty run queue", pp->id);
	atomic_store32(&pp->status, _Pidle);
	pp->link = sched.pidle;
	sched.pidle = pp;
	/*
	 * Seq-cst (Go's atomic.Store: XCHG on amd64): this M looks at the
	 * poller's ready list next (stopm), and netpoll_kick pushes there
	 * (a CAS) and then reads npidle to find an idle M. A store-release
	 * (a plain mov on x86) may wait in the store buffer while our load
	 * passes it: both sides miss, and the readied G waits up to a slice
	 * beside an idle P.
	 */
	atomic_storesc32(&sched.npidle, sched.npidle + 1);
	pp->nidle++;
	/* Its timers were its own core's to watch; now they are the idle
	 * time-keeper's, which may be halted with a later deadline. */
	uint64_t w = timers_when0(pp);
	if (w)
		timers_notify_idle_locked(w);
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
	/* netpoll_wake_idle, in a device interrupt on any core, reads
	 * mp->p without a lock (an M without a P to wake). */
	atomic_storeuintptr((volatile uintptr_t *)&mp->p, (uintptr_t)pp);
	/* The watchdog (p_running_core) reads pp->m without a lock. */
	atomic_storeuintptr((volatile uintptr_t *)&pp->m, (uintptr_t)mp);
	atomic_store32(&pp->status, _Prunning);
	/* Its last slice ended when it went idle: the first G it runs, a
	 * timer's in runnext included, starts one of its own
	 * (runnext_sliceover) instead of inheriting one the tick dated
	 * before, which it would end at its first look. */
	pp->sliceendtick = pp->schedtick;
	pp->sliceover = 1;
	pp->xattn.tickarm = 1;	/* execute arms the tick */
	traceProcStart(mp);
}

static struct p *releasep(void)
{
	struct m *mp = getm();
	struct p *pp = mp->p;
	traceProcStop();
	atomic_storeuintptr((volatile uintptr_t *)&pp->m, 0);	/* as in acquirep */
	atomic_storeuintptr((volatile uintptr_t *)&mp->p, 0);	/* as in acquirep */
	atomic_store32(&pp->status, _Pidle);
	return pp;
}

/* ---- the watchdog ---------------------------------------------------- */

/*
 * A core that runs a G takes its tick at least once a slice (execute and
 * the tick arm it). One that has not for WATCHDOG_NS (or 4 slices, if
 * `slice=` is longer) is stuck with interrupts masked: a G spinning in a
 * masked section, or a hung device access. The watchdog names it on the
 * console, once per stall, and from then on other cores fire that P's
 * timers (findrunnable, stopm), so that Gs asleep on them still wake.
 *
 * Not fatal: the rest of the machine goes on without that core (this is
 * what the report is for), and a G may mask interrupts for long on
 * purpose (polling a device). A stall that ends is reported as well.
 */
#define WATCHDOG_NS		(1 * NSEC_PER_SEC)
/* How often a busy core's scheduler looks (it runs the check at most this
 * often; the idle time-keeper wakes for it by its own deadline). */
#define WATCHDOG_PERIOD_NS	(100 * NSEC_PER_MSEC)

static uint64_t watchdog_ns(void)
{
	uint64_t s4 = 4 * sched_slice_ns();
	return s4 > WATCHDOG_NS ? s4 : WATCHDOG_NS;
}

/* The core running pp, if it runs a G on it; the time since which it
 * should have ticked. */
static struct cpu *p_running_core(struct p *pp, uint64_t *since)
{
	struct m *mp = (struct m *)atomic_loaduintptr((volatile uintptr_t *)&pp->m);
	if (!mp || atomic_load32(&pp->status) != _Prunning ||
	    !atomic_loaduintptr((volatile uintptr_t *)&mp->curg))
		return NULL;
	struct cpu *c = mp->cpu;
	uint64_t t = atomic_load64(&c->last_tick_ns);
	uint64_t r = atomic_load64(&pp->runwhen);
	/* 0: the core is between two Gs (schedule cleared it, execute has
	 * not stamped the next one yet; the curg we saw is leaving): it is
	 * switching, not stuck in a G. */
	if (r == 0)
		return NULL;
	*since = t > r ? t : r;
	return c;
}

/* Is the core running pp known to be stuck (reported, not ticked since)? */
static bool p_stalled(struct p *pp)
{
	uint64_t since;
	struct cpu *c = p_running_core(pp, &since);
	uint64_t rep = c ? atomic_load64(&c->watchdog_reported) : 0;
	return rep != 0 && rep == atomic_load64(&c->last_tick_ns);
}

const char *sched_watchdog_last_seen(char *buf, size_t n, uint64_t last_tick_ns,
				     uintptr_t last_tick_pc)
{
	if (last_tick_ns == 0)	/* no tick yet: no PC to show */
		snprintf(buf, n, "the core never ticked since it started");
	else
		snprintf(buf, n, "last seen at PC 0x%lx", (unsigned long)last_tick_pc);
	return buf;
}

/* The watchdog check, on g0. Returns the next time it should look. */
static uint64_t watchdog_check(uint64_t now)
{
	uint64_t limit = watchdog_ns(), next = 0;
	uint32_t nstalled = 0;
	atomic_store64(&sched.watchdog_last, now);
	/* load-acquire: an idle M's look may meet a gomaxprocs; any P it
	 * finds is one (allp is whole from boot). */
	uint32_t np = atomic_load32(&sched.nprocs);
	for (uint32_t i = 0; i < np; i++) {
		struct p *pp = allp[i];
		uint64_t since;
		struct cpu *c = p_running_core(pp, &since);
		if (!c || c == this_cpu())
			continue;
		uint64_t tick = atomic_load64(&c->last_tick_ns);
		uint64_t rep = atomic_load64(&c->watchdog_reported);
		if (rep && rep == tick) {
			nstalled++;
			continue;
		}
		if (now < since + limit) {
			if (next == 0 || since + limit < next)
				next = since + limit;
			continue;
		}
		/* One reporter per stall: the CAS names it. */
		if (!atomic_cas64(&c->watchdog_reported, rep, tick ? tick : 1))
			continue;
		nstalled++;
		atomic_xadd64(&sched.nwatchdog, 1);
		struct m *mp = (struct m *)atomic_loaduintptr((volatile uintptr_t *)&pp->m);
		struct g *gp = mp ? (struct g *)atomic_loaduintptr((volatile uintptr_t *)&mp->curg) : NULL;
		char seen[48];
		printf("gmk: watchdog: core %u (P%u) has taken no timer interrupt "
		       "for %llu ms: goroutine %llu (entry %p) running there, %s; "
		       "interrupts masked? (warning: the other cores go on, and "
		       "fire its timers)\n",
		       c->id, pp->id, (unsigned long long)((now - since) / NSEC_PER_MSEC),
		       /* A racy look at a G that may be exiting right now
		        * (goexit0, newproc1 store these atomically too). */
		       gp ? (unsigned long long)__atomic_load_n(&gp->goid, __ATOMIC_RELAXED) : 0ull,
		       gp ? (void *)__atomic_load_n(&gp->entry, __ATOMIC_RELAXED) : NULL,
		       sched_watchdog_last_seen(seen, sizeof seen, tick,
				__atomic_load_n(&c->last_tick_pc, __ATOMIC_RELAXED)));
	}
	atomic_store32(&sched.nstalled, nstalled);
	if (nstalled) {
		atomic_xchg64(&sched.g0work_due, 0);	/* every round, while stuck */
		p_attn_all(PATTN_G0WORK);
	}
	return next;
}

uint64_t sched_watchdog_reports(void)
{
	return atomic_load64(&sched.nwatchdog);
}

/* Fire the due timers of Ps whose cores are stuck; the Gs they ready
 * come to pp (on g0, with pp). */
static void timers_run_stalled(uint64_t now)
{
	for (uint32_t i = 0; i < sched.nprocs; i++)
		if (allp[i] != getm()->p && p_stalled(allp[i]))
			timers_run(allp[i], now);
}

/*
 * findrunnable's periodic work, out of line: schedtrace, the watchdog
 * (Go's sysmon stand-in for the busy cores, at most every period), and
 * the timers of Ps whose cores it found stuck. Each switch compares its
 * clock with one deadline, sched.g0work_due, instead of making the three
 * checks, a few instructions a switch. The deadline is 0 (every
 * round) while a core is stuck or schedtrace is on.
 */
static __noinline void g0_periodic(uint64_t now)
{
	if (kopts.schedtrace_ms != 0)
		schedtrace_maybe();
	uint64_t last = atomic_load64(&sched.watchdog_last);
	if (now - last >= WATCHDOG_PERIOD_NS) {
		watchdog_check(now);
		last = now;
	}
	if (atomic_load32(&sched.nstalled))
		timers_run_stalled(now);
	/* A full barrier (xchg) between the store and the loads below: a
	 * watchdog_check on another core that found a stall stores nstalled
	 * and then 0 here; either it comes after our store, or we see its
	 * nstalled and put the 0 back. */
	atomic_xchg64(&sched.g0work_due, last + WATCHDOG_PERIOD_NS);
	if (atomic_load32(&sched.nstalled) || kopts.schedtrace_ms != 0 ||
	    atomic_load32(&sched.gcwaiting)) {
		atomic_store64(&sched.g0work_due, 0);
		p_attn_all(PATTN_G0WORK);
	}
}

/* Byte k of every P's attn, after the condition every P must look at:
 * the periodic work at every round (sched.g0work_due 0: each P looks
 * again while it stays 0), the ready list become non-empty (netpoll.c).
 * Every P there can be: one that gomaxprocs adds later finds its byte
 * set too. */
void p_attn_all(enum p_attn k)
{
	for (uint32_t i = 0; i < MAX_CPUS; i++)
		p_attn_set(allp[i], k, 1);
}

/* ---- parking the core ---------------------------------------------- */

/*
 * The idle time-keeper's timer deadline (Go's checkTimersNoP / pollUntil,
 * over every P as in Go): the earliest of the idle Ps' timers and the
 * busy Ps' timers TIMER_OVERDUE_NS late (their own cores' business first;
 * at once if the core is stuck). *idlep is the idle P whose timer it is,
 * if it is one's.
 */
static uint64_t timekeeper_deadline(struct p **idlep)
{
	uint64_t best = 0;
	*idlep = NULL;
	for (uint32_t i = 0; i < sched.nprocs; i++) {
		struct p *pp = allp[i];
		uint64_t w = timers_when0(pp);
		if (!w)
			continue;
		bool idle = atomic_load32(&pp->status) == _Pidle;
		if (!idle && !p_stalled(pp))
			w += TIMER_OVERDUE_NS;
		if (best == 0 || w < best) {
			best = w;
			*idlep = idle ? pp : NULL;
		}
	}
	return best;
}

/* An idle M takes an idle P for the Gs a device readied, as if startm
 * had handed it over (both leave the idle lists together). */
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

/* A busy P's due timers, fired from an idle core that took an idle P:
 * the Gs they ready come to our P (as in stealwork). */
static void timers_run_overdue(uint64_t now)
{
	struct p *me = getm()->p;
	for (uint32_t i = 0; i < sched.nprocs; i++) {
		struct p *pp = allp[i];
		uint64_t w = timers_when0(pp);
		if (pp == me || !w || atomic_load32(&pp->status) == _Pidle)
			continue;
		if (w + TIMER_OVERDUE_NS <= now || (w <= now && p_stalled(pp)))
			timers_run(pp, now);
	}
}

/*
 * stopm: mp is already on sched.midle (put there with its P's release).
 * Halt until startm hands over a P, or a timer is due.
 *
 * Tickless, and one idle M keeps time (sched.timerm, Go's netpoll M):
 * only its core's timer is armed, for timekeeper_deadline; the others
 * halt with no timer at all, so that one timer does not wake every idle
 * core. When the keeper leaves the idle list another idle M takes over
 * (m_leftidle_locked). Its deadline is set under sched.lock, which
 * timers_notify_idle_locked holds to read it: a new earlier timer either
 * sees the deadline and sends the IPI, or was in place before the keeper
 * computed it. So each idle P's timer always has a core armed for it,
 * sent an IPI_WAKE to look again, or on its way here to look (the M that
 * idled the P); when the host does not run that core, the timer is as
 * late as the core (the kernel records the first two: timer_tick_find,
 * ipi_wake_find).
 *
 * Interrupts are masked from the checks to the wfi/hlt, and
 * arch_wait_for_interrupt wakes on a pending interrupt even while masked,
 * so an IPI that comes just after the checks is not lost.
 */
static void stopm(void)
{
	struct m *mp = getm();
	for (;;) {
		unsigned long flags = arch_irq_save();
		/* load-acquire: pairs with m_unpark's store-release, so
		 * m->nextp and m->nextspinning are visible. */
		if (atomic_load32(&mp->park)) {
			arch_irq_restore(flags);
			break;
		}
		/* A device readied Gs (netpoll_kick woke us, or we took the
		 * interrupt ourselves): take an idle P and run them, as Go's
		 * M blocked in netpoll(delay) does. With no P idle (gomaxprocs
		 * below the cores) we halt as below, instead of looking again
		 * and again under sched.lock: the busy Ps take the Gs (their
		 * tick's preemption puts the first in runnext, their rounds'
		 * look at an overdue list), and a P that goes idle is looked
		 * for by its own M, here, before it halts; one that gomaxprocs
		 * adds, by the spinner its wakep starts. Go's M without a P
		 * puts them on the global queue and sleeps; on the ready list
		 * they keep those faster ways to a P. */
		if (netpoll_pending() && atomic_load32(&sched.npidle) != 0) {
			arch_irq_restore(flags);
			if (claim_idle_p(mp, NULL))
				return;
			continue;
		}
		uint64_t now = nanotime();
		uint64_t deadline = 0, wd = 0;
		struct p *tp = NULL;
		/* The watchdog before the lock: it may print. A racy look
		 * at timerm is enough (its deadline needs no lock). */
		struct m *tm = (struct m *)atomic_loaduintptr((volatile uintptr_t *)&sched.timerm);
		if (!tm || tm == mp)
			wd = watchdog_check(now);	/* always in the future */
		spin_lock(&sched.lock);
		if (m_on_midle(mp) && (!sched.timerm || sched.timerm == mp)) {
			atomic_storeuintptr((volatile uintptr_t *)&sched.timerm,
					    (uintptr_t)mp);
			deadline = timekeeper_deadline(&tp);
		} else {
			wd = 0;
		}
		if (deadline && deadline <= now) {
			/* A timer to fire: take the P it is on if that is
			 * idle, else any idle P, as if startm had handed it
			 * over; the Gs it readies come to that P. */
			struct p *pp = tp && pidlegetp(tp) ? tp : pidleget();
			if (pp)
				mremove(mp);
			if (pp) {
				spin_unlock(&sched.lock);
				arch_irq_restore(flags);
				acquirep(pp);
				timers_run_overdue(now);
				return;
			}
			/* No idle P (cannot be while we are on midle, by the
			 * invariant at the top): halt until an IPI. */
			deadline = 0;
		}
		if (wd && (deadline == 0 || wd < deadline))
			deadline = wd;
		timer_set_deadline(deadline);
		spin_unlock(&sched.lock);
		cpu_halt();
		arch_irq_restore(flags);
		schedtrace_maybe();
	}
	atomic_store32(&mp->park, 0);	/* noteclear: only mp itself */
	struct p *pp = mp->nextp;
	mp->nextp = NULL;
	/* Go's mspinning: the waker counted us in nmspinning. */
	mp->spinning = mp->nextspinning;
	mp->nextspinning = 0;
	acquirep(pp);
}

/*
 * A busy P's earliest timer became `when` (Go's wakeNetPoller: the poller
 * learns of every new earliest timer). The time-keeper covers it at
 * when + TIMER_OVERDUE_NS; wake it if it sleeps past that. Lock-free: a
 * keeper that is just changing recomputes anyway, and a stuck core's
 * timers are caught by the watchdog's path if this misses.
 */
void timers_notify_keeper(uint64_t when)
{
	struct m *tm = (struct m *)atomic_loaduintptr((volatile uintptr_t *)&sched.timerm);
	if (!tm || tm == getm())
		return;
	uint64_t d = atomic_load64(&tm->cpu->timer_deadline_ns);
	if (d == 0 || when + TIMER_OVERDUE_NS < d)
		ipi_send(tm->cpu->id, IPI_WAKE);
}

/* An idle P's earliest timer became `when` (timers_notify, timer.c). */
void timers_notify_idle_locked(uint64_t when)
{
	struct m *tm = sched.timerm;
	if (tm) {
		uint64_t d = atomic_load64(&tm->cpu->timer_deadline_ns);
		if (d == 0 || when < d)
			ipi_send(tm->cpu->id, IPI_WAKE);
	} else if (sched.midle) {
		ipi_send(sched.midle->cpu->id, IPI_WAKE);	/* takes the role */
	}
}

static void m_unpark(struct m *mp)
{
	atomic_store32(&mp->park, 1);		/* store-release: nextp first */
	ipi_wake_idle(mp->cpu->id);		/* mp is in stopm */
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
	/* The caller counted a spinner in nmspinning; the woken M takes the
	 * state from nextspinning (stopm), never from a field it may be
	 * clearing itself right now (it is on midle before its dance). */
	nmp->nextspinning = spinning;
	nmp->nextp = pp;
	m_unpark(nmp);
}

/*
 * wakep's slow path, Go's wakep: start one spinning M if there is an idle
 * P and nobody spins already (a spinner that finds work wakes the next
 * one: resetspinning). With no P idle, pidlegetspinning records that a
 * spinner was wanted, under sched.lock, which the M about to drop its P
 * holds while it looks (findrunnable): either it sees the flag and spins,
 * or its P was idle before we looked and we start an M on it.
 */
void wakep_idle(void)
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
	sched_race(SCHED_RACE_SPINNER_WOKE);
}

/* ---- goroutines locked to a core: lockosthread ------------------------ */

/*
 * Go's LockOSThread wires a G to its thread, and the thread then runs
 * nothing else (stoplockedm parks it while the G waits). gmk has one M
 * per core and no threads to spare, so lockosthread wires the G to its
 * core (the M it runs on), and the core runs other Gs while the locked
 * one waits: firmware pins a G to a core for a per-core device or
 * per-core state, not to keep the core empty.
 *
 * The rule: a locked G runs on no other M (Go's), and it gets its core
 * as soon as it is readied (gmk's: in Go its thread is waiting for it).
 *   - Readied (ready, or by its device: netpoll.c) on another core, it
 *     goes to its M's own queue (m->lockedq), and an IPI_WAKE has that
 *     core's tick preempt its G as for a wake-up (preemptWake: the G
 *     keeps the rest of its slice, p->resumeg). Readied on its own core,
 *     the readier is preempted at its next safe point the same way.
 *   - Found by another M in a run queue (it yielded or its slice ended,
 *     and waited its turn in the global queue as any G; or a thief or a
 *     resize moved it): that M hands it over (Go's startlockedm), to run
 *     at the owner's next findrunnable, without a preemption: its turn
 *     has come, as a run queue's next G's would.
 *   - Its M has no P (it went idle, or gomaxprocs left its core without
 *     one): it is given an idle P, or, when none is idle, the P of the M
 *     that found the G, which then waits for one (Go's startlockedm
 *     hands over its P the same way). From ready, a G that cannot give
 *     its P away, the locked G goes to the global queue for that M.
 * An M puts Gs on another M's lockedq only while that M is not idle, or
 * as it hands it a P, both under sched.lock; an M gives up its P only
 * with its lockedq empty, under sched.lock too (findrunnable_slow and
 * startlockedm look; gcstopm empties it into the global queue). So a
 * locked G never waits on the queue of a core that halts.
 */

/* gp (runnable) to the owner's queue; caller holds sched.lock. wake: it
 * was readied, and the owner's core is to switch to it now (its tick
 * preempts for it); else its turn has come, and it runs at the owner's
 * next findrunnable, as the next G of a run queue would. */
static void lockedq_put_locked(struct m *owner, struct g *gp, bool wake)
{
	gqueue_pushback(&owner->lockedq, gp);
	atomic_store32(&owner->nlockedq, owner->nlockedq + 1);
	if (wake)
		atomic_store32(&owner->lockedwake, 1);
}

/* The first of this M's locked Gs waiting for it (findrunnable_local,
 * when nlockedq says there is one), or NULL. */
static __noinline struct g *lockedq_take(struct m *mp)
{
	spin_lock_nopreempt(&sched.lock);
	struct g *gp = gqueue_pop(&mp->lockedq);
	if (gp)
		atomic_store32(&mp->nlockedq, mp->nlockedq - 1);
	atomic_store32(&mp->lockedwake, 0);	/* the core has switched */
	spin_unlock_nopreempt(&sched.lock);
	return gp;
}

/* This M is about to give up its P (caller holds sched.lock): its locked
 * Gs go to the global queue, where an M with a P finds them and hands
 * one over (startlockedm). Only a stop-the-world does this (gcstopm);
 * findrunnable_slow keeps the P while they wait. */
static void lockedq_drain_locked(struct m *mp)
{
	struct g *gp;
	while ((gp = gqueue_pop(&mp->lockedq)) != NULL) {
		atomic_store32(&mp->nlockedq, mp->nlockedq - 1);
		globrunqput(gp);
	}
	atomic_store32(&mp->lockedwake, 0);
}

/* Give the idle owner, just taken off sched.midle, the P pp and wake
 * it; caller holds sched.lock, released here. */
static void startlockedm_idle_locked(struct m *owner, struct p *pp, struct g *gp)
{
	lockedq_put_locked(owner, gp, false);
	owner->nextspinning = 0;
	owner->nextp = pp;
	spin_unlock_nopreempt(&sched.lock);
	m_unpark(owner);
}

/*
 * startlockedm: schedule on mp found gp, which is locked to another M.
 * Hand it over; when the owner has no P and none is idle, mp's P goes
 * with it and mp waits for one (stopm). On g0, with mp's P; the caller
 * then looks for work again.
 */
static __noinline void startlockedm(struct m *mp, struct g *gp)
{
	struct m *owner = gp->lockedm;
	sched_race(SCHED_RACE_STARTLOCKEDM);
	spin_lock_nopreempt(&sched.lock);
	if (!m_on_midle(owner)) {
		/* Its turn: at the owner's next findrunnable. A G readied goes
		 * there with the wake (ready_locked); this one was waiting in
		 * a run queue (it yielded, its slice ended, a thief or a
		 * resize moved it), and taking the core for it now would give
		 * a CPU-bound locked G its core back at once whenever another
		 * core is idle to pick it up. */
		lockedq_put_locked(owner, gp, false);
		spin_unlock_nopreempt(&sched.lock);
		return;
	}
	struct p *pp = pidleget();
	if (pp) {
		mremove(owner);
		startlockedm_idle_locked(owner, pp, gp);
		return;
	}
	if (atomic_load32(&mp->nlockedq) != 0) {
		/* A G locked to this M was readied onto our queue after our
		 * findrunnable looked (ready_locked: we were not idle). We
		 * keep our P for it: joining the idle Ms would leave it on
		 * the queue of an M that halts, for good (the invariant at
		 * the top). gp waits in the global queue for the next M with
		 * a P, this one included, to hand it over. */
		globrunqput(gp);
		spin_unlock_nopreempt(&sched.lock);
		return;
	}
	/* Ours: the owner leaves the idle Ms as we join them, with the P
	 * passing between us (the invariant at the top holds; mput's
	 * checkdead sees the owner busy). */
	mremove(owner);
	pp = releasep();
	__atomic_store_n(&mp->nlockedgive, mp->nlockedgive + 1, __ATOMIC_RELAXED);
	mput(mp);
	startlockedm_idle_locked(owner, pp, gp);
	stopm();
}

/*
 * ready's path for a locked G (schedimpl.h), with preemption off and the
 * G already _Grunnable: to its M's queue, and the core made to switch to
 * it. mp is this M.
 */
void ready_locked(struct m *mp, struct g *gp)
{
	struct m *owner = gp->lockedm;
	spin_lock_nopreempt(&sched.lock);
	if (owner == mp || !m_on_midle(owner)) {
		lockedq_put_locked(owner, gp, true);
		spin_unlock_nopreempt(&sched.lock);
		if (owner != mp) {
			ipi_send(owner->cpu->id, IPI_WAKE);
		} else {
			/* Our own core: the readier leaves it at its next safe
			 * point (at the latest when ready's caller re-enables
			 * preemption), keeping the rest of its slice. On g0
			 * (a timer's callback) the scheduler takes the G next. */
			struct g *cur = getg();
			if (cur != mp->g0) {
				if (!cur->preempt)
					cur->preempt = preemptWake;
				THIS_CPU_WRITE32(resched, 1);
			}
		}
		return;
	}
	struct p *pp = pidleget();
	if (pp) {
		mremove(owner);
		startlockedm_idle_locked(owner, pp, gp);
		return;
	}
	/* Every P busy and ours cannot be given from here: the first M to
	 * take it from the global queue hands over its own (startlockedm). */
	globrunqput(gp);
	spin_unlock_nopreempt(&sched.lock);
}

void lockosthread(void)
{
	struct g *gp = getg();
	preempt_disable();	/* the M we lock to is the one we run on */
	struct m *mp = gp->m;
	if (gp == mp->g0) {
		if (mp->timerfn)
			fatal("lockosthread in timer callback %s (callbacks run on "
			      "the scheduler, not in a goroutine)", mp->timerfn);
		panic("lockosthread on g0: only a goroutine can be locked to its core");
	}
	if (gp->lockedext == UINT16_MAX)
		panic("lockosthread: goroutine %llu: nesting overflow",
		      (unsigned long long)gp->goid);
	if (gp->lockedext++ == 0) {
		gp->lockedm = mp;
		/* Single writer (this M); the tests read it. */
		__atomic_store_n(&mp->nlocked, mp->nlocked + 1, __ATOMIC_RELAXED);
	}
	preempt_enable();
}

void unlockosthread(void)
{
	struct g *gp = getg();
	preempt_disable();
	/* Not locked: nothing to undo, as in Go. */
	if (gp->lockedext != 0 && --gp->lockedext == 0) {
		struct m *mp = gp->m;
		__atomic_store_n(&mp->nlocked, mp->nlocked - 1, __ATOMIC_RELAXED);
		gp->lockedm = NULL;
	}
	preempt_enable();
}

int lockedcore(void)
{
	struct m *mp = getg()->lockedm;
	return mp ? (int)mp->cpu->id : -1;
}

/*
 * gcstopm: a stop-the-world is under way (gomaxprocs): hand in this M's P,
 * stopped (_Pgcstop), and halt as an idle M until start_the_world or a
 * later wakep hands it a P, perhaps another one. On g0, from
 * findrunnable, which then starts its round again with that P. A spinning
 * M stops spinning first, as in Go.
 */
static __noinline void gcstopm(struct m *mp)
{
	if (mp->spinning) {
		mp->spinning = 0;
		if ((int32_t)atomic_xadd32(&sched.nmspinning, -1) < 0)
			panic("gcstopm: negative nmspinning");
	}
	spin_lock_nopreempt(&sched.lock);
	if (!sched.gcwaiting) {		/* over already: keep the P */
		spin_unlock_nopreempt(&sched.lock);
		return;
	}
	struct p *pp = releasep();
	atomic_store32(&pp->status, _Pgcstop);
	lockedq_drain_locked(mp);
	mput(mp);
	/* Atomic: the stopper polls it without the lock. */
	atomic_store32(&sched.stopwait, sched.stopwait - 1);
	spin_unlock_nopreempt(&sched.lock);
	stopm();
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

/* Called with sched.lock held (findrunnable, on g0: spin_lock_nopreempt);
 * drops it. The rest of the batch goes on pp's local queue, before the
 * unlock or after it (globrunqget_runq). */
static __always_inline struct g *globrunqget_batch_locked(struct p *pp)
{
	struct g *rest;
	int32_t nrest;
	struct g *gp = globrunqget_runq(pp, GLOBRUNQ_BATCH_MAX, &rest, &nrest);
	spin_unlock_nopreempt(&sched.lock);
	if (gp) {
		pp->nglobget += 1 + nrest;
		if (rest)
			runqputchain(pp, rest, NULL, nrest);
	}
	return gp;
}

/*
 * findrunnable (below): a runnable G for this M's P, in Go's order but
 * for runnext (see findrunnable_local). Blocks (halts the core, without
 * its P) until there is one. *inherit_time says the G came from runnext
 * or resumeg and shares the current time slice. Its first half,
 * findrunnable_local, looks at this P (timers, local queue) and the
 * global queue; findrunnable_slow does the rest and loops.
 *
 * No clock read on the way (Go reads none in schedule): the slice is the
 * tick's to date and end (preempt.c: sliceover), the periodic work is
 * due when the tick says so (pp->attn.g0work), and the clock is read for the
 * timers only when the P has one (Go's checkTimers), for devices only
 * when they readied Gs.
 */

/* A G that ran out of the slice it shared (findrunnable_local): to the
 * global queue's tail, as the tick's preemption at the slice's end would
 * have sent it (Go's sysmon: gopreempt_m). */
static __noinline void globrunqput_sliceover(struct g *gp)
{
	spin_lock_nopreempt(&sched.lock);
	globrunqput(gp);
	spin_unlock_nopreempt(&sched.lock);
	wakep();
}

/* pp->resumeg back on its P with the rest of its slice, from now: what
 * ran meanwhile (the woken Gs, the timer callbacks, a slice the 61st-tick
 * pick started) is not taken from it. Inherits: schedtick stays. */
static __noinline struct g *resumeg_take(struct p *pp)
{
	uint64_t now = nanotime();	/* a wake-up's path, not every switch */
	struct g *gp = pp->resumeg;
	pp->resumeg = NULL;
	p_attn_set(pp, PATTN_RESUME, 0);
	slice_dated(pp, now + pp->resumeleft - sched_slice_ns());
	pp->resumedwhen = now;	/* resume_until, while it runs */
	pp->resumednrun = pp->nrun + 1;	/* its execute's count */
	/* A woken G waits in runnext: the tick gives it the core when the
	 * resumed G's least run is over (preempt.c), not at the slice's end. */
	if (atomic_loaduintptr(&pp->runnext) != 0) {
		tick_arm_by(now + resume_min_ns(sched_slice_ns()));
	}
	return gp;
}

/* findrunnable_local's runnext G with its slice used up (see there):
 * the G to run, or NULL (it went to the global queue). */
static __noinline struct g *
runnext_sliceover(struct p *pp, struct g *gp, bool *inherit_time)
{
	if (pp->resumeg) {
		/* The woken Gs' short slice begins as the first of them runs
		 * (goschedImpl left the slice over for this). */
		*inherit_time = true;
		if (!pp->resumewoken) {
			pp->resumewoken = 1;
			slice_dated(pp, nanotime() + resume_min_ns(sched_slice_ns()) -
					    sched_slice_ns());
			return gp;
		}
		runnext_swap(pp, gp);	/* empty: it runs after the resumed G */
		return resumeg_take(pp);
	}
	if ((uintptr_t)gp == pp->timerg) {
		/* A due timer readied it this round: it runs next, as Go's
		 * does from runnext, keeping schedtick, so that a fairness pick
		 * deferred for it (findrunnable_local) comes next round. Where
		 * the slice ended before (the tick preempted its G, or the P
		 * was idle), with a slice of its own dated now. Where it ran
		 * past its end unseen (a G held a lock past it and parked
		 * under it), Go's inherits that slice's rest, nothing, and
		 * sysmon ends it at its next look, 20 us at the soonest. The
		 * tick here looks again within PREEMPT_RETRY_NS of the last
		 * look, and could end it before its first step: to the global
		 * queue's tail, behind every G queued here (1 boot in 25,
		 * loaded). So it gets a resumed G's least run (resume_min_ns)
		 * from now, dated as the slice's rest. Only once in such a
		 * slice: a chain of timers' Gs past its end (a G sleeping 1 ns
		 * in a loop) goes behind the others below, as any chain. */
		*inherit_time = true;
		if (pp->sliceendtick == pp->schedtick) {
			pp->sliceendtick = pp->schedtick - 1;
			slice_dated(pp, nanotime());
			return gp;
		}
		if (pp->slicetimerg != pp->schedtick + 1) {
			uint64_t slice = sched_slice_ns();
			pp->slicetimerg = pp->schedtick + 1;
			slice_dated(pp, nanotime() + resume_min_ns(slice) - slice);
			return gp;
		}
		*inherit_time = false;
	}
	if (pp->sliceendtick == pp->schedtick || (runqempty(pp) && globrunqempty()))
		return gp;
	globrunqput_sliceover(gp);
	return NULL;
}

/*
 * findrunnable_local's looks before the run queues, out of line: taken
 * when one of pp->attn's bytes is set (each a hint, the condition read
 * here). A G to run now, or NULL; *timer_readied when a due timer readied
 * a G into runnext. mp->p may change (a stop-the-world).
 */
static __noinline struct g *findrunnable_attend(struct m *mp, bool *timer_readied)
{
	struct g *gp;
	struct p *pp = mp->p;
	/* Due timers first: the Gs they wake come to runnext (Go's
	 * checkTimers at the top of findRunnable); also those of Ps whose
	 * cores the watchdog found stuck (g0_periodic). The periodic work is
	 * due when this P's tick found its deadline passed, or at every
	 * round while the deadline is 0 (a stall, schedtrace, a
	 * stop-the-world): the byte is cleared before the work (a full
	 * barrier: a p_attn_all after it sets it again) and set
	 * again while the deadline stays 0. */
	if (p_attn_get(pp, PATTN_G0WORK)) {
		p_attn_set(pp, PATTN_G0WORK, 0);
		smp_mb();
		g0_periodic(nanotime());
		if (atomic_load64(&sched.g0work_due) == 0)
			p_attn_set(pp, PATTN_G0WORK, 1);
		/* A stop-the-world (it keeps g0work_due at 0 meanwhile):
		 * this P is handed in, and the M comes back with one. */
		if (atomic_load32(&sched.gcwaiting)) {
			gcstopm(mp);
			pp = mp->p;
		}
	}
	uint64_t when0 = atomic_load64(&pp->timers.when0);
	if (when0 != 0) {
		/* Go's checkTimers: the clock only when the P has a timer. */
		uint64_t now = nanotime();
		if (when0 <= now && timers_run(pp, now) != 0) {
			pp->timerg = atomic_loaduintptr(&pp->runnext);
			*timer_readied = pp->timerg != 0;
			pp->xattn.timerg = pp->timerg != 0;
		}
	}

	/* A G locked to this M (findrunnable_local tests this itself when
	 * no attn byte is set). */
	if (unlikely(atomic_load32(&mp->nlockedq) != 0)) {
		gp = lockedq_take(mp);
		if (gp)
			return gp;
	}

	/* Device-readied Gs waiting too long (sysmon's netpoll, netpoll.h).
	 * The byte stays set while the list holds Gs; cleared before the
	 * look (a full barrier: a push that makes the list non-empty after
	 * it sets the byte again). */
	if (p_attn_get(pp, PATTN_NETPOLL)) {
		p_attn_set(pp, PATTN_NETPOLL, 0);
		smp_mb();
		if (netpoll_pending()) {
			p_attn_set(pp, PATTN_NETPOLL, 1);
			if (netpoll_overdue(nanotime())) {
				gp = netpoll_take(pp);
				if (gp)
					return gp;
			}
		}
	}
	return NULL;
}

static __always_inline struct g *
findrunnable_local(struct m *mp, bool *inherit_time)
{
	struct g *gp;
	struct p *pp = mp->p;
	*inherit_time = false;
	bool timer_readied = false;
	/* One load for what is rarely there (pp->attn: the periodic work,
	 * timers, devices' Gs, a resumed G): Go tests each at every round. */
	if (unlikely(atomic_load32(&pp->attn.word) != 0)) {
		gp = findrunnable_attend(mp, &timer_readied);
		if (gp)
			return gp;
		pp = mp->p;
	} else if (unlikely(atomic_load32(&mp->nlockedq) != 0)) {
		/* A G locked to this M, readied or handed over by another
		 * core: it runs now, with a slice of its own (lockosthread,
		 * above). */
		gp = lockedq_take(mp);
		if (gp)
			return gp;
	}

	/*
	 * Fairness: now and then the global queue before the local one, so
	 * that Gs respawning each other there cannot starve it. Not while a
	 * G a wake-up took the core for waits its turn (resumeg), nor when a
	 * due timer has just readied a G into runnext, however the round
	 * began: the tick ended the slice for the timer (the pick would take
	 * the G it ended, at the global queue's head when the queue held
	 * nothing else), or the P's G parked, yielded or exited with the
	 * timer already due (a short sleep; a G held up between reading the
	 * clock and parking). The pick would start a whole slice ahead of the
	 * timer's G. It is deferred, not skipped (Go makes it at every 61st
	 * schedtick): the timer's G keeps schedtick (inheriting the slice,
	 * its rest, or one dated anew: runnext_sliceover), so the next round
	 * makes the pick.
	 */
	if (pp->schedtick % GLOBRUNQ_FAIRNESS_TICKS == 0 && !globrunqempty() &&
	    !pp->resumeg && !timer_readied) {
		spin_lock_nopreempt(&sched.lock);
		gp = globrunqget();
		spin_unlock_nopreempt(&sched.lock);
		if (gp) {
			pp->nglobget++;
			return gp;
		}
	}

	/*
	 * A runnext chain shares one slice. Found used up, either it ended
	 * before (the tick preempted its G, or the P was idle) and this G is
	 * the next one: it starts a slice of its own (a timer's G after a
	 * CPU-bound one's slice, say, must not wait behind the whole ring;
	 * a timer's G keeps schedtick, runnext_sliceover). Or the chain ran
	 * past its end without the tick catching one of its
	 * Gs running (each parked and readied the next first: a G sleeping
	 * 1 ns in a loop, a ping-pong pair): the G goes to the global
	 * queue's tail, as Go's sysmon would have preempted the chain, and
	 * the Gs behind it get their turn (a due timer's G first runs once
	 * with the slice's rest, runnext_sliceover). Starting it a new slice
	 * instead would carry such a chain on for good while the global
	 * queue waits.
	 * With nothing waiting (the ring and the global queue empty) it does
	 * start one here: the global queue would only hand it back, or split
	 * a pair across two Ps.
	 *
	 * A G preempted for a wake-up (resumeg) comes back after the woken
	 * Gs in runnext, which share a slice of a resumed G's least run
	 * (goschedImpl), and before them once that is over: Gs that park
	 * and are due again by then (a storm of short sleeps) would
	 * otherwise pass the core among themselves to the end of its slice.
	 */
	gp = runnext_get(pp);
	if (gp) {
		if (likely(!pp->sliceover)) {
			*inherit_time = true;
			pp->nrunnext++;
			return gp;
		}
		gp = runnext_sliceover(pp, gp, inherit_time);
		if (gp)
			return gp;
	}
	if (unlikely(pp->resumeg != NULL)) {
		*inherit_time = true;
		return resumeg_take(pp);
	}

	gp = runqget_ring(pp);
	if (gp)
		return gp;

	/* Global run queue, a batch. */
	if (!globrunqempty()) {
		spin_lock_nopreempt(&sched.lock);
		gp = globrunqget_batch_locked(pp);
		if (gp)
			return gp;
	}
	return NULL;
}

/*
 * findrunnable's search beyond this P and the global queue (devices,
 * stealing) and its wait, out of line: the common case above stays small
 * in schedule(), which then saves fewer registers.
 */
static __noinline struct g *
findrunnable_slow(struct m *mp, bool *inherit_time)
{
	struct g *gp;
	struct p *pp = mp->p;
	goto first;

top:
	gp = findrunnable_local(mp, inherit_time);
	if (gp)
		return gp;
	pp = mp->p;
first:
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

	sched_race(SCHED_RACE_DROP_P);
	spin_lock_nopreempt(&sched.lock);
	if (sched.gcwaiting) {
		/* Stopping the world: the P goes to the stopper, not to
		 * the idle list (Go's findRunnable does the same). */
		spin_unlock_nopreempt(&sched.lock);
		gcstopm(mp);
		goto top;
	}
	if (sched.runq.size != 0) {
		gp = globrunqget_batch_locked(pp);
		return gp;
	}
	if (mp->nlockedq != 0) {
		/* A locked G was handed to us after our look (startlockedm,
		 * ready_locked): it puts them here only while we hold a P. */
		spin_unlock_nopreempt(&sched.lock);
		goto top;
	}
	if (!mp->spinning && atomic_load32(&sched.needspinning) == 1) {
		/* See "Delicate dance" below: someone wanted a spinner and
		 * found none idle; be it, instead of going to sleep. */
		becomespinning(mp);
		spin_unlock_nopreempt(&sched.lock);
		goto top;
	}
	if (mp->p != pp)
		panic("findrunnable: wrong P");
	pidleput(releasep());
	/* Read before mput: once on sched.midle, a startm may set our
	 * spinning for the work it hands us. */
	bool was_spinning = mp->spinning;
	mp->spinning = 0;
	mput(mp);
	spin_unlock_nopreempt(&sched.lock);

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

		/* The global queue again, under sched.lock, as Go does: a G
		 * put there after our check above, by a submitter that saw
		 * us spinning, would otherwise wait with a P idle. */
		if (!globrunqempty()) {
			spin_lock_nopreempt(&sched.lock);
			struct p *pp2 = NULL;
			if (sched.runq.size != 0 && m_on_midle(mp)) {
				pp2 = pidlegetspinning();
				if (pp2)
					mremove(mp);
			}
			if (pp2) {
				struct gqueue q = { 0 };
				gp = globrunqgetbatch(GLOBRUNQ_BATCH_MAX, &q);
				spin_unlock_nopreempt(&sched.lock);
				acquirep(pp2);
				becomespinning(mp);
				pp2->nglobget += 1 + q.size;
				runqputbatch(pp2, &q);
				return gp;
			}
			spin_unlock_nopreempt(&sched.lock);
		}

		/* Without a P: a gomaxprocs may change the count meanwhile
		 * (load-acquire; allp[i] is a P for every i, if a stopped
		 * one). */
		uint32_t np = atomic_load32(&sched.nprocs);
		for (uint32_t i = 0; i < np; i++) {
			if (!(busy & (1ull << i)) || runqempty(allp[i]))
				continue;
			spin_lock_nopreempt(&sched.lock);
			struct p *pp2 = NULL;
			/* Still idle? (A startm may already have claimed us,
			 * with a P: then stopm returns at once.) */
			if (m_on_midle(mp)) {
				pp2 = pidlegetspinning();
				if (pp2)
					mremove(mp);
			}
			spin_unlock_nopreempt(&sched.lock);
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

static __always_inline struct g *
findrunnable(struct m *mp, bool *inherit_time)
{
	struct g *gp = findrunnable_local(mp, inherit_time);
	if (likely(gp != NULL))
		return gp;
	/* Copies whose addresses go out of line, so that the caller's own
	 * stay in registers on the fast path instead of being spilled at
	 * every switch. */
	bool inherit = false;	/* what findrunnable_local set; the slow
				 * path's finds start a new slice */
	gp = findrunnable_slow(mp, &inherit);
	*inherit_time = inherit;
	return gp;
}

/* ---- running --------------------------------------------------------- */

/* execute's rarely needed steps, out of line (pp->xattn): the
 * fingerprint and switchyield hooks, a due timer's G, the trace. */
static __noinline void execute_attend(struct p *pp, struct g *gp, bool inherit_time)
{
	schedfp(pp, gp, SCHEDFP_EXECUTE);
	/* A G a due timer readied into runnext in this round must run
	 * before any other G starts a slice here (unless a thief took it).
	 * A G resuming its slice (resumeg) may come first, for at most
	 * resume_min_ns: the tick then gives the core to runnext. */
	if (pp->timerg != 0) {
		if (!inherit_time && pp->timerg != (uintptr_t)gp &&
		    atomic_loaduintptr(&pp->runnext) == pp->timerg)
			pp->ntimerbypass++;
		pp->timerg = 0;
		pp->xattn.timerg = 0;
	}
	traceGoStart(gp, inherit_time);
}

/*
 * execute: run gp on mp (this M); a new time slice unless inherit_time.
 * No clock read: the new slice is the tick's to date (preempt.c).
 */
static __always_inline __attribute__((noreturn)) void
execute(struct m *mp, struct g *gp, bool inherit_time)
{
	struct p *pp = mp->p;
	/* pp->xattn, one load for what execute rarely does (runtime2.h). */
	uint32_t xattn = pp->xattn.word;
	/* After acquirep: arm the tick, which re-arms itself from then on
	 * while the P runs Gs, and stamp tickwhen. */
	if (unlikely(xattn & (0xffu << 8 * PXATTN_TICKARM)))
		tick_arm_acquired(pp);
	execute_begin(mp, pp, gp);
	if (!inherit_time) {
		/* A new slice: the tick dates it. The tick may be armed for
		 * the last slice's end: pulled in to a tick period after the
		 * last tick (at once if that is past), so that the date is
		 * at most a tick period late. No clock read: tickwhen. */
		pp->schedtick++;
		pp->sliceover = 0;
		if (unlikely(!pp->tickpulled) && pp->ticktick != pp->schedtick) {
			pp->tickpulled = 1;
			tick_arm_by(pp->tickwhen + tick_period_ns(sched_slice_ns()));
		}
	}
	/* Single writer; a thief reads it (runqgrab's runnext check). */
	__atomic_store_n(&pp->nrun, pp->nrun + 1, __ATOMIC_RELAXED);
	if (unlikely(xattn & ~(0xffu << 8 * PXATTN_TICKARM)))
		execute_attend(pp, gp, inherit_time);
	/* A G's first run: it has no stack yet (sched/stack.c). sp is what
	 * gogo loads next, so the test costs no line of its own. */
	if (unlikely(gp->sched.sp == 0))
		gstack_attach(pp, gp);
	glocal_switch_in(gp->stack_hi);	/* the C library's per-thread state */
	gogo_jump(&gp->sched);	/* not a call: kernel/gobuf.h */
}

/*
 * schedule: one round of the scheduler on mp, this M (the caller's
 * getm()), from g0; never returns. Inline in the mcall targets below
 * (park_m, gosched_m, goyield_m, goexit0, gopreempt_m) and sched_main,
 * so that a switch runs one g0 frame, not two: a noreturn function's
 * prologue saves callee-saved registers that nobody will restore, and a
 * second frame would pay that on every switch.
 */
static __always_inline __attribute__((noreturn)) void schedule(struct m *mp)
{
	if (unlikely(THIS_CPU_READ32(preempt_off) != 0))
		panic("schedule: M%u: preempt-off count %u (a G switched out "
		      "holding a spinlock?)", mp->id, mp->cpu->preempt_off);
	struct p *pp = mp->p;
	/* No clock read (Go reads none here either): the tick, which stands
	 * in for sysmon, dates and ends the slice from schedtick. Between two
	 * Gs (the watchdog reads it). How long the last one held the P,
	 * maxhold_ns, the tick measures (preempt.c). */
	atomic_store64(&pp->runwhen, 0);
	bool inherit;
	struct g *gp;
	for (;;) {
		gp = findrunnable(mp, &inherit);
		/* This M found work: if it was spinning, it stops, and starts
		 * the next spinner if it was the last. */
		if (mp->spinning)
			resetspinning();
		/* Go's schedule: a G locked to another M goes to it. */
		if (likely(gp->lockedm == NULL || gp->lockedm == mp))
			break;
		startlockedm(mp, gp);
	}
	execute(mp, gp, inherit);
}

/* ---- the g0 halves of gopark, gosched, goyield and goexit (park.c) ---- */

__hot void park_m(struct g *gp)
{
	struct m *mp = getm();
	preempt_enable_no_resched();	/* gopark's; we are switching anyway */
	setgstatus(gp, _Grunning, _Gwaiting);
	traceGoPark(gp);
	dropg(mp);
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
			execute(mp, gp, true);	/* the same slice: never left */
		}
	}
	schedule(mp);
}

/* park_m for goparkunlock_spin (schedimpl.h) when it does not switch
 * straight to the next G (park_direct): the unlock function is known,
 * spin_unlock_nopreempt of mp->waitlock, and runs inline, where park_m
 * calls one through a pointer and tests its result (a spinlock's always
 * lets the G park). */
__hot void park_m_spin(struct g *gp)
{
	struct m *mp = getm();
	preempt_enable_no_resched();	/* the lock's; we are switching anyway */
	setgstatus(gp, _Grunning, _Gwaiting);
	traceGoPark(gp);
	dropg(mp);
	struct spinlock *lock = mp->waitlock;
	mp->waitlock = NULL;
	/* After gp is _Gwaiting and its context saved, as park_m's. */
	spin_unlock_nopreempt(lock);
	schedule(mp);
}

/*
 * gosched_fast: gosched's put and the next round's get under one hold of
 * sched.lock, where nothing can come between them. When this P has no
 * local work and nothing is due (findrunnable's periodic work, this P's
 * timers, devices), findrunnable_local after goschedImpl's globrunqput
 * would go straight to the global queue: one G at every 61st schedtick,
 * else a batch, from its head. That is done here with the same queue
 * states in the same order (Q, Q + gp, the take from Q's head), minus a
 * lock round trip and findrunnable's checks. Go takes sched.lock twice;
 * what differs is only that no
 * other P can take gp from the global queue in between, which is a race
 * that either side may win in Go too. Returns when it does not apply.
 */
static __always_inline void gosched_fast(struct m *mp, struct g *gp)
{
	struct p *pp = mp->p;
	/* runnext first: the common reason not to apply. Then anything
	 * findrunnable_local would do before the run queues (pp->attn: the
	 * periodic work, a timer (any: whether it is due is findrunnable's
	 * clock read, not this one), devices' Gs, a resumed G), locked Gs
	 * waiting for this core (m->lockedq: Gs that yield among themselves
	 * here would otherwise never let findrunnable see them). */
	if (atomic_loaduintptr(&pp->runnext) != 0 || atomic_load32(&pp->attn.word) != 0 ||
	    atomic_load32(&mp->nlockedq) != 0 || THIS_CPU_READ32(preempt_off) != 0)
		return;
	uint32_t head = atomic_load32(&pp->runqhead), tail = pp->runqtail;
	uint32_t ringlen = tail - head;
	if (ringlen != 0) {
		/* The local ring holds Gs: findrunnable_local after
		 * goschedImpl's put would take its head, unless this is a
		 * 61st schedtick (the fairness pick takes the global queue's
		 * head, gp or an older G: left to findrunnable). The same
		 * put, wakep and take, without findrunnable's checks that
		 * were just made. */
		uint32_t tick = pp->schedtick % GLOBRUNQ_FAIRNESS_TICKS;
		if (tick == 0)
			return;
		struct g *next;
		if (tick + ringlen < GLOBRUNQ_FAIRNESS_TICKS &&
		    atomic_load32(&sched.nprocs) == 1 && globrunqempty()) {
			/*
			 * One P, nothing in the global queue, and no 61st
			 * schedtick before the ring's Gs have run: gp goes to
			 * its own ring's tail, with no lock. Where Go departs:
			 * it always takes sched.lock here. No other P exists
			 * to find gp in the global queue, and this P runs the
			 * same Gs in the same order: every G in the ring
			 * first, one schedtick each (a G they ready or spawn
			 * goes to runnext and inherits the tick, or behind
			 * gp), then gp, then what was put in the global queue
			 * meanwhile (a device's, another core's wake-up). The
			 * fairness pick, which would take gp from the global
			 * queue's head early, falls after gp has run; a longer
			 * ring takes the global queue, so that gp still runs
			 * within 61 schedticks however many Gs yield beside it
			 * (sched_yielding_ring_cannot_starve_the_global_queue).
			 * With no thief (no other P), the put and the take
			 * are one rotation of the ring, without the take's
			 * CAS (runq_rotate_alone).
			 */
			atomic_store64(&pp->runwhen, 0);	/* between two Gs, as schedule */
			next = runq_rotate_alone(pp, gp, head, tail);
		} else {
			spin_lock_nopreempt(&sched.lock);
			globrunqput(gp);
			spin_unlock_nopreempt(&sched.lock);
			wakep();
			atomic_store64(&pp->runwhen, 0);	/* between two Gs, as schedule */
			next = runqget_ring(pp);
			if (unlikely(next == NULL))
				schedule(mp);	/* thieves emptied the ring meanwhile */
		}
		if (unlikely(next->lockedm != NULL && next->lockedm != mp)) {
			startlockedm(mp, next);	/* as schedule */
			schedule(mp);
		}
		execute(mp, next, false);
	}
	/*
	 * The global queue empty as well: the put and the take below would
	 * hand gp back to itself, so it runs on, and sched.lock is not
	 * touched: two Ps whose Gs both yield would otherwise bounce
	 * sched.lock's line between them at every gosched, each to take its
	 * own G back. The size is read without the lock (globrunqempty): a G another P puts
	 * there meanwhile is the same race as above, which either side may
	 * win. Go would also wake an idle P here (goschedImpl's wakep), to
	 * find gp in the global queue; nothing was queued, so none is woken.
	 */
	if (globrunqempty())
		execute(mp, gp, false);
	atomic_store64(&pp->runwhen, 0);	/* between two Gs, as schedule */
	struct g *rest;
	int32_t nrest;
	int32_t max = pp->schedtick % GLOBRUNQ_FAIRNESS_TICKS == 0 ? 1 : GLOBRUNQ_BATCH_MAX;
	spin_lock_nopreempt(&sched.lock);
	globrunqput(gp);
	struct g *next = globrunqgetchain(max, &rest, &nrest);	/* not NULL: gp is there */
	spin_unlock_nopreempt(&sched.lock);
	pp->nglobget += 1 + nrest;
	if (nrest)
		runqputchain(pp, rest, NULL, nrest);
	wakep();		/* as goschedImpl: Gs may wait in either queue */
	if (unlikely(next->lockedm != NULL && next->lockedm != mp)) {
		startlockedm(mp, next);	/* as schedule */
		schedule(mp);
	}
	execute(mp, next, false);
}

/*
 * goschedImpl: gp goes to the global queue, behind everything else, so
 * that it lets every P's work go first rather than just its own P's.
 * As in Go, gosched_m is goschedImpl(gp, false) and gopreempt_m (the
 * tick's preemption, sched/preempt.c) goschedImpl(gp, true).
 *
 * Preempted for a wake-up (gp->preempt == preemptWake: a due timer, or
 * netpoll_kick's device), with slice left: gmk's own preemption, which Go
 * does not make (it runs such Gs when the slice ends). gp keeps the rest
 * of its slice on this P (resumeg) and resumes as soon as the woken G
 * has run. Sent to the global tail instead, a CPU-bound G would lose its
 * turn at every due timer, and under a storm of short sleeps get next to
 * nothing of its P, where Go gives it whole slices. Preempted at the
 * slice's end: Go's gopreempt_m.
 *
 * Preempted: Gs that devices readied run next on this P (Go's sysmon
 * injects them when nobody polled for 10 ms; gmk has no sysmon, and the
 * preemption is the tick's, sysmon's retake, or netpoll_kick's, which
 * took the core for exactly these Gs). Without this, Ps kept busy by
 * CPU-bound Gs would take those Gs back from the global queue before
 * ever reaching findrunnable's netpoll step. (The preemption's trace
 * event is emitted by its callers, which know whether it was async.)
 */
static __always_inline __attribute__((noreturn)) void
goschedImpl(struct g *gp, bool preempted)
{
	struct m *mp = getm();
	struct p *pp = mp->p;
	if (preempted)
		schedfp(pp, gp, SCHEDFP_PREEMPT);
	else
		traceGoSched(gp);
	setgstatus(gp, _Grunning, _Grunnable);
	dropg(mp);
	if (GMK_FASTPATH && !preempted)
		gosched_fast(mp, gp);	/* returns only where it does not apply */
	uint64_t now = 0, slice = sched_slice_ns();
	if (preempted && gp->preempt == preemptWake && !pp->resumeg) {
		/* A preemption's clock read, not a switch's. A slice the
		 * tick has not dated yet (netpoll_kick's preemption) began
		 * less than a tick period ago: it is dated now. */
		now = nanotime();
		if (pp->ticktick != pp->schedtick) {
			pp->ticktick = pp->schedtick;
			pp->schedwhen = now;
		}
	}
	if (now != 0 && now - pp->schedwhen < slice) {
		pp->resumeg = gp;	/* the woken G first: findrunnable */
		p_attn_set(pp, PATTN_RESUME, 1);
		pp->resumeat = now;
		pp->resumeleft = pp->schedwhen + slice - now;
		/* The woken Gs share a slice of a resumed G's least run
		 * (findrunnable gives gp back the core after it), from when the
		 * first of them runs: until then the slice is over, which sends
		 * that G through runnext_sliceover to start it. */
		pp->resumewoken = 0;
		pp->sliceover = 1;
	} else {
		spin_lock_nopreempt(&sched.lock);	/* on g0 */
		globrunqput(gp);
		spin_unlock_nopreempt(&sched.lock);
		if (preempted)
			pp->sliceendtick = pp->schedtick;	/* this slice ended */
		wakep();
	}
	if (preempted && netpoll_pending()) {
		struct gqueue q = { 0 };
		netpoll(&q);
		injectglist(pp, &q, true);
	}
	schedule(mp);
}

__hot void gosched_m(struct g *gp)
{
	goschedImpl(gp, false);
}

__hot void gopreempt_m(struct g *gp)
{
	goschedImpl(gp, true);
}

/* goyield_m: like gosched_m, but gp goes to the tail of this P's own
 * queue (Go's goyield, for semrelease's direct hand-off: the waiter in
 * runnext runs at once, and the yielder soon after on the same P). */
__hot void goyield_m(struct g *gp)
{
	struct m *mp = getm();
	struct p *pp = mp->p;
	setgstatus(gp, _Grunning, _Grunnable);
	dropg(mp);
	runqput(pp, gp, false);
	schedule(mp);
}

/*
 * prefetch_after_exit: a G has ended and pp's run queue holds more. Of the
 * Gs at its head, the first runs next (unless runnext or the global queue
 * comes first); start loading the second's stack top, where it will
 * resume, and the third's record, whose sp the next exit reads. Gs that
 * are started by the thousand and end (fan-out workers; bench fanout and
 * steal) find their records and stacks evicted by the time they run, and
 * each of those misses would otherwise come in turn, in the switch. Only
 * at an exit: a G that yields or parks usually hands over to a partner
 * whose lines are warm, and gosched and the hand-off are counted in
 * instructions. Slots past the tail, and Gs that another P has
 * stolen since, are stale but still G records (never freed): the hint is
 * wasted, never wrong. Go does not prefetch here.
 */
static inline void prefetch_after_exit(struct p *pp)
{
	uint32_t h = atomic_load32(&pp->runqhead);
	struct g *g2 = (struct g *)__atomic_load_n(&pp->runq[(h + 2) % RUNQ_SIZE],
						   __ATOMIC_RELAXED);
#if !PREFETCH_RACY_READS_OFF
	struct g *g1 = (struct g *)__atomic_load_n(&pp->runq[(h + 1) % RUNQ_SIZE],
						   __ATOMIC_RELAXED);
	if (g1) {
		/* A racy read of a hint (g1 may be running elsewhere or be
		 * remade by go() meanwhile): any value will do. A G that has
		 * not run has no stack yet (sp 0): it will take the one this
		 * exit has just cached, still warm. */
		uintptr_t line = __atomic_load_n(&g1->sched.sp, __ATOMIC_RELAXED) &
				 ~(uintptr_t)63;
		if (line) {
			__builtin_prefetch((void *)line, 1);
			__builtin_prefetch((void *)(line - 64), 1);
		}
		/* A pool stack's canary, its lowest word: stackcheck reads it
		 * when g1 leaves its core, and nothing else touches that line
		 * in between, so without the hint it is a miss in the switch. */
		uintptr_t lo = __atomic_load_n(&g1->stack_lo, __ATOMIC_RELAXED);
		if (__atomic_load_n(&g1->stack_npages, __ATOMIC_RELAXED) == 0 && lo)
			__builtin_prefetch((void *)lo, 0);
	}
#endif
	if (g2) {
		__builtin_prefetch(g2, 1);
		__builtin_prefetch((char *)g2 + 64, 1);
	}
}

__hot void goexit0(struct g *gp)
{
	struct m *mp = getm();
	traceGoEnd(gp);
	setgstatus(gp, _Grunning, _Gdead);
	dropg(mp);
	if (gp->entry == go_copy_heap_start)	/* go_copy's, too big for the record */
		kfree(gp->arg);
	__atomic_store_n(&gp->entry, NULL, __ATOMIC_RELAXED);	/* the watchdog reads it */
	gp->arg = NULL;
	/* waitreason: newproc1 clears it with gopc (g->spawnword). */
	if (unlikely(gp->lockedm != NULL)) {
		/* Exited locked: the lock ends with it (Go ends the thread;
		 * a core stays). */
		__atomic_store_n(&mp->nlocked, mp->nlocked - 1, __ATOMIC_RELAXED);
		gp->lockedm = NULL;
		gp->lockedext = 0;
	}
	gfput_dead(mp->p, gp);	/* gfput, less its status check: made _Gdead above */
	prefetch_after_exit(mp->p);
	schedule(mp);
}

/* ---- stopping the world, and gomaxprocs ------------------------------ */

static void minit(struct m *mp, struct cpu *c);	/* start-up, below */

/*
 * stop_the_world: Go's stopTheWorldWithSema. The caller is a G with
 * preemption off (it keeps its P and core throughout); on return every
 * other P is stopped (_Pgcstop), with no M, and nothing but the caller
 * runs Gs. Idle Ps are taken off the idle list at once; an M with a P
 * hands it in at its next round (gcstopm, from findrunnable, which looks
 * at every round while sched.g0work_due is 0); a running G is preempted
 * by its core's tick, which an IPI_WAKE brings forward (preempt.c). The
 * caller spins until the count is 0: the wait is a few switches, and a
 * G that holds its core with preemption off holds up the stop, as in Go.
 */
static void stop_the_world(void)
{
	struct p *me = getm()->p;

	spin_lock(&sched.lock);
	atomic_store32(&sched.stopwait, sched.nprocs - 1);
	/* gcwaiting before g0work_due (both store-release): a g0_periodic
	 * that overwrites our 0 then sees gcwaiting and puts it back. */
	atomic_store32(&sched.gcwaiting, 1);
	atomic_store64(&sched.g0work_due, 0);
	p_attn_all(PATTN_G0WORK);
	struct p *pp;
	while ((pp = pidleget()) != NULL) {
		atomic_store32(&pp->status, _Pgcstop);
		atomic_store32(&sched.stopwait, sched.stopwait - 1);
	}
	spin_unlock(&sched.lock);
	for (;;) {
		for (uint32_t i = 0; i < sched.nprocs; i++) {
			struct m *mp = (struct m *)atomic_loaduintptr((volatile uintptr_t *)&allp[i]->m);
			if (allp[i] != me && mp && atomic_load32(&allp[i]->status) == _Prunning)
				ipi_send(mp->cpu->id, IPI_WAKE);
		}
		/* load-acquire: the Ps' hand-ins (gcstopm) before it. */
		uint64_t until = nanotime() + 100 * NSEC_PER_USEC;
		while (atomic_load32(&sched.stopwait) != 0 && nanotime() < until)
			arch_cpu_relax();
		if (atomic_load32(&sched.stopwait) == 0)
			break;
	}
}

/*
 * (*p).destroy: pp is leaving (procresize). Its runnable Gs (runnext,
 * the ring, the G waiting to resume its slice) go to the head of the
 * global queue in their order, its timers, free Gs and cached stacks to
 * `to`, the P that the caller keeps. World stopped: pp has no M and no
 * thief, and `to` is used as its owner uses it.
 */
static void pdestroy(struct p *pp, struct p *to)
{
	struct gqueue q = { 0 }, rev = { 0 };
	runqdrain(pp, &q);
	if (pp->resumeg) {
		gqueue_push(&q, pp->resumeg);	/* it was to run first */
		pp->resumeg = NULL;
		p_attn_set(pp, PATTN_RESUME, 0);
	}
	pp->timerg = 0;
	pp->xattn.timerg = 0;
	struct g *gp;
	while ((gp = gqueue_pop(&q)) != NULL)
		gqueue_push(&rev, gp);
	spin_lock(&sched.lock);
	while ((gp = gqueue_pop(&rev)) != NULL)
		globrunqputhead(gp);
	spin_unlock(&sched.lock);
	timers_move(pp, to);
	while ((gp = glist_pop(&pp->gfree)) != NULL)
		gfput(to, gp);
	while (pp->stackcache) {
		uintptr_t s = stackcache_get(pp, 0);
		stackcache_put(to, s);
	}
	atomic_store32(&pp->status, _Pidle);	/* out of allp[0..nprocs) */
}

/*
 * procresize: Go's, with the world stopped and the caller's G on `me`.
 * Ms first: each P needs a core, so cores that have none get one (they
 * halt in core_wait_for_m until then) and join the idle Ms. Ps over n are
 * destroyed; if the caller's is one of them it takes P0 instead, as in
 * Go. Returns how many Ps have work: they are in ps[], and in ms[] the
 * idle Ms (taken off sched.midle) that will run them. Ends the stop:
 * gcwaiting is 0 once the idle list and the counts are in place.
 */
static uint32_t procresize(uint32_t n, struct p **ps, struct m **ms)
{
	struct m *mp = getm();
	struct p *me = mp->p;
	uint32_t old = sched.nprocs;

	spin_lock(&sched.lock);
	for (unsigned i = 0; i < ncpus && sched.mcount < n; i++) {
		if (!cpus[i].online || allm[i].g0)
			continue;
		minit(&allm[i], &cpus[i]);
		allm[i].schedlink = sched.midle;
		sched.midle = &allm[i];
		sched.nmidle++;
		sched.mcount++;
		ipi_wake_idle(cpus[i].id);	/* leaves core_wait_for_m */
	}
	spin_unlock(&sched.lock);
	if (sched.mcount < n)
		panic("procresize: %u Ps but %u Ms", n, sched.mcount);

	struct p *keep = me->id < n ? me : allp[0];
	if (keep != me) {
		/* The caller moves to P0 (stopped, without an M) and leaves
		 * its P to be destroyed below. */
		releasep();
		atomic_store32(&me->status, _Pgcstop);
		acquirep(keep);
		tick_arm_acquired(keep);
		atomic_store64(&keep->runwhen, keep->tickwhen);
	}
	for (uint32_t i = n; i < old; i++)
		pdestroy(allp[i], keep);
	for (uint32_t i = old; i < n; i++)
		atomic_store32(&allp[i]->status, _Pgcstop);

	spin_lock(&sched.lock);
	/* Atomic: an idle M's watchdog (stopm) reads it without the lock. */
	atomic_store32(&sched.nprocs, n);
	if (n > sched.maxprocs)
		sched.maxprocs = n;
	stealorder_reset(n);
	/* The Ps other than ours: idle, or with an M to run their Gs. */
	uint32_t nrun = 0;
	for (uint32_t i = n; i-- > 0;) {
		struct p *pp = allp[i];
		if (pp == keep)
			continue;
		if (runqempty(pp) && !pp->resumeg) {
			pidleput(pp);
			continue;
		}
		struct m *nmp = mget();
		if (!nmp)
			panic("procresize: P%u has work but no M is idle", pp->id);
		ps[nrun] = pp;
		ms[nrun++] = nmp;
	}
	atomic_store32(&sched.gcwaiting, 0);
	spin_unlock(&sched.lock);
	return nrun;
}

/* Serializes gomaxprocs callers (Go's worldsema). */
static struct mutex procresize_mu;

int gomaxprocs(int n)
{
	uint32_t online = 0;
	for (unsigned i = 0; i < ncpus; i++)
		online += cpus[i].online ? 1 : 0;

	mutex_lock(&procresize_mu);
	int old = (int)sched.nprocs;
	if (n <= 0 || (uint32_t)n == sched.nprocs) {
		mutex_unlock(&procresize_mu);
		return old;
	}
	if ((uint32_t)n > online) {
		/* Refused (gmk has one M per core; Go, with threads to spare,
		 * accepts any n), and silently, as Go's call is: a program
		 * that asks at every step must not fill the console. The
		 * count returned, and sched_nprocs() after, say what holds. */
		mutex_unlock(&procresize_mu);
		return old;
	}
	struct p *ps[MAX_CPUS];
	struct m *ms[MAX_CPUS];
	preempt_disable();	/* this G keeps its core and P throughout */
	stop_the_world();
	uint32_t nrun = procresize((uint32_t)n, ps, ms);
	/* startTheWorld: the Ps with work get their Ms (as startm). */
	for (uint32_t i = 0; i < nrun; i++) {
		ms[i]->nextspinning = 0;
		ms[i]->nextp = ps[i];
		m_unpark(ms[i]);
	}
	preempt_enable();
	wakep();		/* the global queue may hold the destroyed Ps' Gs */
	mutex_unlock(&procresize_mu);
	return old;
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
	/* store-release: a core waiting for an M (core_wait_for_m) sees
	 * it whole. */
	atomic_storeuintptr((volatile uintptr_t *)&c->m, (uintptr_t)mp);
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
	sched.mcount = nm;
	sched.maxprocs = nprocs;
	/* Every slot, for the Ps gomaxprocs may add: a P is never freed, so
	 * a reader with a stale nprocs still finds a P, if a stopped one. */
	for (uint32_t i = 0; i < MAX_CPUS; i++) {
		pstore[i].id = i;
		allp[i] = &pstore[i];
	}
	p_attn_all(PATTN_G0WORK);	/* sched.g0work_due starts at 0 */
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

	preempt_init();
	printf("gmk: scheduler: %u Ps, %u cores, seed %llu\n", nprocs, online,
	       (unsigned long long)boot_seed);
}

/* A core beyond nprocs: no M, no P, no timer (tickless); IPIs still
 * reach it (smp_call_all). It halts until gomaxprocs gives it an M
 * (procresize), which then waits on sched.midle for a P. */
static struct m *core_wait_for_m(void)
{
	struct cpu *c = this_cpu();
	for (;;) {
		unsigned long flags = arch_irq_save();
		/* load-acquire: minit's store-release */
		struct m *mp = (struct m *)atomic_loaduintptr((volatile uintptr_t *)&c->m);
		if (mp) {
			arch_irq_restore(flags);
			return mp;
		}
		timer_set_deadline(0);
		cpu_halt();
		arch_irq_restore(flags);
	}
}

void sched_main(bool boot_core)
{
	if (boot_core) {
		schedinit();	/* this core: M0, with P0, on its g0 */
		/* g->gopc keeps 32 bits of a pc, and newproc1 stores the
		 * whole pc over it and the fields after it, which its upper
		 * half clears: the text must lie below 4 GiB (x86-64's small
		 * code model, every board's LOAD_ADDR). */
		if ((uintptr_t)kernel_main_g > UINT32_MAX)
			fatal("kernel text at 0x%lx: above 4 GiB, which g->gopc cannot hold",
			      (unsigned long)kernel_main_g);
		struct g *gp = newproc1(kernel_main_g, NULL, G_STACK_DEFAULT * 4, false);
		runqput(allp[0], gp, false);
		atomic_store32(&mainstarted, 1);
		smp_release_cores();	/* publishes schedinit (store-release) */
	} else {
		struct m *mp = this_cpu()->m;
		if (!mp)	/* beyond nprocs: no M, no P */
			mp = core_wait_for_m();
		arch_setg(mp->g0);
		stopm();	/* on sched.midle since schedinit */
	}
	schedule(getm());
}
