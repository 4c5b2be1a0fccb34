/*
 * Timers, after Go's time.go: each P keeps its timers in a 4-ary min-heap
 * ordered by deadline, and its M runs the due ones from the scheduler
 * (findrunnable), on g0. Another P runs them instead when their own P is
 * busy or idle (stealwork's last pass; an idle core woken by the deadline).
 *
 *   timer_init(t, f, arg)   f(arg) is what firing does; run on g0 with a
 *                           P, so it may goready but must not block (one
 *                           that parks is a fatal error naming f)
 *   timer_start(t, when)    arm t for nanotime() >= when, on this P;
 *                           a when at or past TIME_NEVER never comes:
 *                           t is pending and never fires
 *   timer_stop(t)           disarm; true if t was pending (then f will
 *                           not run for it)
 *   timer_reset(t, when)    stop + start; true if t was pending
 *
 * A struct timer is owned by its user and may live on a G's stack (sleep
 * does that): the heap only points at it while it is pending.
 */
#ifndef GMK_SCHED_TIMER_H
#define GMK_SCHED_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/spinlock.h"

struct p;

struct timer {
	uint64_t when;			/* deadline, nanotime(); valid while pending */
	void (*f)(void *arg);
	void *arg;
	const char *fname;		/* f as timer_init's caller wrote it */
	struct p *volatile pp;		/* heap it is in; NULL = not pending */
	uint32_t idx;			/* index in pp's heap (under its lock) */
};

/* A P's timers. heap[0] is the earliest; when0 mirrors heap[0]->when (0 =
 * empty, or only timers that never fire) so that other cores can peek
 * without the lock. */
struct timers {
	struct spinlock lock;
	struct timer **heap;		/* kmalloc'd array of `cap` slots */
	uint32_t len, cap;
	volatile uint32_t running;	/* someone is firing this heap's timers */
	volatile uint64_t when0;	/* earliest deadline, 0 = none or
					 * TIME_NEVER (atomic) */
	uint64_t nfired;		/* timers fired from this heap */
};

/* timer_init records f's name as written, so that a callback that blocks
 * can be named on every board (the kernel has no symbol table). */
#define timer_init(t, f, arg) timer_init_named((t), (f), (arg), #f)
void timer_init_named(struct timer *t, void (*f)(void *), void *arg, const char *fname);
void timer_start(struct timer *t, uint64_t when);
bool timer_stop(struct timer *t);
bool timer_reset(struct timer *t, uint64_t when);

/* Park the running G for at least ns nanoseconds; for good if that is
 * past the end of time (TIME_NEVER). */
void sleep_ns(uint64_t ns);

/* ---- for the scheduler (sched/) ---- */
/* A G switch was asked for on g0 (gopark, mcall): if a timer callback is
 * running there, the fatal error naming it; else returns. */
void timer_callback_blocked_check(void);
/* Fire pp's due timers (caller has a P); returns how many fired. */
uint32_t timers_run(struct p *pp, uint64_t now);
/* Earliest deadline of pp's heap, 0 = none that will ever come
 * (lock-free peek). */
uint64_t timers_when0(struct p *pp);
uint32_t timers_len(struct p *pp);	/* lock-free peek */
/* Every timer of `from` into `to`'s heap (procresize, world stopped). */
void timers_move(struct p *from, struct p *to);

#endif
