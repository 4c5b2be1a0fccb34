/*
 * The scheduler's data structures, named as in Go's runtime2.go:
 *
 *   struct g       a goroutine: its saved context, stack and state
 *   struct m       a machine: here one per core, running on that core's g0
 *   struct p       a processor: the right to run Gs, and a local run queue
 *   struct schedt  the global scheduler state (`sched`)
 *
 * Contract kept for the host tests (tests/host/): a zero-filled struct p is
 * a valid empty P and a zero-filled struct g a valid G record for the run
 * queue functions.
 */
#ifndef GMK_SCHED_RUNTIME2_H
#define GMK_SCHED_RUNTIME2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/compiler.h"
#include "kernel/cpu.h"
#include "kernel/gobuf.h"
#include "kernel/spinlock.h"
#include "sched/gqueue.h"
#include "sched/timer.h"
#include "sched/waitreason.h"

/* Slots in a P's local run queue ring. A power of two, so that the free-
 * running head and tail indices wrap correctly modulo the ring. */
#define RUNQ_SIZE 256u
_Static_assert((RUNQ_SIZE & (RUNQ_SIZE - 1)) == 0, "RUNQ_SIZE power of two");

/* Bytes of a go_copy argument kept in the G record itself (struct g's
 * argbuf): a 64-byte line, the record's third. */
#define G_ARG_INLINE 64u

/* G status (g->atomicstatus). A zero-filled G is _Gidle. */
enum {
	_Gidle = 0,	/* just allocated, not yet initialised */
	_Grunnable,	/* on a run queue, not running; no stack until it first runs */
	_Grunning,	/* running on an M, owns its stack */
	_Gwaiting,	/* parked by gopark; goready makes it runnable */
	_Gdead,		/* exited, its record on a free list (sched/gproc.c) */
};

/* P status. A zero-filled P is _Pidle. */
enum {
	_Pidle = 0,	/* on the idle list or being set up */
	_Prunning,	/* owned by an M that runs Gs or the scheduler */
	_Pgcstop,	/* stopped by a stop-the-world (gomaxprocs), no M */
};

/*
 * Why the tick (or a device's interrupt) asks a G to leave its core
 * (g->preempt; 0: no request). preemptSlice: its slice is used up, and
 * it goes to the global queue (Go's gopreempt_m). preemptWake: a due
 * timer or a device readied a G that must run now, which Go would leave
 * until the slice's end (Go does not preempt for them): the preempted G
 * keeps the rest of its slice and resumes once the woken G has run
 * (p->resumeg).
 */
enum { preemptSlice = 1, preemptWake = 2 };

struct m;
struct p;

struct g {
	struct gobuf sched;		/* saved context while not running */
	struct m *m;			/* M running it (set by execute); g0: its M */
	uintptr_t stack_lo;		/* usable stack is [stack_lo, stack_hi) */
	uintptr_t stack_hi;
	uintptr_t stack_alloc;		/* page_alloc base: guard page first */
	volatile uint32_t atomicstatus;	/* _G*; changed with casgstatus, or by
					 * its owner with setgstatus */
	uint32_t stack_npages;		/* pages at stack_alloc, guard included */
	uint64_t goid;			/* 1 = the main G; 0 = g0 or unused */
	struct g *schedlink;		/* link in a gQueue/gList */
	struct g *alllink;		/* link in sched.allgs (never unlinked) */
	void (*entry)(void *);		/* go(fn, arg) */
	union {
		void *arg;
		/* Dead, and first of a batch on sched.gfree: the batch's
		 * last G (sched/gproc.c, gfput). */
		struct g *gfreelast;
	};
	/* lockosthread (sched/proc.c): the M, the core, this G runs on only,
	 * and how many lockosthread calls unlockosthread has yet to undo
	 * (Go's lockedm and lockedExt). Written by the G itself while it
	 * runs; read by others only while it does not (ready, schedule). */
	struct m *lockedm;
	/* spawnword: newproc1 sets gopc and clears waitreason, preempt and
	 * lockedext (0 in a dead G already) with one store of the pc: Go's
	 * gopc at no cost to the spawn path's instruction budget. */
	union {
		struct {
			/* Go's gopc: the pc after the go statement that made
			 * this G (the return address of go, go_stack,
			 * go_copy...), for the traceback's "created by" line;
			 * 0 for the main G. 32 bits: every board's text lies
			 * below 4 GiB (sched_main checks). */
			uint32_t gopc;
			uint8_t waitreason;	/* enum waitreason while _Gwaiting */
			volatile uint8_t preempt; /* preemption requested, and why: preempt* */
			uint16_t lockedext;
		};
		uint64_t spawnword;
	};
	/* Go's parentGoid: the goid of the G that ran the go statement; 0
	 * if g0 did (a timer callback) and for the main G. */
	uint64_t parentgoid;
#ifdef G_RECORD_PAD
	unsigned char record_pad[G_RECORD_PAD];	/* the arch's longer gobuf */
#endif
	/* go_copy's copy of the argument (sched/gproc.c), for the G's whole
	 * life, when it fits. Last, in a line of its own (the record's
	 * third): the switch path, and a G not made by go_copy, never touch
	 * it. */
	_Alignas(16) unsigned char argbuf[G_ARG_INLINE];
};

struct m {
	struct g *g0;			/* first field: mcall finds it (M_G0) */
	struct g *curg;			/* G running on this M, or NULL */
	struct p *p;			/* attached P, NULL when idle */
	struct p *nextp;		/* P handed over by startm, then park wakes */
	uint32_t spinning;		/* out of work, looking for some; this M only */
	/* startm's hand-off (Go's mspinning): the waker sets it with nextp,
	 * before m_unpark; the woken M moves it into spinning (stopm). */
	uint32_t nextspinning;
	uint32_t id;			/* = core id */
	struct cpu *cpu;
	struct m *schedlink;		/* link in sched.midle */
	volatile uint32_t park;		/* note: nonzero = wake up (stopm/startm) */
	/* gopark's hand-off to park_m, which runs on g0 after the switch. */
	bool (*waitunlockf)(struct g *gp, void *lock);
	void *waitlock;
	uint64_t fastrand;		/* xorshift state; per M, so no lock */
	/* The timer callback running on g0 (timers_run), by name, for the
	 * error if it blocks; NULL otherwise. This M only. */
	const char *timerfn;
	/* Gs locked to this M (lockosthread, sched/proc.c) that became runnable on
	 * another core, FIFO through schedlink: this M runs them next.
	 * Under sched.lock; nlockedq, its length, is read without it (the
	 * scheduler's test, the tick's). */
	struct gqueue lockedq;
	volatile uint32_t nlockedq;
	/* A G readied into lockedq: the core is to switch to it now (the
	 * tick preempts); cleared when the scheduler takes one. */
	volatile uint32_t lockedwake;
	uint32_t nlocked;		/* Gs locked to this M now; this M only */
	uint32_t nlockedgive;		/* Ps it gave an idle owner (startlockedm) */
};

/*
 * A P. Written mostly by the M that owns it; thieves on other cores read
 * runqhead/runqtail/runq/runnext and commit with CAS on runqhead/runnext.
 * Cache-line aligned so that two Ps never share a line.
 */
struct p {
	uint32_t id;
	uint32_t status;		/* _P*; changed under sched.lock or by owner */
	uint32_t schedtick;		/* incremented on each new time slice */
	struct m *m;			/* owner, NULL when idle */
	struct p *link;			/* link in sched.pidle */

	/* Local run queue, lock-free: the owner puts at the tail, anyone
	 * takes from the head. runnext, if nonzero, is a runnable G (a
	 * struct g * as uintptr_t, Go's guintptr) that runs next: one the
	 * running G readied or started, a due timer's, a device's after a
	 * preemption. It inherits the time slice, unless the slice is over
	 * (sliceover: findrunnable_local says what it does then). */
	volatile uint32_t runqhead;	/* consumers: load-acquire, CAS-release */
	volatile uint32_t runqtail;	/* owner only: store-release */
	struct g *runq[RUNQ_SIZE];
	volatile uintptr_t runnext;

	/* Dead G records, for reuse by newproc on this P (owner only). A
	 * record keeps a stack of another size than the default; default
	 * stacks go to stackcache. */
	struct glist gfree;
	/* Free default-size stacks, guard pages in place, for the Gs that
	 * start on this P (owner only): linked through each stack's top
	 * word (sched/stack.c). */
	uintptr_t stackcache;
	uint32_t nstackcache;

	/* Time slice (sched/preempt.c), Go's way: no switch reads the clock.
	 * execute bumps schedtick when a new slice begins (and clears
	 * sliceover); the owning core's tick, which stands in for sysmon,
	 * dates it: the first tick that sees a schedtick other than
	 * ticktick stamps schedwhen, and one that sees the same schedtick a
	 * slice later ends the slice. Owner core only. */
	uint64_t schedwhen;		/* nanotime the tick dated the current slice */
	uint32_t ticktick;		/* the schedtick that schedwhen dates */
	/* The tick found the slice used up: a runnext chain that kept the
	 * P goes to the global queue at its next G, unless the slice ended
	 * before it (sliceendtick), nothing else waits, or the G is a due
	 * timer's (runnext_sliceover). */
	uint32_t sliceover;
	/*
	 * What the scheduler's round must look at before the run queues
	 * (findrunnable_attend), a byte each, all read by one 32-bit load:
	 * all zero, a switch passes the lot with one test. A byte is a hint:
	 * its writers set it after the condition, and the owner clears it
	 * and then reads the condition itself; but timers, which whoever
	 * changes the heap sets or clears with when0, under the heap's lock
	 * (timer.c: update_when0), and resume, which pdestroy clears with
	 * the world stopped. A byte store is no
	 * read-modify-write, so writers of different bytes (this core's tick,
	 * another core's timer, a device's interrupt) never contend; Linux's
	 * qspinlock shares a word between its locked and pending bytes the
	 * same way, and both arches load a word's bytes in one access.
	 */
	union {
		struct {
			/* The periodic work (g0_periodic) is due: the tick
			 * found sched.g0work_due passed, or it is 0, due at
			 * every round (p_attn_all sets every P's). */
			volatile uint8_t g0work;
			/* timers.when0 != 0 (the heap's writers, timer.c). */
			volatile uint8_t timers;
			/* Devices may have readied Gs: the push that made
			 * netpoll_readylist non-empty sets every P's. */
			volatile uint8_t netpoll;
			/* resumeg != NULL (gosched_fast must not apply). */
			volatile uint8_t resume;
		};
		volatile uint8_t b[4];		/* by enum p_attn */
		volatile uint32_t word;
	} attn;
	/*
	 * What execute must do besides running the G, a byte each, read by
	 * one load as attn's: the owner's, but for hooks and trace, which
	 * schedinit sets on every P before the other cores start.
	 */
	union {
		struct {
			/* Set by acquirep: the next execute arms this core's
			 * tick, which from then on re-arms itself while the P
			 * runs Gs. */
			volatile uint8_t tickarm;
			/* timerg != 0 (findrunnable_attend). */
			volatile uint8_t timerg;
			/* sched_hooks != 0: schedfp (fingerprint.c). */
			volatile uint8_t hooks;
			/* trace_enabled: traceGoStart (tracebuf.c). */
			volatile uint8_t trace;
		};
		volatile uint8_t b[4];		/* by enum p_xattn */
		volatile uint32_t word;
	} xattn;
	/* Not 0 while a G runs on the P (0 between two Gs: schedule): the
	 * time of the core's last tick or of the P's acquisition, a lower
	 * bound on when the G was switched in (the watchdog reads it). */
	uint64_t runwhen;
	uint64_t tickwhen;		/* what execute stores in runwhen */
	/* The core's tick is armed no later than a tick period after
	 * tickwhen: a new slice needs no pulling in (execute). */
	uint32_t tickpulled;
	/* The longest hold, as the ticks see it (maxhold_ns): nrun at the
	 * tick that first saw the running G, and that tick's time. */
	uint64_t holdnrun;
	uint64_t holdsince;
	uint64_t ticknrun;		/* nrun at the core's last tick */
	/* The G preempted for a wake-up (preemptWake): it resumes the rest
	 * of its slice, resumeleft, after the woken G in runnext, before the
	 * ring and the global queue (findrunnable); what ran meanwhile, from
	 * resumeat on, is not taken from it. Owner only; thieves do not see
	 * it. */
	struct g *resumeg;
	uint64_t resumeat;
	uint64_t resumeleft;
	uint32_t resumewoken;		/* a woken G has run since resumeat */
	uint64_t resumedwhen;		/* when the resumed G got the core back */
	uint64_t resumednrun;		/* nrun while the resumed G runs */
	/* schedtick of the last slice that ended before its G's time was
	 * up: the tick preempted it (goschedImpl), or the P went idle
	 * (acquirep). A G found in runnext with that slice used up is the
	 * next G, and starts its own slice (findrunnable; a due timer's G
	 * keeps schedtick, its slice dated anew). Owner only. */
	uint32_t sliceendtick;
	/* schedtick + 1 of the used-up slice whose rest a due timer's G
	 * took (runnext_sliceover): once a slice. Owner only. */
	uint32_t slicetimerg;

	/* Timers whose callbacks run on this P (sched/timer.c). */
	struct timers timers;

	/* Counters for schedtrace and the tests (owner writes, others read). */
	uint64_t nrun;			/* Gs executed */
	uint64_t nsteal;		/* Gs taken from other Ps */
	uint64_t nglobget;		/* Gs taken from the global queue */
	uint64_t nrunnext;		/* Gs run from runnext */
	uint64_t nidle;			/* times the P went idle */
	uint64_t npreempt;		/* Gs preempted at interrupt exit */
	uint64_t npreemptsafe;		/* Gs preempted at a safe point */
	uint64_t maxhold_ns;		/* longest a tick saw a G hold the P unswitched */

	/* fingerprint=on (sched/fingerprint.c): a running hash of this P's
	 * executes, steals and preemptions, and how many of each (owner
	 * writes, store-release; the printing core reads). */
	uint64_t fphash;
	uint64_t fpevents[3];		/* by enum schedfp_event */
	/* A G that a due timer readied into runnext (findrunnable), and how
	 * often another G started a slice on this P before it. */
	uintptr_t timerg;
	uint64_t ntimerbypass;
} __cacheline_aligned;

/* pp->attn's and pp->xattn's bytes by index (p_attn_all). */
enum p_attn { PATTN_G0WORK, PATTN_TIMERS, PATTN_NETPOLL, PATTN_RESUME };
enum p_xattn { PXATTN_TICKARM, PXATTN_TIMERG, PXATTN_HOOKS, PXATTN_TRACE };
_Static_assert(__builtin_offsetof(struct p, attn.netpoll) -
	       __builtin_offsetof(struct p, attn) == PATTN_NETPOLL &&
	       __builtin_offsetof(struct p, attn.resume) -
	       __builtin_offsetof(struct p, attn) == PATTN_RESUME,
	       "enum p_attn names attn's bytes");
_Static_assert(__builtin_offsetof(struct p, xattn.hooks) -
	       __builtin_offsetof(struct p, xattn) == PXATTN_HOOKS &&
	       __builtin_offsetof(struct p, xattn.trace) -
	       __builtin_offsetof(struct p, xattn) == PXATTN_TRACE,
	       "enum p_xattn names xattn's bytes");

struct schedt {
	struct spinlock lock;		/* runq, pidle, midle, nmidle */
	struct gqueue runq;		/* global run queue, with its size */
	volatile uint32_t runqsize;	/* runq.size, stored under lock for
					   lock-free peeks (globrunqempty) */
	struct p *pidle;		/* idle Ps, linked by p->link */
	volatile uint32_t npidle;	/* written under lock, read anywhere */
	volatile uint32_t nmspinning;	/* Ms spinning (atomic) */
	volatile uint32_t needspinning;	/* a spinner was wanted but none came */
	struct m *midle;		/* Ms halted without a P */
	uint32_t nmidle;
	/* The one idle M that keeps time for the others (stopm): only its
	 * core's timer is armed while idle. Go: the M blocked in netpoll
	 * until pollUntil. Under lock. */
	struct m *timerm;
	volatile uint32_t nstalled;	/* cores the watchdog found stuck */
	volatile uint64_t watchdog_last; /* nanotime of the last check */
	/* When findrunnable next does its periodic work (g0_periodic: the
	 * watchdog, stuck Ps' timers, schedtrace); 0: at every round. */
	volatile uint64_t g0work_due;
	volatile uint64_t nwatchdog;	/* stalls reported */
	uint32_t nprocs;		/* Go's gomaxprocs; changed only with the
					 * world stopped (procresize) */
	uint32_t maxprocs;		/* the most Ps there have been */
	uint32_t mcount;		/* Ms made (one per core, never fewer
					 * than nprocs); under lock */
	/* A stop-the-world is under way (Go's gcwaiting): every M with a P
	 * hands it in at its next round (gcstopm). Written under lock,
	 * read anywhere (atomic). */
	volatile uint32_t gcwaiting;
	volatile uint32_t stopwait;	/* Ps still to stop; under lock,
					 * the stopper reads it (atomic) */

	struct spinlock gfree_lock;	/* global free G list */
	struct glist gfree;

	struct spinlock allglock;	/* every G record ever made */
	struct g *allgs;
	uint32_t allglen;

	volatile uint64_t goidgen;	/* last goid handed out (atomic) */
};

extern struct schedt sched;

/* gQueue and gList (sched/gqueue.h), inline: every switch goes through
 * them. Here because they need struct g. */
static inline void gqueue_push(struct gqueue *q, struct g *gp)
{
	gp->schedlink = q->head;
	q->head = gp;
	if (q->tail == NULL)
		q->tail = gp;
	q->size++;
}

static __always_inline void gqueue_pushback(struct gqueue *q, struct g *gp)
{
	gp->schedlink = NULL;
	if (q->tail != NULL)
		q->tail->schedlink = gp;
	else
		q->head = gp;
	q->tail = gp;
	q->size++;
}

static inline struct g *gqueue_pop(struct gqueue *q)
{
	struct g *gp = q->head;
	if (gp != NULL) {
		q->head = gp->schedlink;
		if (q->head == NULL)
			q->tail = NULL;
		q->size--;
		gp->schedlink = NULL;
	}
	return gp;
}

static inline void glist_push(struct glist *l, struct g *gp)
{
	gp->schedlink = l->head;
	/* Atomic store (a plain mov): gfget peeks at sched.gfree.head
	 * without the lock. */
	__atomic_store_n(&l->head, gp, __ATOMIC_RELAXED);
	/* Atomic store (a plain one): num_goroutine reads the size
	 * without the lock. */
	__atomic_store_n(&l->size, l->size + 1, __ATOMIC_RELAXED);
}

static inline struct g *glist_pop(struct glist *l)
{
	struct g *gp = l->head;
	if (gp != NULL) {
		__atomic_store_n(&l->head, gp->schedlink, __ATOMIC_RELAXED);
		__atomic_store_n(&l->size, l->size - 1, __ATOMIC_RELAXED);	/* as glist_push */
		gp->schedlink = NULL;
	}
	return gp;
}

_Static_assert(waitReasonCount <= 256, "g->waitreason is a byte");
_Static_assert(offsetof(struct g, argbuf) % 64 == 0 &&
	       sizeof(struct g) == offsetof(struct g, argbuf) + 64,
	       "go_copy's copy fills the record's last line");

/* switch.S reaches g->m->g0 by these offsets, and switch code reads a
 * G's head (kernel/gobuf.h). */
_Static_assert(offsetof(struct g, sched) == 0, "gobuf first in struct g");
_Static_assert(offsetof(struct g, m) == G_M, "G_M");
_Static_assert(offsetof(struct m, g0) == M_G0, "M_G0");
_Static_assert(offsetof(struct g, m) == offsetof(struct g_head, m) &&
	       offsetof(struct g, stack_lo) == offsetof(struct g_head, stack_lo) &&
	       offsetof(struct g, stack_hi) == offsetof(struct g_head, stack_hi),
	       "struct g_head");

#endif
