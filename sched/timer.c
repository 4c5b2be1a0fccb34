/*
 * Per-P timer heaps and sleep, after Go's time.go.
 *
 * Each P's pending timers are a 4-ary min-heap on `when` (Go's choice: a
 * shallower tree than a binary heap, so sifting touches fewer cache lines
 * and the four children share one or two). A timer records its P and its
 * index, so stopping or resetting it is O(log n) without a search.
 *
 * Who fires a timer: the M holding its P, from findrunnable, on g0; or,
 * when that P is busy with a G that does not yield or has no M at all,
 * another M (stealwork's last pass, an idle core woken by the deadline).
 * Firing is serialised per heap (`running`), so one heap's timers fire in
 * deadline order. The callback runs without the heap lock, on g0 with a P.
 *
 * gmk departs from Go's current design in two places, for simplicity:
 * a pending timer is in exactly one heap and is modified in place there
 * (Go marks it and lets the owner fix the heap up lazily), and a timer is
 * only a callback: channel timers (Go's isChan) are a layer above, in
 * sched/timechan.c.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/ipi.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "sched/schedimpl.h"
#include "sched/tracebuf.h"

/* 4-ary heap: children of i are 4i+1 .. 4i+4, its parent (i-1)/4. */
#define HEAP_ARITY	4
#define HEAP_MIN_CAP	16

void timer_init_named(struct timer *t, void (*f)(void *), void *arg, const char *fname)
{
	memset(t, 0, sizeof *t);
	t->f = f;
	t->arg = arg;
	t->fname = fname;
}

/* ---- the heap; caller holds ts->lock --------------------------------- */

static inline void heap_set(struct timers *ts, uint32_t i, struct timer *t)
{
	ts->heap[i] = t;
	t->idx = i;
}

static void siftup(struct timers *ts, uint32_t i)
{
	struct timer *t = ts->heap[i];
	while (i > 0) {
		uint32_t parent = (i - 1) / HEAP_ARITY;
		if (ts->heap[parent]->when <= t->when)
			break;
		heap_set(ts, i, ts->heap[parent]);
		i = parent;
	}
	heap_set(ts, i, t);
}

static void siftdown(struct timers *ts, uint32_t i)
{
	struct timer *t = ts->heap[i];
	for (;;) {
		uint32_t c = i * HEAP_ARITY + 1;
		if (c >= ts->len)
			break;
		uint32_t best = c;
		uint32_t end = c + HEAP_ARITY < ts->len ? c + HEAP_ARITY : ts->len;
		for (uint32_t k = c + 1; k < end; k++)
			if (ts->heap[k]->when < ts->heap[best]->when)
				best = k;
		if (t->when <= ts->heap[best]->when)
			break;
		heap_set(ts, i, ts->heap[best]);
		i = best;
	}
	heap_set(ts, i, t);
}

/* when0 is 0 too when the earliest timer never fires (TIME_NEVER): none
 * of this heap's timers can fire, so no core arms for them, the firers
 * pass the heap by, and checkdead sees nothing that could wake a G. */
static void update_when0(struct timers *ts)
{
	uint64_t w = ts->len ? ts->heap[0]->when : 0;
	/* store-release: a core that sees the deadline and takes the lock
	 * finds the heap as it was then or newer. */
	w = w < TIME_NEVER ? w : 0;
	atomic_store64(&ts->when0, w);
	/* The owner's round looks at when0 while this is set (a P's
	 * timers are its struct p's). */
	struct p *pp = (struct p *)((char *)ts - __builtin_offsetof(struct p, timers));
	if (pp->attn.timers != (w != 0))
		p_attn_set(pp, PATTN_TIMERS, w != 0);
}

static void heap_grow(struct timers *ts)
{
	uint32_t cap = ts->cap ? ts->cap * 2 : HEAP_MIN_CAP;
	struct timer **h = kmalloc(cap * sizeof *h);
	if (ts->len)
		memcpy(h, ts->heap, ts->len * sizeof *h);
	kfree(ts->heap);
	ts->heap = h;
	ts->cap = cap;
}

static void heap_add(struct timers *ts, struct timer *t)
{
	if (ts->len == ts->cap)
		heap_grow(ts);
	heap_set(ts, ts->len++, t);
	siftup(ts, t->idx);
}

static void heap_remove(struct timers *ts, struct timer *t)
{
	uint32_t i = t->idx;
	uint32_t last = --ts->len;
	if (i != last) {
		struct timer *moved = ts->heap[last];
		heap_set(ts, i, moved);
		siftdown(ts, i);
		siftup(ts, moved->idx);
	}
	ts->heap[last] = NULL;
}

/* ---- telling a core about an earlier deadline ------------------------ */

/*
 * pp's earliest deadline became `when`. Make sure some core wakes for it:
 * pp's own core if it runs pp (this one: re-arm; another: an IPI makes it
 * re-arm, see sched_ipi_wake), or, if pp is idle, a halted core whose
 * deadline is later (an IPI makes it recompute its deadline in stopm).
 */
static void timers_notify(struct p *pp, uint64_t when)
{
	struct cpu *me = this_cpu();
	struct m *mp = getm();
	if (mp->p == pp) {
		if (me->timer_deadline_ns == 0 || when < me->timer_deadline_ns)
			timer_set_deadline(when);
		timers_notify_keeper(when);
		return;
	}
	/*
	 * StoreLoad: our caller stored the new when0; the owner's timer
	 * interrupt stores 0 to its deadline and then reads when0
	 * (kernel_timer_interrupt). A full barrier on both sides, as in
	 * Go's StoreLoad pairs: either we read its deadline as 0 (or as
	 * one it computed from the new when0) and act, or its tick sees
	 * our when0. An IPI on every reset would be simpler but costs one
	 * interrupt per timer on a busy core.
	 */
	smp_mb();
	struct m *owner = (struct m *)atomic_loaduintptr((volatile uintptr_t *)&pp->m);
	if (owner && atomic_load32(&pp->status) == _Prunning) {
		uint64_t d = atomic_load64(&owner->cpu->timer_deadline_ns);
		if (d == 0 || when < d)
			ipi_send(owner->cpu->id, IPI_WAKE);
		timers_notify_keeper(when);
		return;
	}
	/* pp is idle: its timers are the idle time-keeper's (proc.c). */
	spin_lock(&sched.lock);
	timers_notify_idle_locked(when);
	spin_unlock(&sched.lock);
}

/* ---- the API ----------------------------------------------------------- */

/* A deadline as the heap keeps it: 0 means "no deadline" in when0, and
 * one past the end of time is the end of time, which never comes. */
static uint64_t timer_when(uint64_t when)
{
	if (when == 0)
		return 1;
	return when < TIME_NEVER ? when : TIME_NEVER;
}

void timer_start(struct timer *t, uint64_t when)
{
	if (t->f == NULL)
		panic("timer_start: timer not initialised");
	when = timer_when(when);
	preempt_disable();	/* "this P" must stay this P */
	struct p *pp = getm()->p;
	struct timers *ts = &pp->timers;
	spin_lock(&ts->lock);
	if (t->pp)
		panic("timer_start: timer already pending");
	t->when = when;
	heap_add(ts, t);
	/* store-release: pp is published with t in the heap. */
	atomic_storeuintptr((volatile uintptr_t *)&t->pp, (uintptr_t)pp);
	bool first = t->idx == 0 && when != TIME_NEVER;	/* never: nobody wakes */
	update_when0(ts);
	spin_unlock(&ts->lock);
	if (first)
		timers_notify(pp, when);
	preempt_enable();
}

/* Lock the heap t is in and return its P, or NULL if t is not pending. */
static struct p *timer_lock(struct timer *t)
{
	for (;;) {
		struct p *pp = (struct p *)atomic_loaduintptr((volatile uintptr_t *)&t->pp);
		if (!pp)
			return NULL;
		spin_lock(&pp->timers.lock);
		if (t->pp == pp)
			return pp;
		spin_unlock(&pp->timers.lock);	/* fired or moved: look again */
	}
}

bool timer_stop(struct timer *t)
{
	struct p *pp = timer_lock(t);
	if (!pp)
		return false;
	heap_remove(&pp->timers, t);
	t->pp = NULL;
	update_when0(&pp->timers);
	spin_unlock(&pp->timers.lock);
	return true;
}

/* Reset in place when pending (Go's modtimer keeps a timer on its P);
 * otherwise start on this P. */
bool timer_reset(struct timer *t, uint64_t when)
{
	when = timer_when(when);
	struct p *pp = timer_lock(t);
	if (!pp) {
		timer_start(t, when);
		return false;
	}
	struct timers *ts = &pp->timers;
	uint64_t old0 = ts->heap[0]->when;
	t->when = when;
	siftup(ts, t->idx);
	siftdown(ts, t->idx);
	update_when0(ts);
	bool earlier = ts->heap[0]->when < old0;
	spin_unlock(&ts->lock);
	if (earlier) {
		preempt_disable();
		timers_notify(pp, when);
		preempt_enable();
	}
	return true;
}

/*
 * Every timer of `from` into `to`'s heap, deadlines kept (Go's
 * moveTimers, from (*p).destroy). With the world stopped (procresize):
 * no G runs but the caller, so nobody else takes two heaps' locks; both
 * are held while a timer moves, so t->pp always names the heap it is in.
 * Preemption off, `to` this core's P.
 */
void timers_move(struct p *from, struct p *to)
{
	struct timers *fs = &from->timers, *ts = &to->timers;

	spin_lock(&fs->lock);
	spin_lock(&ts->lock);
	uint64_t old0 = ts->when0;	/* 0: none that fires */
	while (fs->len) {
		struct timer *t = fs->heap[fs->len - 1];
		heap_remove(fs, t);
		heap_add(ts, t);
		/* store-release, as timer_start's */
		atomic_storeuintptr((volatile uintptr_t *)&t->pp, (uintptr_t)to);
	}
	update_when0(fs);
	update_when0(ts);
	uint64_t w = ts->when0;
	spin_unlock(&ts->lock);
	spin_unlock(&fs->lock);
	/* An earlier deadline for `to`: its core (the caller's) re-arms,
	 * and the time-keeper learns of it, as after a timer_start. */
	if (w && (old0 == 0 || w < old0))
		timers_notify(to, w);
}

uint64_t timers_when0(struct p *pp)
{
	return atomic_load64(&pp->timers.when0);
}

uint32_t timers_len(struct p *pp)
{
	return __atomic_load_n(&pp->timers.len, __ATOMIC_RELAXED);
}

/*
 * timers_run fires pp's timers that are due at `now`, in deadline order.
 * On g0, with a P (callbacks goready onto it). One firer per heap at a
 * time: if another core is at it, leave them to it.
 */
uint32_t timers_run(struct p *pp, uint64_t now)
{
	struct timers *ts = &pp->timers;
	uint64_t w = timers_when0(pp);
	if (w == 0 || w > now)
		return 0;
	uint32_t n = 0;
	spin_lock(&ts->lock);
	if (ts->running) {
		spin_unlock(&ts->lock);
		return 0;
	}
	ts->running = 1;
	while (ts->len && ts->heap[0]->when <= now) {
		struct timer *t = ts->heap[0];
		heap_remove(ts, t);
		/* Copy out before dropping the lock: once it is not pending,
		 * its owner may reuse or free t (sleep's is on a G stack). */
		void (*f)(void *) = t->f;
		void *arg = t->arg;
		const char *fname = t->fname;
		atomic_storeuintptr((volatile uintptr_t *)&t->pp, 0);
		update_when0(ts);
		ts->nfired++;
		spin_unlock(&ts->lock);
		traceTimerFire(f, pp);
		/* On g0: a callback that parks or yields asks g0 to switch
		 * away, and gopark/mcall name it from here. */
		struct m *mp = getm();
		mp->timerfn = fname;
		f(arg);
		mp->timerfn = NULL;
		n++;
		spin_lock(&ts->lock);
	}
	ts->running = 0;
	spin_unlock(&ts->lock);
	return n;
}

void timer_callback_blocked_check(void)
{
	const char *fname = getm()->timerfn;
	if (fname)
		fatal("timer callback %s blocked (callbacks run on the scheduler "
		      "and must not park)", fname);
}

/* ---- sleep --------------------------------------------------------------- */

static void sleep_wake(void *arg)
{
	goready((struct g *)arg);
}

/* gopark's unlock function: start the timer only once the G is parked,
 * so that it cannot fire and goready a G that is still running. */
static bool sleep_park(struct g *gp, void *tp)
{
	struct timer *t = tp;
	timer_start(t, t->when);
	return true;
}

/* A sleep past the end of time parks with no timer: none could fire, and
 * the G is as blocked as one on a nil channel (checkdead counts it so). */
void sleep_ns(uint64_t ns)
{
	struct timer t;
	timer_init(&t, sleep_wake, getg());
	t.when = time_when(ns);
	if (ns == 0) {
		gosched();
		return;
	}
	gopark(t.when == TIME_NEVER ? NULL : sleep_park, &t, waitReasonSleep);
}
