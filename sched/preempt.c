/*
 * Preemption: the per-core tick that replaces Go's sysmon retake, and the
 * two ways a G is switched out against its will.
 *
 * The tick. Each core's timer interrupt looks at its own P only (no
 * locks, no other core's state). It stands in for Go's sysmon retake, and
 * does it Go's way: no switch reads the clock. execute bumps schedtick
 * when a new slice begins (a G not run from runnext); the first tick that
 * sees the new schedtick dates the slice (p->schedwhen), and one that sees
 * the same schedtick a slice later preempts the G (Go: forcePreemptNS,
 * 10 ms; `slice=` on the command line). A runnext chain (a ping-pong
 * pair) shares one slice, so it cannot starve its queue: a slice found
 * used up while the scheduler runs sets p->sliceover, and the chain's
 * next G goes to the global queue (findrunnable).
 * The tick also preempts when one of the P's timers is due: the
 * scheduler, which fires them, must get the core back.
 *
 * Tickless when idle, a sampler when busy: while its P runs Gs a core's
 * timer is set for the next look at schedtick (a quarter slice on), the
 * end of a dated slice or the P's next timer, whichever is first
 * (tick_deadline); an idle core sets it for its next timer only (stopm,
 * proc.c), or not at all. A slice is thus dated at most a quarter slice
 * late: a G holds the P for a slice and up to a quarter more, where Go's
 * sysmon, at its longest sleep, allows a whole second slice.
 *
 * The switch, two ways (Go: asyncPreempt and the stack-guard check):
 *   - at interrupt exit, wherever the G is (preempt_async): the trap
 *     frame, the full register state with FP/SIMD, is copied onto the G's
 *     stack and its gobuf made to resume through arch_preempt_resume,
 *     which restores the frame and returns into the interrupted
 *     instruction. The core leaves the interrupt for g0 and requeues the
 *     G on the global queue (gopreempt_m).
 *   - at a safe point: when the G cannot be switched where it is (its
 *     core's preempt-off count is raised: a spinlock, scheduler state in
 *     hand; or it is inside the switch code), the tick only sets
 *     g->preempt and cpu->resched, and the G switches itself out when the
 *     count drops to zero (preempt_safepoint, via kernel/preempt.h).
 */
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/compiler.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/sched_hooks.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/tracebuf.h"

/* Stack a preempted G must keep free below its frame copy: the copy is
 * restored by code that uses no stack, so this is only a safety margin. */
#define PREEMPT_STACK_MARGIN	256
/* When a G could not be switched at the tick, look again this soon (it
 * normally switches itself at its next safe point before that). */
#define PREEMPT_RETRY_NS	(1 * NSEC_PER_MSEC)
/* While a locked G readied for this core waits and the scheduler runs,
 * the tick looks this often (sched_ipi_wake): it switches the next G out
 * for it as soon as one runs. */
#define LOCKED_RETRY_NS		(20 * NSEC_PER_USEC)

/* Set once schedinit has put in place what the tick and IPI_WAKE read
 * (preempt_init: store-release; they load-acquire): secondaries take both
 * before the boot core gets there. */
static volatile uint32_t preempt_ready;

static volatile uint64_t slice_override_ns;
volatile uint64_t slice_cur_ns = SLICE_DEFAULT_NS;

static uint64_t slice_default(void)
{
	return kopts.slice_ns ? kopts.slice_ns : SLICE_DEFAULT_NS;
}

uint64_t sched_set_slice(uint64_t ns)
{
	uint64_t old = atomic_xchg64(&slice_override_ns, ns);
	atomic_store64(&slice_cur_ns, ns ? ns : slice_default());
	/* Every busy core's tick may be armed a quarter of the old slice on
	 * (a minute's slice: 15 s), and execute pulls it in only when it is
	 * not: re-armed now by the new slice, or a G would hold its core
	 * that long. IPI_WAKE re-arms it (sched_ipi_wake); ours, here. */
	preempt_disable();
	for (unsigned i = 0; i < ncpus; i++)
		if (cpus[i].online && &cpus[i] != this_cpu())
			ipi_send(cpus[i].id, IPI_WAKE);
	struct m *mp = this_cpu()->m;
	struct p *pp = mp ? mp->p : NULL;
	if (pp && pp->m == mp && atomic_load32(&preempt_ready))
		tick_arm_by(tick_deadline(pp, nanotime(), sched_slice_ns(), true));
	preempt_enable();
	return old;
}

uint64_t tick_deadline_timer(struct p *pp, uint64_t when, uint64_t next, uint64_t slice)
{
	uint64_t until = resume_until(pp, slice);
	if (when < until)
		when = until;
	return when < next ? when : next;
}

uint64_t tick_deadline(struct p *pp, uint64_t now, uint64_t slice, bool sample)
{
	uint64_t next = now + tick_period_ns(slice);
	/* A dated slice's end, exactly (not one sample late); no sample
	 * before it where the G has run since the last tick unswitched (a
	 * new slice before then pulls the tick in: execute). */
	if (pp->ticktick == pp->schedtick) {
		uint64_t end = pp->schedwhen + slice;
		if (end > now && (end < next || !sample))
			next = end;
	}
	uint64_t w = atomic_load64(&pp->timers.when0);
	if (w && w < next)
		next = tick_deadline_timer(pp, w, next, slice);
	return next;
}

void tick_arm_acquired(struct p *pp)
{
	uint64_t now = nanotime();
	pp->xattn.tickarm = 0;
	pp->tickwhen = now;
	pp->tickpulled = 1;
	tick_arm_by(tick_deadline(pp, now, sched_slice_ns(), true));
}

/* On g0 after arch_irq_leave_to: the G's context is in its frame copy. */
static void gopreempt_async(void *arg)
{
	traceGoPreempt(arg, true);
	gopreempt_m(arg);
}

/* On g0 after mcall from a safe point. */
static void gopreempt_safe(struct g *gp)
{
	getm()->p->npreemptsafe++;
	traceGoPreempt(gp, false);
	gopreempt_m(gp);
}

/*
 * Switch gp out from the timer interrupt, now. Returns only when gp
 * cannot be switched here, leaving everything as it was.
 */
static void preempt_async(struct trapframe *tf, struct cpu *c, struct m *mp,
			  struct p *pp, struct g *gp)
{
	if (c->preempt_off != 0 || !arch_frame_preemptible(tf))
		return;
	if (readgstatus(gp) != _Grunning)
		return;
	uintptr_t sp = arch_preempt_push_frame(tf, gp->stack_lo + PREEMPT_STACK_MARGIN);
	if (sp == 0)
		return;
	gp->sched.sp = sp;
	gp->sched.pc = (uintptr_t)arch_preempt_resume;
	gp->sched.g = gp;
	pp->npreempt++;
	arch_irq_leave_to(mp->g0->sched.sp, mp->g0, gopreempt_async, gp);
}


/* Every core's timer interrupt (kernel/time.c, kernel/sched_hooks.h). */
/* The tick's own arming: whether it is for a sample (execute then need
 * not pull it in for a new slice). */
static void tick_set(struct p *pp, uint64_t now, uint64_t next, uint64_t slice)
{
	pp->tickpulled = next <= now + tick_period_ns(slice);
	timer_set_deadline(next);
}

static void tick(struct trapframe *tf)
{
	struct cpu *c = this_cpu();
	struct m *mp = c->m;
	struct p *pp = mp ? mp->p : NULL;
	if (!pp || pp->m != mp)
		return;		/* idle: stopm sets the timer (proc.c) */
	uint64_t now = nanotime();
	uint64_t slice = sched_slice_ns();
	pp->tickwhen = now;
	/* The periodic work is due: the scheduler's next round runs it
	 * (findrunnable), which then need not read the clock to know. */
	if (now >= atomic_load64(&sched.g0work_due))
		p_attn_set(pp, PATTN_G0WORK, 1);
	/* sysmon's retake: a new schedtick dates a new slice; the same one
	 * a slice after its date ends it. schedtick is this core's own
	 * (execute, below us in the interrupted code or not at all). */
	uint32_t st = pp->schedtick;
	bool sliceused = false;
	bool switched = pp->nrun != pp->ticknrun;	/* since the last tick */
	pp->ticknrun = pp->nrun;
	if (st != pp->ticktick) {
		pp->ticktick = st;
		pp->schedwhen = now;
	} else if (now - pp->schedwhen >= slice) {
		sliceused = true;
		pp->sliceover = 1;
	}
	struct g *gp = mp->curg;
	if (!gp || arch_getg() != gp) {
		/* The scheduler is running on g0 (curg may be set: in an
		 * mcall): it sees sliceover, and the P's due timers, itself.
		 * The longest hold starts again with the next G. */
		pp->holdsince = 0;
		uint64_t next = tick_deadline(pp, now, slice, true);
		if (next <= now)
			next = now + PREEMPT_RETRY_NS;
		/* A G locked to this core was readied while the scheduler had
		 * looked already (sched_ipi_wake): soon again, to switch the
		 * next G out for it. No test on the switch path for this. */
		if (atomic_load32(&mp->lockedwake) && next > now + LOCKED_RETRY_NS)
			next = now + LOCKED_RETRY_NS;
		tick_set(pp, now, next, slice);
		return;
	}
	/* A G that overflowed its stack and spins never reaches a switch:
	 * catch it here (sched/stack.c). Its sp counts only outside the
	 * switch code, which sets g and sp one instruction apart. */
	stackcheck_sp(gp, arch_frame_preemptible(tf) ? arch_frame_sp(tf) : 0);
	/* The longest a G has held this P without a switch, as the ticks
	 * see it: from the first tick that saw it running (nrun) to the
	 * last. Measured here, not in schedule(), so that a switch pays
	 * nothing for it. */
	if (pp->holdsince == 0 || pp->holdnrun != pp->nrun) {
		pp->holdnrun = pp->nrun;
		pp->holdsince = now;
	} else if (now - pp->holdsince > pp->maxhold_ns) {
		pp->maxhold_ns = now - pp->holdsince;
	}
	uint64_t w = timers_when0(pp);
	/* A stop-the-world (gomaxprocs) ends the slice: the P is handed in
	 * at the switch. Not the stopper's own (it has preemption off). */
	bool expired = sliceused ||
		       (atomic_load32(&sched.gcwaiting) && c->preempt_off == 0);
	/* A due timer, a G locked to this core waiting for it (lockosthread,
	 * proc.c), or a G a wake-up readied waiting in runnext behind a
	 * resumed G (resumeg_take), once the resumed G's least run is over. */
	uint64_t until = resume_until(pp, slice);
	bool locked = atomic_load32(&mp->lockedwake) != 0;
	bool timers_due = ((w != 0 && w <= now) || locked ||
			   (until && atomic_loaduintptr(&pp->runnext) != 0)) && now >= until;
	if (!expired && !timers_due) {
		uint64_t next = tick_deadline(pp, now, slice, switched);
		if (locked && until < next)
			next = until;	/* the locked G's turn */
		tick_set(pp, now, next, slice);
		return;
	}
	/* A slice not used up is the G's still: a timer alone takes the
	 * core for the G it readies, and gives it back after
	 * (preemptWake). */
	gp->preempt = expired ? preemptSlice : preemptWake;
	uint64_t retry = now + (slice < PREEMPT_RETRY_NS ? slice : PREEMPT_RETRY_NS);
	uint64_t dated = pp->schedwhen;
	if (expired) {
		/* Switched here, the G's successor starts a new slice now
		 * (its execute bumps schedtick to st + 1): dated already, it
		 * needs no sample, and the tick comes at its end (or the P's
		 * next timer). */
		uint64_t end = now + slice, w2 = timers_when0(pp);
		pp->ticktick = st + 1;
		pp->schedwhen = now;
		tick_set(pp, now, w2 && w2 < end ? (w2 > now ? w2 : retry) : end, slice);
	} else {
		/* A wake-up: the rest of the slice stays the G's
		 * (goschedImpl); the tick samples again soon. */
		tick_set(pp, now, retry, slice);
	}
	preempt_async(tf, c, mp, pp, gp);
	/* Not here: at the G's next safe point. The tick looks again soon
	 * in case it has none for a while (it is in the switch code, or in
	 * code the arch cannot switch it out of: arch_preempt_retry_ns); the
	 * slice stays as it was. */
	uint64_t again = arch_preempt_retry_ns(tf);
	if (again < slice)
		retry = now + again;
	if (expired) {
		pp->ticktick = st;
		pp->schedwhen = dated;
	}
	tick_set(pp, now, retry, slice);
	c->resched = 1;
}

bool sched_tick(struct trapframe *tf)
{
	if (!atomic_load32(&preempt_ready))
		return false;
	tick(tf);
	return true;
}

/*
 * A device interrupt readied Gs while every P is busy (netpoll_kick):
 * switch this core's G out now, as the tick does at the end of a slice,
 * so that its P runs them next. Returns when the G cannot be switched
 * here; it then switches at its next safe point.
 */
void sched_preempt_for_netpoll(struct trapframe *tf)
{
	struct cpu *c = this_cpu();
	struct m *mp = c->m;
	struct p *pp = mp ? mp->p : NULL;
	struct g *gp = mp ? mp->curg : NULL;
	/* No G of ours to switch out: this core has no P (netpoll_kick
	 * found none idle either), or the scheduler is running, on g0. Its
	 * round takes the Gs at its netpoll step (nothing else to run) or
	 * at its look at an overdue list; past those, they wait for the
	 * next G's preemption (its slice's end: gopreempt_m injects them
	 * first) or for the list to be overdue, as with every P busy. */
	if (!pp || pp->m != mp || !gp || arch_getg() != gp)
		return;
	if (!gp->preempt)	/* the tick's slice end stands */
		gp->preempt = preemptWake;
	preempt_async(tf, c, mp, pp, gp);
	c->resched = 1;
}

/* A G's preempt-off count dropped to zero with interrupts on, and the
 * tick had asked for a switch meanwhile (kernel/preempt.h). */
void sched_preempt_safepoint(void)
{
	struct g *gp = getg();
	if (gp == gp->m->g0 || !gp->preempt)
		return;		/* the scheduler: it switches anyway */
	/* gp->preempt stays: gopreempt_m reads why (execute clears it). */
	mcall(gopreempt_safe);
}

/*
 * tick_arm_by's re-arm (schedimpl.h): the read of the deadline and the
 * write of the new one with interrupts masked. An IPI_WAKE between them
 * (sched_ipi_wake: a locked G's wake-up, a shorter slice, an earlier
 * timer) would arm an earlier deadline that the write then replaces with
 * the later one: the preemption it was for late by up to a tick period.
 * Masked, the IPI waits, and re-arms after the write.
 */
void tick_arm_by_slow(uint64_t when)
{
	unsigned long flags = arch_irq_save();
	uint64_t d = this_cpu()->timer_deadline_ns;
	sched_race(SCHED_RACE_TICK_ARM);
	if (d == 0 || d > when)
		timer_set_deadline(when);
	arch_irq_restore(flags);
}

/*
 * IPI_WAKE: someone gave this core's P an earlier timer (timers_notify,
 * timer.c) or work to look at. An idle core just leaves its wfi/hlt
 * (stopm recomputes); a busy one re-arms its tick for the new deadline.
 */
void sched_ipi_wake(void)
{
	if (!atomic_load32(&preempt_ready))
		return;
	struct cpu *c = this_cpu();
	struct m *mp = c->m;
	struct p *pp = mp ? mp->p : NULL;
	if (!pp || pp->m != mp)
		return;
	/* A G locked to this core readied elsewhere (proc.c: ready_locked):
	 * the tick now, to preempt the G; between two Gs (the scheduler may
	 * have looked at lockedq already), it looks again every
	 * LOCKED_RETRY_NS until a G runs and it can. A stop-the-world: the
	 * tick now too, where a G runs (the scheduler sees it itself). */
	if (atomic_load32(&mp->lockedwake) ||
	    (mp->curg && atomic_load32(&sched.gcwaiting))) {
		timer_set_deadline(nanotime());
		return;
	}
	/* Also between two Gs: the next may inherit the slice, and execute
	 * then leaves the tick as it is (a shorter slice: sched_set_slice). */
	tick_arm_by(tick_deadline(pp, nanotime(), sched_slice_ns(), true));
}

void preempt_init(void)
{
	atomic_store64(&slice_cur_ns, slice_default());
	/* Store-release: other cores' interrupts read it meanwhile. */
	atomic_store32(&preempt_ready, 1);
}
