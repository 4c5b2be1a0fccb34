/*
 * The scheduler's interface: the run queues (sched/runq.c, sched/globrunq.c)
 * and, for kernel code, starting, yielding, parking and waking Gs.
 */
#ifndef GMK_SCHED_SCHED_H
#define GMK_SCHED_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/atomic.h"
#include "kernel/compiler.h"
#include "kernel/percpu.h"
#include "sched/runtime2.h"

/* ---- local run queue (sched/runq.c); owner = the M holding pp ---- */
void runqput(struct p *pp, struct g *gp, bool next);		/* owner */
/* gp at the tail of pp's ring if there is room (runqput's common case,
 * inline for goready and go); false if the ring is full. Owner only. */
static inline bool runqput_ring(struct p *pp, struct g *gp)
{
	/* load-acquire, synchronize with consumers */
	uint32_t h = atomic_load32(&pp->runqhead);
	uint32_t t = pp->runqtail;
	if (t - h >= RUNQ_SIZE)
		return false;
	/* A relaxed atomic (see runq.c's SLOT_STORE): thieves read it. */
	__atomic_store_n(&pp->runq[t % RUNQ_SIZE], gp, __ATOMIC_RELAXED);
	/* store-release, makes the slot available to consumers */
	atomic_store32(&pp->runqtail, t + 1);
	return true;
}
/* gp to the tail of pp's ring and the G at its head out, as runqput_ring
 * and then runqget_ring, where no thief can take from the ring: no other
 * P exists (sched.nprocs 1, which changes only with the world stopped,
 * and stealing needs a P). h and t: runqhead and runqtail, as the caller
 * read them (nobody else moves them). The ring must hold a G; it may be
 * full (the head's slot is read before the tail's is written). Owner
 * only. */
static __always_inline struct g *runq_rotate_alone(struct p *pp, struct g *gp,
						   uint32_t h, uint32_t t)
{
	struct g *next = pp->runq[h % RUNQ_SIZE];
	__atomic_store_n(&pp->runq[t % RUNQ_SIZE], gp, __ATOMIC_RELAXED);
	/* store-release, as the CAS and the tail store they stand for:
	 * other cores read the ring's length (ps, the watchdog). */
	atomic_store32(&pp->runqhead, h + 1);
	atomic_store32(&pp->runqtail, t + 1);
	return next;
}
/* gp into runnext; returns the G it displaced (NULL if none), which the
 * caller puts on the ring (runqput(pp, old, false)). Owner only. An
 * atomic exchange, not a store: a thief may be taking runnext right now,
 * and the G it takes must not also come back here as the displaced one.
 * Go's runqput loops on a CAS of what it loaded; one exchange is the same
 * swap (x86-64: one xchg instead of a load and a cmpxchg). Inline: every
 * goready and go starts here. */
static inline struct g *runnext_swap(struct p *pp, struct g *gp)
{
	return (struct g *)atomic_xchguintptr(&pp->runnext, (uintptr_t)gp);
}
bool runqputslow(struct p *pp, struct g *gp, uint32_t h, uint32_t t); /* owner */
/* What runqputslow relies on, as a reason, or NULL when it holds: the
 * caller owns pp (only the owner writes slots) and cannot be moved off
 * it (preemption off, or on g0). runqputslow checks it in the debug
 * builds (GMK_DEBUG_ASSERTS: SAN=debug, tsan, asan). */
const char *runq_owner_violation(const struct p *pp);
void runqputbatch_slow(struct p *pp, struct gqueue *q);	/* owner */
/* Puts the Gs of the chain from gp in the slots [from, to) of a ring, in
 * order; returns the G after the last put. A relaxed atomic store (see
 * runq.c's SLOT_STORE): thieves read the slots. A G's schedlink is left
 * as it is: nothing reads the link of a G on a ring. Owner only. */
static __always_inline struct g *chain_to_slots(struct g *gp, struct g **from, struct g **to)
{
	for (; from < to; from++) {
		__atomic_store_n(from, gp, __ATOMIC_RELAXED);
		gp = gp->schedlink;
	}
	return gp;
}

/*
 * runqputchain puts a chain of n Gs (linked by schedlink, NULL-terminated;
 * tail is its last G, or NULL if the caller does not know it) on pp's
 * local queue; what does not fit goes to the global queue. Owner only.
 * Inline for the common case, a batch that fits (findrunnable's global
 * batch, every other gosched at 1 P); runqputbatch_slow spills the rest.
 */
static __always_inline void runqputchain(struct p *pp, struct g *head, struct g *tail, int32_t n)
{
	/* load-acquire, synchronize with consumers */
	uint32_t h = atomic_load32(&pp->runqhead);
	uint32_t t = pp->runqtail;
	if (unlikely((uint32_t)n > RUNQ_SIZE - (t - h))) {
		struct gqueue q = { head, tail, n };
		if (!q.tail)
			for (q.tail = head; q.tail->schedlink; q.tail = q.tail->schedlink)
				;
		runqputbatch_slow(pp, &q);
		return;
	}
	for (struct g *gp = head; gp != NULL;) {
		struct g *next = gp->schedlink;
		gp->schedlink = NULL;
		/* A relaxed atomic (see runq.c's SLOT_STORE): thieves read it. */
		__atomic_store_n(&pp->runq[t % RUNQ_SIZE], gp, __ATOMIC_RELAXED);
		t++;
		gp = next;
	}
	/* store-release, makes the items available to consumers */
	atomic_store32(&pp->runqtail, t);
}
/* runqputbatch: runqputchain for the Gs of q, which is empty afterwards. */
static inline void runqputbatch(struct p *pp, struct gqueue *q)
{
	if (q->head)
		runqputchain(pp, q->head, q->tail, q->size);
	*q = (struct gqueue){ 0 };
}
/* runqget's first half: the G in pp's runnext, taken, or NULL. Owner
 * only (a thief's take is runqgrab's). */
static __always_inline struct g *runnext_get(struct p *pp)
{
	/* A plain read in Go; a load-acquire here so that the C memory model
	 * (and TSAN) agree it races only with other atomics. */
	uintptr_t next = atomic_loaduintptr(&pp->runnext);
	/* Go CASes next to 0; a thief that took it meanwhile fails that CAS.
	 * runnext can only become nonzero again through the owner, which is
	 * us, so an exchange with 0 is the same: it returns next, or 0 if a
	 * thief was first (one instruction on x86-64, no compare). */
	if (next != 0)
		return (struct g *)atomic_xchguintptr(&pp->runnext, 0);
	return NULL;
}
/* runqget's second half: the G at the head of pp's ring, or NULL. Owner
 * only. */
static __always_inline struct g *runqget_ring(struct p *pp)
{
	for (;;) {
		/* load-acquire, synchronize with other consumers */
		uint32_t h = atomic_load32(&pp->runqhead);
		uint32_t t = pp->runqtail;
		if (t == h)
			return NULL;
		/* A relaxed atomic (see runq.c's SLOT_LOAD): the owner may be
		 * overwriting a slot a failed CAS then throws away. */
		struct g *gp = __atomic_load_n(&pp->runq[h % RUNQ_SIZE], __ATOMIC_RELAXED);
		/* cas-release, commits consume */
		if (atomic_casrel32(&pp->runqhead, h, h + 1))
			return gp;
	}
}
/*
 * runqget takes a G from pp's local queue: runnext first, then the head.
 * *inherit_time (if not NULL) says whether the G should inherit the rest of
 * the current time slice (runnext) or start a new one. Owner only. Inline:
 * findrunnable's common case.
 */
static __always_inline struct g *runqget(struct p *pp, bool *inherit_time)
{
	struct g *gp = runnext_get(pp);
	if (inherit_time)
		*inherit_time = gp != NULL;
	return gp ? gp : runqget_ring(pp);
}
void runqdrain(struct p *pp, struct gqueue *out);		/* owner */
uint32_t runqgrab(struct p *pp, struct g **batch, uint32_t batch_head,
		  bool steal_runnext);				/* any core */
struct g *runqsteal(struct p *pp, struct p *p2, bool steal_runnext); /* owner of pp */
bool runqempty(struct p *pp);					/* any core */

/*
 * ---- global run queue (sched/globrunq.c); caller holds sched.lock ----
 * globrunqput and globrunqgetbatch are inline: gosched and findrunnable
 * use them on every switch that goes through the global queue.
 */
void globrunqputhead(struct g *gp);
void globrunqputbatch(struct gqueue *batch);
struct g *globrunqget(void);
__cold __attribute__((noreturn)) void globrunq_unlocked(void);

/* Lock-free peek (may be stale): worth taking sched.lock to look? */
static __always_inline bool globrunqempty(void)
{
	return atomic_load32(&sched.runqsize) == 0;
}

/* Publish the size for globrunqempty(): store-release, so a core that sees
 * it nonzero and then takes the lock finds the Gs. */
static __always_inline void globrunq_publish_size(void)
{
	atomic_store32(&sched.runqsize, (uint32_t)sched.runq.size);
}

static __always_inline void assert_sched_locked(void)
{
#ifdef GMK_DEBUG_ASSERTS
	/* Only in the sanitizer builds (make test boots them): the callers
	 * take the lock in plain sight, a line or two above, and the check
	 * would cost every gosched a few instructions. Go's assertLockHeld
	 * is likewise empty unless lock ranking is built in.
	 */
	if (unlikely(!spin_held(&sched.lock)))
		globrunq_unlocked();
#endif
}

/* globrunqput puts gp at the tail of the global queue. */
static __always_inline void globrunqput(struct g *gp)
{
	assert_sched_locked();
	gqueue_pushback(&sched.runq, gp);
	globrunq_publish_size();
}

/* How many Gs a take of up to max Gs from the global queue takes:
 * min(max, size, size/nprocs + 1), the size/nprocs term leaving the
 * other Ps their share; 0 when the queue is empty. */
static __always_inline int32_t globrunq_take_n(int32_t max)
{
	int32_t size = sched.runq.size;
	int32_t n = size;
	if (sched.nprocs > 1) {		/* at 1 P, no division */
		n = size / (int32_t)sched.nprocs + 1;
		if (n > size)
			n = size;
	}
	if (n > max)			/* max >= 1, so n >= 1 if size is */
		n = max;
	return n;
}

/* Detaches the first n (globrunq_take_n) Gs of the global queue as one
 * chain: the whole queue as it is (at 1 P, every other gosched), or a
 * walk to the n-th. Returns the first (NULL for n = 0), the rest as
 * globrunqgetchain says. */
static __always_inline struct g *globrunq_detach(int32_t n, struct g **rest, int32_t *nrest)
{
	int32_t size = sched.runq.size;
	if (n == 0) {
		*rest = NULL;
		*nrest = 0;
		return NULL;
	}
	struct g *gp = sched.runq.head;
	if (n == size) {
		sched.runq.head = sched.runq.tail = NULL;	/* tail's link is NULL */
		sched.runq.size = 0;
	} else {
		struct g *last = gp;
		for (int32_t i = 1; i < n; i++)
			last = last->schedlink;
		sched.runq.head = last->schedlink;		/* not NULL: n < size */
		sched.runq.size = size - n;
		last->schedlink = NULL;
	}
	*rest = gp->schedlink;
	*nrest = n - 1;
	gp->schedlink = NULL;
	globrunq_publish_size();
	return gp;
}

/*
 * globrunqgetchain takes globrunq_take_n(max) Gs. It returns the first
 * (NULL if the queue is empty) and the rest as a chain: *rest, linked by
 * schedlink and NULL-terminated, *nrest Gs, which the caller puts on its
 * local queue (runqputchain) after dropping the lock.
 */
static __always_inline struct g *globrunqgetchain(int32_t max, struct g **rest, int32_t *nrest)
{
	assert_sched_locked();
	return globrunq_detach(globrunq_take_n(max), rest, nrest);
}

/*
 * globrunqget_runq: globrunqgetchain for a P that puts the rest on its own
 * local queue. When the take leaves Gs behind (n < size), the walk that
 * finds where to cut puts each G it passes on pp's ring, under the lock:
 * a cut first and the puts after the unlock would walk the Gs twice, and
 * the first walk, the one under the lock, reads every G's (cold) record
 * either way. A take of the whole queue is detached as one chain without
 * a walk, for the caller to put after the unlock (*rest, *nrest as
 * globrunqgetchain's; NULL and 0 when the Gs are on the ring already).
 * Go's globrunqgetbatch pops them under the lock into a gQueue, and
 * findRunnable puts them on the ring after the unlock (runqputbatch).
 * Owner of pp only; n shrinks to what its ring has room for.
 */
static __always_inline struct g *globrunqget_runq(struct p *pp, int32_t max, struct g **rest,
						  int32_t *nrest)
{
	assert_sched_locked();
	int32_t size = sched.runq.size;
	int32_t n = globrunq_take_n(max);
	if (n == size)
		return globrunq_detach(n, rest, nrest);	/* whole, or empty */

	/* load-acquire, synchronize with consumers */
	uint32_t h = atomic_load32(&pp->runqhead);
	uint32_t t = pp->runqtail;
	uint32_t room = RUNQ_SIZE - (t - h);
	if ((uint32_t)n - 1 > room)
		n = (int32_t)room + 1;
	struct g *gp = sched.runq.head;
	/* The n - 1 slots from t: one run of the ring, or two where it
	 * wraps. */
	uint32_t i0 = t % RUNQ_SIZE, i1 = i0 + (uint32_t)n - 1;
	struct g *next;
	if (i1 <= RUNQ_SIZE) {
		next = chain_to_slots(gp->schedlink, &pp->runq[i0], &pp->runq[i1]);
	} else {
		next = chain_to_slots(gp->schedlink, &pp->runq[i0], &pp->runq[RUNQ_SIZE]);
		next = chain_to_slots(next, &pp->runq[0], &pp->runq[i1 - RUNQ_SIZE]);
	}
	/* store-release, makes the items available to consumers */
	atomic_store32(&pp->runqtail, t + (uint32_t)n - 1);
	sched.runq.head = next;		/* not NULL: n < size */
	sched.runq.size = size - n;
	gp->schedlink = NULL;
	*rest = NULL;
	*nrest = n - 1;
	globrunq_publish_size();
	return gp;
}

/* globrunqgetchain with the rest appended to the queue *q. */
static inline struct g *globrunqgetbatch(int32_t max, struct gqueue *q)
{
	struct g *rest;
	int32_t nrest;
	struct g *gp = globrunqgetchain(max, &rest, &nrest);
	if (nrest > 0) {
		struct g *last = rest;
		while (last->schedlink)
			last = last->schedlink;
		struct gqueue chain = { rest, last, nrest };
		gqueue_pushbackall(q, &chain);
	}
	return gp;
}
/* Largest batch findrunnable takes from the global queue (half a ring). */
#define GLOBRUNQ_BATCH_MAX ((int32_t)(RUNQ_SIZE / 2))
/* Every 61st schedtick a P takes one G from the global queue before its
 * own, so that two Gs respawning each other locally cannot starve it. 61
 * is Go's choice: prime, so it does not fall into step with the
 * application's own periods. */
#define GLOBRUNQ_FAIRNESS_TICKS 61

/* ---- goroutines (kernel only) ---- */
#define G_STACK_DEFAULT (16 * 1024)	/* bytes, without the guard page */
/* Default-size stacks, each with its guard page, are allocated this many
 * at a time and handed out one by one (sched/stack.c says why). */
#define G_STACK_BATCH 16
/* go_stack with at most this many bytes gets a small stack: a piece of a
 * page from a pool, no guard page of its own, an overflow caught by a
 * canary at the G's next switch or at the guard page below its run of
 * pool pages (sched/stack.c). Go's initial stack size. */
#define G_STACK_SMALL 2048
/* Pages in a run of pool pages, the lowest of them the run's guard. */
#define STACK_POOL_RUN_PAGES 32
/* The smallest stack class (a quarter page): enough for a G that parks
 * on a channel or lock a few calls deep (the parked benchmark measures
 * its deepest use), not for one that calls printf or is preempted deep
 * in a call chain (an asynchronous preemption copies the whole register
 * frame, FP/SIMD included, onto the G's stack; without room for it the
 * G is preempted at its next safe point instead). */
#define G_STACK_MIN 1024
/* Deepest use of gp's small stack so far, in bytes, from its painting
 * (0 for a stack that is not a pool stack). For measurements. */
struct g;
size_t stack_small_used(const struct g *gp);
/* Bytes one G record costs (sizeof(struct g), rounded to 16). */
size_t g_record_bytes(void);
/* Bytes of pages holding G records so far (they are never freed). */
uint64_t g_record_pages_bytes(void);

/* Start fn(arg) in a new G (Go's newproc). Returns its goid. */
uint64_t go(void (*fn)(void *), void *arg);
uint64_t go_stack(void (*fn)(void *), void *arg, long stack_bytes);
/*
 * Start fn with a copy of the `size` bytes at arg, made before go_copy
 * returns and living exactly as long as the new G: fn gets a pointer to
 * the copy, so the caller's variable may change or go out of scope at
 * once (Go's `go f(x)` evaluates x then). Up to G_ARG_INLINE (64) bytes
 * the copy is in the G's record and costs no allocation; a bigger one is
 * kmalloc'd and freed when the G exits. size 0 passes NULL.
 *
 *   struct job j = { in, out, i };
 *   go_copy(worker, &j, sizeof j);
 *   go_value(worker, struct job, .in = in, .out = out, .id = i);   the same
 */
uint64_t go_copy(void (*fn)(void *), const void *arg, size_t size);
uint64_t go_copy_stack(void (*fn)(void *), const void *arg, size_t size, long stack_bytes);
#define go_value(fn, type, ...) go_copy((fn), &(type){ __VA_ARGS__ }, sizeof(type))
/* The goroutines that exist now, the caller included (Go's
 * runtime.NumGoroutine): exact while none starts or exits, otherwise a
 * recent count. */
int num_goroutine(void);
/*
 * Go's runtime.GOMAXPROCS(n): the number of Ps becomes n and the old one
 * is returned; n <= 0 only asks. The world is stopped for the change
 * (every other P handed in, as in Go); Ps removed give their runnable Gs
 * to the global queue and their timers and free Gs to the caller's P, and
 * their cores halt until a P is free for them. n over the cores online is
 * refused with a message (the count stays).
 */
int gomaxprocs(int n);
/*
 * Go's runtime.LockOSThread, with a core for the thread: from the call on
 * the running G runs only on the core it runs on now, and gets that core
 * as soon as it is runnable (the G there is preempted, keeping the rest
 * of its slice). The core runs other Gs while the locked one waits. Calls
 * nest: unlockosthread undoes one (more is a no-op, as in Go); a G that
 * exits locked ends its lock. lockedcore: the core the caller is locked
 * to, -1 if none. sched/proc.c, docs/programs.md.
 */
void lockosthread(void);
void unlockosthread(void);
int lockedcore(void);
void gosched(void);				/* yield to the global queue */
__attribute__((noreturn)) void goexit(void);	/* end the running G */
/* Park the running G; unlockf(gp, lock) runs on g0 after the switch and
 * may return false to resume the G at once. NULL unlockf = just park. */
void gopark(bool (*unlockf)(struct g *, void *), void *lock,
	    enum waitreason reason);
void goready(struct g *gp);			/* _Gwaiting -> runnext here */
/* The running G: one load from a per-core register (arch_getg). Inline:
 * the scheduler asks for it several times per switch. */
static inline struct g *getg(void) { return (struct g *)arch_getg(); }
uint64_t goid(void);				/* of the running G */

/* ---- for tests and programs ---- */
void schedtrace_print(void);		/* one SCHED line + per-P counters */
void sched_print_goroutines(void);	/* goid, status, wait reason */
/* One P's counters since boot, for programs (include/gmk.h; the demos):
 * a copy of struct p's. */
struct sched_pstats {
	uint64_t nrun;			/* Gs it ran */
	uint64_t nsteal;		/* Gs it stole from other Ps */
	uint64_t nglobget;		/* Gs it took from the global queue */
	uint64_t nrunnext;		/* Gs it ran from runnext */
};
/* false, *st untouched, when there is no P id now (sched_p). */
bool sched_pstats(uint32_t id, struct sched_pstats *st);
struct p *sched_p(uint32_t id);		/* allp[id], for its counters */
uint32_t sched_nprocs(void);
/* Stuck cores the scheduler's watchdog has reported (sched/proc.c). */
uint64_t sched_watchdog_reports(void);
/* The watchdog's words for where a stuck core was last seen: the PC its
 * last tick interrupted (last_tick_ns != 0), or that it never ticked. */
const char *sched_watchdog_last_seen(char *buf, size_t n, uint64_t last_tick_ns,
				     uintptr_t last_tick_pc);
uint64_t sched_seed(void);		/* seed= or a boot-time value */
/* Free the stacks cached with dead Gs (this P's and the global list), as
 * Go's GC does, and the unused stacks of the last default-size batch; the
 * benchmarks' memory figures call it first. */
void gfree_release_stacks(void);
/* The preemption time slice in force: the command line's or a test's
 * override (sched_set_slice: 0 = the command line's again; it returns
 * the override it replaces). One load: the scheduler reads it at every
 * switch. */
extern volatile uint64_t slice_cur_ns;		/* sched/preempt.c */
static inline uint64_t sched_slice_ns(void)
{
	return atomic_load64(&slice_cur_ns);
}
uint64_t sched_set_slice(uint64_t ns);

#endif
