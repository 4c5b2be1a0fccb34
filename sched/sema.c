/*
 * Semaphores keyed by address, and notify lists (Go's runtime/sema.go).
 *
 * semtable: SEMTABLESZ buckets, each a spinlock, a count of waiters and a
 * waitq of the sudogs waiting on any address that hashes there. Per address the order is FIFO (the first sudog in the list with
 * that address is the oldest), except that a lifo waiter goes to the
 * front. Go keeps a treap of addresses per bucket so that one hot bucket
 * stays O(log n); gmk scans the bucket, which is as fast for the few
 * waiters per bucket a kernel of this size sees.
 *
 * The counter lives at the caller's address and is only ever changed with
 * atomics; nwait lets semrelease skip the bucket lock when nobody waits.
 * The race between "no waiters" and a new waiter is closed the way Go
 * closes it: the waiter increments nwait under the lock and *then*
 * re-checks the counter; the releaser increments the counter and *then*
 * reads nwait (both seq-cst), so one of them sees the other.
 */
#include "kernel/atomic.h"
#include "kernel/panic.h"
#include "sched/schedimpl.h"
#include "sched/sema.h"
#include "sched/sudog.h"

#define SEMTABLESZ 251		/* prime: spreads addresses of any alignment */

struct semaroot {
	struct spinlock lock;
	struct waitq q;
	volatile uint32_t nwait;	/* waiters in this bucket (atomic) */
} __cacheline_aligned;

static struct semaroot semtable[SEMTABLESZ] = {
	[0 ... SEMTABLESZ - 1] = { .lock = SPINLOCK_INIT("semaroot") },
};

static struct semaroot *semroot(volatile uint32_t *addr)
{
	return &semtable[((uintptr_t)addr >> 3) % SEMTABLESZ];
}

static bool cansemacquire(volatile uint32_t *addr)
{
	for (;;) {
		uint32_t v = atomic_load32(addr);
		if (v == 0)
			return false;
		if (atomic_cas32(addr, v, v - 1))
			return true;
	}
}

static void semqueue(struct semaroot *root, struct sudog *s, bool lifo)
{
	if (lifo)
		waitq_push(&root->q, s);	/* so in front of addr's oldest */
	else
		waitq_enqueue(&root->q, s);
}

/* The oldest waiter on addr, unlinked; NULL if none. */
static struct sudog *semdequeue(struct semaroot *root, volatile uint32_t *addr)
{
	for (struct sudog *s = root->q.first; s; s = s->next) {
		if (s->addr == (void *)addr) {
			waitq_remove(&root->q, s);
			return s;
		}
	}
	return NULL;
}

void semacquire1(volatile uint32_t *addr, bool lifo, enum waitreason reason)
{
	if (cansemacquire(addr))
		return;

	struct semaroot *root = semroot(addr);
	struct sudog s = { .g = getg(), .addr = (void *)addr };

	for (;;) {
		spin_lock(&root->lock);
		atomic_xadd32(&root->nwait, 1);	/* before the re-check */
		if (cansemacquire(addr)) {
			atomic_xadd32(&root->nwait, -1);
			spin_unlock(&root->lock);
			return;
		}
		s.ticket = 0;
		semqueue(root, &s, lifo);
		goparkunlock_spin(&root->lock, reason);
		/* A handoff already took the count for us (ticket 1);
		 * otherwise compete for it like a newcomer. */
		if (s.ticket != 0 || cansemacquire(addr))
			return;
	}
}

void semacquire(volatile uint32_t *addr)
{
	semacquire1(addr, false, waitReasonSemacquire);
}

void semrelease1(volatile uint32_t *addr, bool handoff)
{
	struct semaroot *root = semroot(addr);

	atomic_xadd32(addr, 1);
	/* Nobody waiting in this bucket: done, without the lock. The seq-cst
	 * xadd above is ordered before this load (see the file comment). */
	if (atomic_load32(&root->nwait) == 0)
		return;

	spin_lock(&root->lock);
	if (atomic_load32(&root->nwait) == 0) {
		/* Someone else consumed the waiter already. */
		spin_unlock(&root->lock);
		return;
	}
	struct sudog *s = semdequeue(root, addr);
	if (s)
		atomic_xadd32(&root->nwait, -1);
	spin_unlock(&root->lock);
	if (!s)
		return;

	/* The waiter stays parked until goready, so s is still ours. */
	bool handed = handoff && cansemacquire(addr);
	if (handed)
		s->ticket = 1;
	ready(s->g);
	/*
	 * Direct handoff: the waiter now owns the count and sits in our
	 * runnext. Yield to the local run queue (goyield) so that it runs at
	 * once and inherits our slice -- but only where we may switch, as in
	 * Go (`getg().m.locks == 0`): not on g0 (a timer callback unlocking
	 * a starving mutex) and not with a spinlock or preemption off. Then
	 * the waiter simply runs next from runnext when this P schedules.
	 * Never touch s after goready.
	 */
	if (handed && getg() != getm()->g0 && this_cpu()->preempt_off == 0)
		goyield();
}

void semrelease(volatile uint32_t *addr)
{
	semrelease1(addr, false);
}

/* ---- notify lists (sync.Cond) ------------------------------------------ */

/* Tickets wrap: a is before b when the signed distance is negative. */
static bool ticket_less(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

uint32_t notifylist_add(struct notifylist *l)
{
	/* xadd returns the new value: our ticket is the one before. */
	return atomic_xadd32(&l->wait, 1) - 1;
}

void notifylist_wait(struct notifylist *l, uint32_t ticket)
{
	spin_lock(&l->lock);
	if (ticket_less(ticket, l->notify)) {
		/* Already notified between add and wait. */
		spin_unlock(&l->lock);
		return;
	}
	struct sudog s = { .g = getg(), .ticket = ticket };
	if (l->tail)
		l->tail->next = &s;
	else
		l->head = &s;
	l->tail = &s;
	goparkunlock_spin(&l->lock, waitReasonSyncCondWait);
}

void notifylist_notify_all(struct notifylist *l)
{
	/* Fast path: no ticket handed out since the last notify. */
	if (atomic_load32(&l->wait) == atomic_load32(&l->notify))
		return;
	spin_lock(&l->lock);
	struct sudog *s = l->head;
	l->head = l->tail = NULL;
	atomic_store32(&l->notify, atomic_load32(&l->wait));
	spin_unlock(&l->lock);

	while (s) {
		struct sudog *next = s->next;	/* read before the G may run */
		s->next = NULL;
		ready(s->g);
		s = next;
	}
}

void notifylist_notify_one(struct notifylist *l)
{
	if (atomic_load32(&l->wait) == atomic_load32(&l->notify))
		return;
	spin_lock(&l->lock);
	uint32_t t = l->notify;
	if (t == atomic_load32(&l->wait)) {
		spin_unlock(&l->lock);
		return;
	}
	atomic_store32(&l->notify, t + 1);
	/*
	 * Ticket t may not be in the list yet (its G is between add and
	 * wait); then that G will see notify > t and not sleep at all.
	 */
	for (struct sudog *p = NULL, *s = l->head; s; p = s, s = s->next) {
		if (s->ticket != t)
			continue;
		struct sudog *n = s->next;
		if (p)
			p->next = n;
		else
			l->head = n;
		if (l->tail == s)
			l->tail = p;
		spin_unlock(&l->lock);
		s->next = NULL;
		ready(s->g);
		return;
	}
	spin_unlock(&l->lock);
}
