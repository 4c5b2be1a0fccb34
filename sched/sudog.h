/*
 * sudog: a G waiting in a queue, as in Go's runtime2.go. Channels (send and
 * receive queues), select, semaphores and the notify lists of sync.Cond all
 * queue sudogs, never Gs, because one G may wait on several queues at once
 * (select) and the same G may appear in many queues over time.
 *
 * Where gmk departs from Go: a sudog lives on the waiting G's own stack
 * (a local of chan_send, semacquire, ...), not in a per-P cache. Go cannot
 * do that because its stacks move when they grow; gmk's stacks are fixed,
 * so the memory is valid exactly as long as the G is blocked, which is as
 * long as the sudog is queued. The per-wait state Go keeps in struct g
 * (param, selectDone, waiting) lives in the same places: `success` in the
 * sudog, the select's done flag and fired case in a struct selectwait on
 * the selecting G's stack. struct g stays the scheduler's.
 *
 * Rule that follows: once a waker has made the G runnable (goready), it
 * must not touch the sudog again; the G may already have returned.
 */
#ifndef GMK_SCHED_SUDOG_H
#define GMK_SCHED_SUDOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/console.h"
#include "kernel/glocal.h"
#include "kernel/spinlock.h"
#include "sched/sched.h"

struct hchan;

/* One select statement's shared wait state (Go's g.selectDone + g.param).
 * Every sudog of the select points at it. */
struct selectwait {
	volatile uint32_t done;		/* 0 -> 1 by the one waker that wins (CAS) */
	struct sudog *fired;		/* the sudog that winner dequeued */
};

struct sudog {
	struct g *g;
	struct sudog *next;		/* in a waitq / semaphore bucket */
	struct sudog *prev;
	void *elem;			/* chan: value to send / slot to fill */
	struct hchan *c;		/* chan: the channel waited on */
	struct selectwait *sel;		/* non-NULL: part of a select */
	struct sudog *waitlink;		/* select: next sudog of the same G */
	void *addr;			/* sema: the semaphore waited on */
	uint32_t ticket;		/* sema: 1 = handed off; cond: ticket */
	bool success;			/* chan: woken by a value, not by close */
};

/* FIFO of sudogs (Go's waitq). Protected by the lock of its owner. */
struct waitq {
	struct sudog *first;
	struct sudog *last;
};

/* sg at the tail of q. */
static inline void waitq_enqueue(struct waitq *q, struct sudog *sg)
{
	sg->next = NULL;
	sg->prev = q->last;
	if (q->last)
		q->last->next = sg;
	else
		q->first = sg;
	q->last = sg;
}

/* sg at the head of q, before every other waiter. */
static inline void waitq_push(struct waitq *q, struct sudog *sg)
{
	sg->prev = NULL;
	sg->next = q->first;
	if (q->first)
		q->first->prev = sg;
	else
		q->last = sg;
	q->first = sg;
}

/* Unlink sg if it is still queued (Go's dequeueSudoG). A sudog that a
 * waker already popped has prev == NULL and is not q->first. */
static inline void waitq_remove(struct waitq *q, struct sudog *sg)
{
	struct sudog *x = sg->prev, *y = sg->next;

	if (x) {
		if (y) {
			x->next = y;
			y->prev = x;
			sg->next = NULL;
		} else {
			x->next = NULL;
			q->last = x;
		}
		sg->prev = NULL;
		return;
	}
	if (y) {
		y->prev = NULL;
		q->first = y;
		sg->next = NULL;
		return;
	}
	if (q->first == sg) {
		q->first = NULL;
		q->last = NULL;
	}
}

/* A line the running G (not g0) has begun goes out before it waits (a
 * prompt before a read): kernel/console.c. Begun: bytes in it, not just
 * a buffer (a G keeps its buffer from its first printf on, and would
 * otherwise call out at every park). gopark's and goparkunlock_spin's. */
static __always_inline void gopark_line(struct g *gp)
{
	struct console_gline *line = glocal_of(gp->stack_hi)->line;
	if (unlikely(line && line->len))
		glocal_park();
}

/* goparkunlock_spin, which parks a G holding a spinlock that guards
 * its sudog, is schedimpl.h's. */

#endif
