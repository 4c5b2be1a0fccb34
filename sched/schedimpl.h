/*
 * Scheduler internals shared by the files of sched/ (not for other code).
 */
#ifndef GMK_SCHED_SCHEDIMPL_H
#define GMK_SCHED_SCHEDIMPL_H

#include "kernel/compiler.h"
#include "kernel/cpu.h"
#include "kernel/glocal.h"
#include "kernel/percpu.h"
#include "kernel/page.h"
#include "kernel/time.h"
#include "kernel/preempt.h"
#include "kernel/sched_hooks.h"
#include "sched/sched.h"
#include "sched/sudog.h"
#include "sched/tracebuf.h"

/*
 * The switch's fast paths, each beside its Go-shaped reference
 * (docs/internals.md, "The fast paths and their references"). 1, the
 * default: the fast paths. 0 (make FASTPATH=0, the reference build, in
 * build/<board>-ref/): each takes its reference instead, which make test
 * runs the scheduler's and the channels' tests on, so that a fast path
 * and its reference keep passing the same tests:
 *   gosched_fast, its 1-P ring rotation   goschedImpl's globrunqput, then schedule
 *   park_direct and gswitch               gopark's park_m on g0 (mcall)
 *   mcall_exit                            mcall
 *   a hand-off's ready_nopreempt          the lock dropped, then ready
 */
#ifndef GMK_FASTPATH
#define GMK_FASTPATH 1
#endif

extern struct p *allp[MAX_CPUS];
extern struct m allm[MAX_CPUS];
extern volatile uint32_t mainstarted;	/* the main G exists: wakep may run */

/* Sets one of pp->attn's bytes (runtime2.h), after the condition it
 * flags: store-release. */
static __always_inline void p_attn_set(struct p *pp, enum p_attn k, uint8_t v)
{
	__atomic_store_n(&pp->attn.b[k], v, __ATOMIC_RELEASE);
}
/* Reads one of them (another core may be setting it). */
static __always_inline uint8_t p_attn_get(struct p *pp, enum p_attn k)
{
	return __atomic_load_n(&pp->attn.b[k], __ATOMIC_ACQUIRE);
}
/* Sets byte k of every P's attn (proc.c): a condition that every P must
 * look at (the ready list, the periodic work at every round). */
void p_attn_all(enum p_attn k);

/* The running G's M. Stable while it runs: a G changes M only through a
 * switch (preemption, at an interrupt or a safe point, is a switch too). */
static inline struct m *getm(void) { return getg()->m; }

/*
 * proc.c. __hot marks the switch paths: GCC takes a function that never
 * returns for one that runs once (like main) and optimizes it for size,
 * so schedule() and every mcall target would be compiled as cold code (a
 * div for `% 61`, rep stos for a small struct, spills), paid on every
 * switch. `hot` overrides that guess.
 */
void wakep_idle(void);		/* wakep's slow path (Go's wakep) */
/*
 * wakep: start a spinning M if none spins, or have the next M that would
 * give up its P spin instead; after putting a G on a run queue, and when
 * a spinner finds work (resetspinning). sched/proc.c. Inline: every
 * goready, go and gosched calls it (Go calls wakep unconditionally in
 * ready, newproc, goschedImpl and resetspinning, as gmk does).
 */
static __always_inline void wakep(void)
{
	/*
	 * One P, and every caller holds a P (a G, or g0 between two Gs of
	 * its P): there is no other P to wake, and the fence below is the
	 * costliest instruction of a gosched or a hand-off at one P. nprocs
	 * changes only with the world stopped (procresize), so it is stable
	 * while the caller holds its P.
	 */
	if (__atomic_load_n(&sched.nprocs, __ATOMIC_RELAXED) == 1)
		return;
	/*
	 * StoreLoad: the caller's submission (a run queue's tail or the
	 * global queue's size, store-release) must be visible before we
	 * read nmspinning, or a spinner in its delicate dance and we could
	 * both miss (x86 lets this load pass that store). Go gets this from
	 * atomic.Store being XCHG on amd64.
	 */
	smp_mb();
	/*
	 * No P idle, and a spinner already asked for (first: the common case
	 * at full load): Go's slow path (wakep_idle) would take sched.lock
	 * only to find no P and set needspinning again, at every goready, go
	 * and gosched. An M about to give up its P reads needspinning under
	 * sched.lock and spins instead (findrunnable), so our G is not left
	 * beside a P gone idle. Only the flag spares the lock: with no P
	 * idle and the flag clear, the slow path must set it under the lock
	 * (a P going idle just after a lone npidle load would miss the G,
	 * for up to a slice: a spinner that found two Gs and kept one, say).
	 * The flag is cleared only by an M that starts spinning, once it
	 * counts itself in nmspinning: a spinner that started after these
	 * loads sees our G in its search.
	 */
	if (atomic_load32(&sched.npidle) == 0 && atomic_load32(&sched.needspinning) != 0)
		return;
	/* A spinner will find the G, or the last one to stop rechecks every
	 * queue (the delicate dance): Go's first test. */
	if (atomic_load32(&sched.nmspinning) != 0)
		return;
	wakep_idle();
}
/* proc.c: the mcall targets of gopark, gosched, goyield and goexit (park.c). */
__hot void park_m(struct g *gp);
__hot void park_m_spin(struct g *gp);
__hot void gosched_m(struct g *gp);
__hot void goyield_m(struct g *gp);
__hot void goexit0(struct g *gp);
/* proc.c: the preempted gp, on g0 (sched/preempt.c), to the global queue,
 * or back to its P after the G a wake-up readied (goschedImpl). */
__hot __attribute__((noreturn)) void gopreempt_m(struct g *gp);
/* park.c: the running G to the tail of its P's queue (Go's goyield). */
void goyield(void);
/* The check for a G running with its stack pointer at sp (the tick). */
void stackcheck_sp(struct g *gp, uintptr_t sp);
/* The lowest word of a live small stack (sched/stack.c). */
#define STACK_CANARY	0x9e3779b97f4a7c15ull
/*
 * Fatal error if a small-stack G overflowed its stack (sched/stack.c):
 * at every switch, so the common case is inline, and anything odd goes
 * to stackcheck_sp, which decides. A stack with a guard page (npages !=
 * 0) needs no check here: an overflow faults on the guard at the very
 * instruction (-fstack-clash-protection probes each page of a big frame),
 * and the fault handler names the G; the tick checks its sp as well. A
 * pool stack has no guard:
 * its bounds and its lowest word, the canary, are checked here.
 */
static __always_inline void stackcheck_at(struct g *gp, uintptr_t sp)
{
	if (gp->stack_npages != 0)
		return;
	if (unlikely(sp < gp->stack_lo || sp > gp->stack_hi ||
			     *(volatile uint64_t *)gp->stack_lo != STACK_CANARY))
		stackcheck_sp(gp, sp);
}
static __always_inline void stackcheck(struct g *gp)
{
	stackcheck_at(gp, gp->sched.sp);
}
/* The G's half of dropg: gp, whose stack pointer is at or above sp, stops
 * running (the stack check, its C library state, its M). */
static __always_inline void gleave(struct g *gp, uintptr_t sp)
{
	stackcheck_at(gp, sp);
	glocal_switch_out(gp->stack_hi);	/* the C library's per-thread state */
	gp->m = NULL;
}
/* dropg: the running G leaves its M, mp (getm(), on g0, before it is
 * requeued; Go's reads getg().m: the callers have it already). */
static __always_inline void dropg(struct m *mp)
{
	struct g *gp = mp->curg;
	gleave(gp, gp->sched.sp);
	atomic_storeuintptr((volatile uintptr_t *)&mp->curg, 0);	/* the watchdog reads it */
}
uint32_t cheaprand(void);

/*
 * A busy P's timer that its own core has not fired this long after its
 * deadline is fired by the idle time-keeper instead (its core is stuck,
 * or just late). The owner gets the first chance: it is about to switch
 * for it anyway (preempt.c), and the idle M wakes only as a backup. So
 * the keeper's core may be armed this long after a timer whose P was
 * busy when it armed; the P going idle then moves it earlier by an IPI.
 */
#define TIMER_OVERDUE_NS	(1 * NSEC_PER_MSEC)

/* An idle P's earliest timer became `when`: wake the idle M that keeps
 * time if it would sleep past it. Caller holds sched.lock. */
void timers_notify_idle_locked(uint64_t when);
/* A busy P's earliest timer became `when`: the idle time-keeper, which
 * fires it if its own core does not (a stuck core), learns of it. */
void timers_notify_keeper(uint64_t when);

/* status changes: a CAS, so that a double goready or a stale status is
 * caught at once instead of corrupting a run queue. */
__cold __attribute__((noreturn)) void casgstatus_bad(struct g *gp, uint32_t oldval,
						    uint32_t newval);
static __always_inline void casgstatus(struct g *gp, uint32_t oldval, uint32_t newval)
{
	if (unlikely(!atomic_cas32(&gp->atomicstatus, oldval, newval)))
		casgstatus_bad(gp, oldval, newval);
}
/*
 * The owner's status changes: out of a status that only the caller may
 * leave (_Grunning: only its M; _Grunnable: only the M that took it off
 * a queue; _Gdead and _Gidle: only the M that holds the record). A check
 * and a store-release instead of a CAS: a stale status is still caught,
 * and no other core can change the status between the two, so nothing
 * is lost but a locked instruction (x86: 10-20 cycles, two or three on
 * every switch). The one contested change, _Gwaiting -> _Grunnable
 * (goready, where two readiers may race: the misuse a CAS catches),
 * stays casgstatus; a goready of a G in any status the owner moves it
 * through fails there. gmk departs from Go here: Go's collector CASes
 * _Gscan bits into a running G's status, so every change must be a CAS;
 * gmk has no collector.
 */
static __always_inline void setgstatus(struct g *gp, uint32_t oldval, uint32_t newval)
{
	if (unlikely(__atomic_load_n(&gp->atomicstatus, __ATOMIC_RELAXED) != oldval))
		casgstatus_bad(gp, oldval, newval);
	atomic_store32(&gp->atomicstatus, newval);
}
/*
 * execute's first steps (proc.c), and park_direct's: gp becomes mp's
 * running G on pp. runwhen before curg, and curg by store-release: the
 * watchdog (p_running_core) loads curg and then runwhen from other
 * cores, and must not see the new G with the switch's runwhen of 0.
 * tickwhen (the core's last tick, or the P's acquisition) is no later
 * than the switch, and a busy core ticks at least every tick_period_ns.
 */
static __always_inline void execute_begin(struct m *mp, struct p *pp, struct g *gp)
{
	atomic_store64(&pp->runwhen, pp->tickwhen);
	atomic_storeuintptr((volatile uintptr_t *)&mp->curg, (uintptr_t)gp);
	gp->m = mp;
	setgstatus(gp, _Grunnable, _Grunning);
	gp->preempt = 0;
	THIS_CPU_WRITE32(resched, 0);	/* mp->cpu's: we run on it */
}
static inline uint32_t readgstatus(struct g *gp)
{
	return atomic_load32(&gp->atomicstatus);
}

/* gproc.c */
struct g *newproc1(void (*fn)(void *), void *arg, long stack_bytes, bool gostmt);
/* The entry of a G whose go_copy argument is in a kmalloc block (arg):
 * it calls the G's function; goexit0 frees the block (gproc.c). */
void go_copy_heap_start(void *block);
void gfput(struct p *pp, struct g *gp);

/* stack.c */
/* Pages for a stack of `bytes` plus its guard page. The page allocator
 * does not round a run up to a power of two, so a default G costs its 4
 * stack pages and its guard: 5 pages, not the 8 of a buddy block. */
static inline size_t stack_npages(size_t bytes)
{
	return (bytes + PAGE_SIZE - 1) / PAGE_SIZE + 1;
}
#define STACK_DEFAULT_NPAGES	((G_STACK_DEFAULT + PAGE_SIZE - 1) / PAGE_SIZE + 1)
/* gp runs for the first time on pp and has no stack yet: a default-size
 * one from pp's cache (execute). */
void gstack_attach(struct p *pp, struct g *gp);
/* pp's default-size stack cache (owner only): a stack's base, for
 * goroutine goid (named if memory runs out), and one given back. */
uintptr_t stackcache_get(struct p *pp, uint64_t goid);
void stackcache_put(struct p *pp, uintptr_t base);
/* A stack of at least `bytes` for gp, which will be goroutine goid (not
 * the default size: those come from gstack_attach). */
void stackalloc(struct g *gp, size_t bytes, uint64_t goid);
/* gp's stack back to the pool or the page allocator (none: nothing). */
void stackfree(struct g *gp);

/* gproc.c: each P's free G list (Go's gfput / gfget: 64 and 32; see
 * gproc.c). */
#define GFREE_LOCAL_MAX  64
#define GFREE_LOCAL_KEEP 32
#define GFREE_BATCH	 (GFREE_LOCAL_MAX - GFREE_LOCAL_KEEP)
/* pp's free list is full: a batch of it to the global list. */
void gfput_spill(struct p *pp);
/* gfput's body, for a caller that has just made gp _Gdead (goexit0): gp
 * onto pp's free list, a default-size stack into pp's stack cache (owner
 * only). */
static __always_inline void gfput_dead(struct p *pp, struct g *gp)
{
	if (gp->stack_npages == STACK_DEFAULT_NPAGES) {
		stackcache_put(pp, gp->stack_alloc);
		gp->stack_alloc = gp->stack_lo = gp->stack_hi = 0;
		gp->stack_npages = 0;
	}
	glist_push(&pp->gfree, gp);
	if (unlikely(pp->gfree.size >= GFREE_LOCAL_MAX))
		gfput_spill(pp);
}

/* checkdead.c: caller holds sched.lock */
void checkdead(void);

/* preempt.c */
/* Time slice when the command line gives none (Go's forcePreemptNS). */
#define SLICE_DEFAULT_NS (10 * NSEC_PER_MSEC)
void preempt_init(void);
/*
 * A G back on its P after a wake-up took the core (p->resumeg) runs at
 * least resume_min_ns before the next due timer may take it again, and
 * the woken Gs share as long before it. Go lets timers wait for the
 * slice's end; gmk takes the core for them at once, which a storm of them
 * (hundreds of Gs sleeping a few microseconds) would turn into a switch
 * for each, leaving the CPU-bound G next to nothing of its P. Bounded, it
 * keeps most of it, and the timers' Gs wait at most this long more: a
 * tenth of the slice, and no more than RESUME_MIN_MAX_NS (a long slice,
 * set for a test or a batch job, must not hold timers that long).
 */
#define RESUME_MIN_DIV		10
#define RESUME_MIN_MAX_NS	(1 * NSEC_PER_MSEC)
static inline uint64_t resume_min_ns(uint64_t slice)
{
	uint64_t q = slice / RESUME_MIN_DIV;
	return q < RESUME_MIN_MAX_NS ? q : RESUME_MIN_MAX_NS;
}
/* Owner core only: the end of the resumed G's least run while it is the
 * G running (execute counted it in nrun as resumednrun); 0 otherwise. */
static inline uint64_t resume_until(struct p *pp, uint64_t slice)
{
	return pp->resumedwhen != 0 && pp->nrun == pp->resumednrun ?
	       pp->resumedwhen + resume_min_ns(slice) : 0;
}
/* How often a busy core's tick looks at schedtick: a slice is dated at
 * most this late, so a G holds the P for a slice and at most this much
 * more (Go's sysmon: 10 ms more, at its longest sleep). */
#define TICK_SLICE_DIV		4
static inline uint64_t tick_period_ns(uint64_t slice)
{
	return slice / TICK_SLICE_DIV;
}
/* tick_deadline with a timer due before the sample (preempt.c): the
 * timer, not before resume_until. */
uint64_t tick_deadline_timer(struct p *pp, uint64_t when, uint64_t next, uint64_t slice);
/* This core's next tick while it runs Gs on pp, from now: the next look
 * at schedtick, the end of a dated slice, or pp's next timer, whichever
 * comes first. sample: look at schedtick a tick period on even while the
 * slice is dated (a G has switched since the last tick). */
uint64_t tick_deadline(struct p *pp, uint64_t now, uint64_t slice, bool sample);
/* Make sure this core's tick fires by `when` (it may be armed later).
 * Armed by then already, it stays: an interrupt can only bring it
 * earlier (sched_ipi_wake) or re-arm it from the state that asked for
 * `when` (the tick). Else tick_arm_by_slow (preempt.c). */
void tick_arm_by_slow(uint64_t when);
static inline void tick_arm_by(uint64_t when)
{
	uint64_t d = this_cpu()->timer_deadline_ns;
	if (d == 0 || d > when)
		tick_arm_by_slow(when);
}
/* A slice whose start a resume path dated from its own clock read
 * (resumeg, preempt.c): the tick measures it from `when`, not from its
 * own first look, and fires at its end. */
static inline void slice_dated(struct p *pp, uint64_t when)
{
	pp->schedwhen = when;
	pp->ticktick = pp->schedtick;
	pp->sliceover = 0;
	tick_arm_by(when + sched_slice_ns());
}
/* execute, after acquirep: the core's timer may be armed for an idle
 * P's timer, much later, or not at all. One clock read, once per
 * acquisition; the tick re-arms itself from then on. */
void tick_arm_acquired(struct p *pp);
struct trapframe;
void sched_preempt_for_netpoll(struct trapframe *tf);	/* netpoll_kick */

/* fingerprint.c: the hooks at each execute, steal and preemption that
 * deterministic replay turns on: fingerprint=on and switchyield=on (what
 * that is for: fingerprint.c). Set once at boot, before the other cores
 * start; both off, each site costs a load and a branch predicted not
 * taken. */
enum schedfp_event { SCHEDFP_EXECUTE, SCHEDFP_STEAL, SCHEDFP_PREEMPT,
		     SCHEDFP_NEVENTS };
#define SCHED_HOOK_FINGERPRINT	1u
#define SCHED_HOOK_SWITCHYIELD	2u
extern uint8_t sched_hooks;
void schedfp_init(void);
/* One step of the running hash: xor in, multiply by an odd constant
 * (every bit reaches the higher ones), fold the high half down (and
 * back to the lower ones). Order-sensitive, and cheap: `make replay`
 * and the -icount benchmarks run with the fingerprint on, so this runs
 * at every execute there: a few instructions, where a full 64-bit
 * finaliser (splitmix's) would be several times as many. */
static inline uint64_t schedfp_fold(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}
/* On pp's own M (execute, stealwork, gopreempt_m); out of line, so that
 * with both hooks off a site costs only the load and the branch. */
__cold __noinline void sched_hook(struct p *pp, const struct g *gp,
						enum schedfp_event ev);
static inline void schedfp(struct p *pp, const struct g *gp, enum schedfp_event ev)
{
	if (unlikely(sched_hooks != 0))
		sched_hook(pp, gp, ev);
}

/*
 * Tests only: sched_race_hook, when set, runs at these points of the
 * wake-up paths and the tick's re-arm, where a test holds one side of a
 * race so that another core's step, or an interrupt, comes in between
 * (tests/sched_wakeup.c, tests/preempt_sched.c). NULL otherwise:
 * one load and a branch, at places off the switch's fast path.
 */
enum sched_race_point {
	SCHED_RACE_NETPOLL_READIED,	/* netpollready: G on the ready list, not yet out of nwaiters */
	SCHED_RACE_DROP_P,		/* findrunnable: about to give up the P (sched.lock not held) */
	SCHED_RACE_SPINNER_WOKE,	/* resetspinning: a spinner found work and ran wakep */
	SCHED_RACE_STARTLOCKEDM,	/* startlockedm: found a G locked to another M (sched.lock not held) */
	SCHED_RACE_TICK_ARM,		/* tick_arm_by_slow: between its read of the deadline and its write */
};
extern void (*sched_race_hook)(enum sched_race_point pt);
static inline void sched_race(enum sched_race_point pt)
{
	/* load-acquire: pairs with the test's store-release of the hook and
	 * of what it reads */
	void (*h)(enum sched_race_point) = (void (*)(enum sched_race_point))
		atomic_loaduintptr((volatile uintptr_t *)&sched_race_hook);
	if (unlikely(h != NULL))
		h(pt);
}

/* trace.c */
void schedtrace_maybe(void);
const char *gstatus_string(uint32_t s);

/* proc.c: a locked G readied (ready): to its M's queue, its core made
 * to switch to it (lockosthread). */
void ready_locked(struct m *mp, struct g *gp);

/* goready's body (park.c), inline for the channels and semaphores: the
 * other half of every hand-off (always: with the locked G's branch GCC
 * would otherwise call an out-of-line copy). Go's ready(). The caller of
 * ready_nopreempt has preemption off (runqput works on "this P" as its
 * owner): a channel's hand-off keeps the count of the lock it has just
 * dropped, where a second raise would mask interrupts again on aarch64
 * (the reference build, GMK_FASTPATH 0, drops the lock and calls ready,
 * and puts gp with runqput itself rather than its first step inline). */
__cold __attribute__((noreturn)) void goready_bad(struct g *gp, uint32_t st);
static __always_inline void ready_nopreempt(struct g *gp)
{
	/* The CAS is the check: a G in any other status is a misuse. */
	if (unlikely(!atomic_cas32(&gp->atomicstatus, _Gwaiting, _Grunnable)))
		goready_bad(gp, readgstatus(gp));
	traceGoUnpark(gp);
	if (unlikely(gp->lockedm != NULL)) {
		ready_locked(getm(), gp);	/* to its core, now */
		return;
	}
	struct p *pp = getm()->p;
	if (!GMK_FASTPATH) {
		runqput(pp, gp, true);	/* the reference: Go's ready */
	} else {
		struct g *old = runnext_swap(pp, gp);	/* runqput(pp, gp, true) */
		if (old)
			runqput(pp, old, false);
	}
	wakep();
}

static __always_inline void ready(struct g *gp)
{
	preempt_disable();
	ready_nopreempt(gp);
	preempt_enable();
}

/* ---- goparkunlock_spin (sudog.h's waits): park, then release a spinlock ---- */

__attribute__((noreturn)) void gopark_on_g0(void);	/* park.c */

/* The unlock function of the reference build's goparkunlock_spin (Go's
 * parkunlock_c), run by park_m on g0 once gp's context is saved. */
static inline bool parkunlock_spin(struct g *gp, void *l)
{
	spin_unlock_nopreempt(l);
	return true;
}

/*
 * park_direct: goparkunlock_spin's switch. gp, running on mp,
 * parks holding l (and the preempt-off count l raised, nothing else).
 * When the round that park_m_spin would run on g0 is sure to take this
 * P's runnext G and continue its slice (findrunnable_local with nothing
 * to attend to, execute with nothing rare to do), gp switches straight
 * to that G here: gswitch (switch.S) saves gp's context as mcall does,
 * resumes next as gogo does, and releases l and drops the count in
 * between, once gp is off its stack. The channel hand-off is the common
 * case: the receiver readied the sender into runnext a moment ago.
 * Returns the G to switch to, having done the scheduler's part for the
 * two, or NULL: the mcall path. Inline in the channel operations, where
 * a call would cost a frame of its own.
 *
 * Where gmk departs from Go, whose park_m always runs on g0: the round
 * is the same (the same G, the same slice, the same counters; the tests
 * that decide it are the ones findrunnable_local and execute make, in
 * their order, and any other case takes the mcall path), minus the trip
 * through g0's stack: its mcall, the g0 frame and gogo, a third of a
 * hand-off's switching. The lock is what makes the status change safe
 * before the context is saved: a waker finds gp through the sudog that
 * l guards, so it cannot ready gp before gswitch releases l, and no
 * other path readies a G parked with goparkunlock_spin.
 *
 * Not in the sanitizer builds of the hosted board: their switches are C
 * wrappers that tell the sanitizer the next stack (arch/x86_64-linux/
 * san.c), and ThreadSanitizer would not see gswitch's release of l.
 * Nor in the reference build, whose goparkunlock_spin takes park_m.
 */
#ifdef GMK_SAN_FIBERS
#define PARK_DIRECT 0
#else
#define PARK_DIRECT 1
#endif
/* The stack check before gswitch: the lowest byte it will write
 * (GSWITCH_PUSH below our stack pointer, not below the frame pointer,
 * which on x86-64 is the frame's top) must leave the canary word, a
 * small stack's lowest, alone, since no check after it sees the canary
 * it broke (dropg's, after mcall's pushes, does). */
#define PARK_DIRECT_LOW	(GSWITCH_PUSH + sizeof(uint64_t))

/* Can gp's stack take gswitch's writes, and is it whole (stackcheck_at's
 * test, at the lowest byte the switch writes)? Else park_direct leaves
 * the park to mcall's path, whose dropg names the overflow on g0: here,
 * on the G's own stack, the report's frames would go further past it. */
static __always_inline bool park_direct_stack_ok(struct g *gp)
{
	return gp->stack_npages != 0 ||
	       (arch_sp_below(PARK_DIRECT_LOW) >= gp->stack_lo &&
		*(volatile uint64_t *)gp->stack_lo == STACK_CANARY);
}

static __always_inline struct g *park_direct(struct g *gp, struct m *mp, struct spinlock *l)
{
	struct p *pp = mp->p;
	/* Relaxed loads: only this core makes runnext nonzero (what next
	 * points to was written here), and a flag another core raises just
	 * after this look is the next round's, as it would be on g0. */
	struct g *next = (struct g *)__atomic_load_n(&pp->runnext, __ATOMIC_RELAXED);
	/* findrunnable_local's tests before runnext (attn also stands for
	 * resumeg), then execute's (xattn: the tick to arm, a timer's G,
	 * the hooks and the trace, which traceGoPark's test follows), and
	 * schedule's for a G locked to another M. Then what gswitch
	 * assumes: a G with a stack (a fresh one gets it from execute), room
	 * on ours for its writes (park_direct_stack_ok), the
	 * preempt-off count l's alone (schedule reports any other), l held
	 * with no waiter asking for it (spin_unlock_slow's). */
	if (PARK_DIRECT && likely(next != NULL) &&
	    (__atomic_load_n(&pp->attn.word, __ATOMIC_RELAXED) |
	     __atomic_load_n(&mp->nlockedq, __ATOMIC_RELAXED) |
	     pp->sliceover | pp->xattn.word) == 0 &&
	    (globrunqempty() || pp->schedtick % GLOBRUNQ_FAIRNESS_TICKS != 0) &&
	    (next->lockedm == NULL || next->lockedm == mp) && next->sched.sp != 0 &&
	    likely(park_direct_stack_ok(gp)) &&
	    THIS_CPU_READ32(preempt_off) == 1 &&
	    __atomic_load_n(&l->locked, __ATOMIC_RELAXED) == spin_tag()) {
		/* runnext_get's exchange: 0 when a thief took next first (only
		 * the owner makes runnext nonzero, so otherwise it is next). */
		if (likely(atomic_xchguintptr(&pp->runnext, 0) != 0)) {
			/* park_m_spin's steps, but its unlock (gswitch's) */
			setgstatus(gp, _Grunning, _Gwaiting);
			/* gleave, its stack checked above */
			glocal_switch_out(gp->stack_hi);
			gp->m = NULL;
			pp->nrunnext++;
			/* execute(mp, next, true), as it runs with xattn 0 */
			execute_begin(mp, pp, next);
			__atomic_store_n(&pp->nrun, pp->nrun + 1, __ATOMIC_RELAXED);
			glocal_switch_in(next->stack_hi);
			return next;
		}
	}
	return NULL;
}

/*
 * Park, then release this spinlock (Go's goparkunlock). The unlock runs
 * after the G's context is saved (on the next G's stack, gswitch, or on
 * the core's g0, park_m_spin), so a waker that takes the lock afterwards
 * always finds a parked G. It is the same core that took the lock (a G
 * holding a spinlock is not preempted, kernel/preempt.h), so the lock's
 * holder check and the core's preempt-off count balance: that count is
 * the park's, dropped by gswitch or park_m_spin.
 */
static __always_inline void goparkunlock_spin(struct spinlock *l, enum waitreason reason)
{
	struct g *gp = getg();
	struct m *mp = gp->m;
	if (unlikely(gp == mp->g0))
		gopark_on_g0();
	gopark_line(gp);
	gp->waitreason = reason;
	if (!GMK_FASTPATH) {
		/* The reference: Go's goparkunlock, gopark with the unlock
		 * for park_m to call through its pointer (l's preempt-off
		 * count stands for gopark's, which park_m drops). */
		mp->waitunlockf = parkunlock_spin;
		mp->waitlock = l;
		mcall(park_m);
		return;
	}
	struct g *next = park_direct(gp, mp, l);
	if (next) {
		gswitch(next, &l->locked);
		return;
	}
	mp->waitlock = l;
	mcall(park_m_spin);
}


#endif
