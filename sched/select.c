/*
 * select, following Go's runtime/select.go (selectgo).
 *
 *   1. pollorder: a random permutation of the cases with a channel, so that
 *      no ready case is favoured (each of k ready cases wins 1/k of the time).
 *   2. lockorder: the cases sorted by channel address. Every select locks
 *      its channels in this one global order, so two selects sharing
 *      channels cannot deadlock; a channel named twice is locked once.
 *   3. Pass 1, all locked: take the first ready case in pollorder.
 *      Nothing ready: return the default, or
 *   4. pass 2: queue one sudog per case on its channel and park; the
 *      channels are unlocked on g0 after the park (selparkcommit).
 *   5. A waker claims the G by CAS on the shared selectwait.done (in
 *      waitq_dequeue), so exactly one case fires; it records that sudog.
 *   6. Pass 3, relocked: unlink the other sudogs, which the losers of the
 *      CAS may already have unlinked themselves.
 *
 * Where gmk departs from Go: up to SELECT_STACK_CASES cases, the sudogs,
 * pollorder and lockorder are arrays on the selecting G's stack, sized by
 * the number of cases, so a small select allocates nothing; above that
 * (up to SELECT_MAX_CASES, Go's 65,536, the most a uint16_t index names)
 * they are one kmalloc block each (the orders at the start, the sudogs
 * only if the select parks), freed before it returns: a G's stack is small
 * and fixed. The "which case fired" word is in struct selectwait rather
 * than g.param. A SELECT_AFTER case (Go's
 * `<-time.After(d)`) has no channel: its timer lives in the frame too, a
 * third kind of waker (struct selecttimer).
 */
#include <string.h>

#include "kernel/compiler.h"
#include "kernel/cpu.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "sched/hchan.h"
#include "sched/schedimpl.h"

/* A uniform number in [0, n) from the M's cheap random state (Go's
 * cheaprandn: multiply-shift instead of a modulo). */
static uint32_t cheaprandn(uint32_t n)
{
	return (uint32_t)(((uint64_t)cheaprand() * n) >> 32);
}

/* ---- locking all the channels of a select ------------------------------ */

struct selstate {
	struct select_case *cases;
	uint16_t *lockorder;
	int norder;
};

static void sellock(struct selstate *st)
{
	struct hchan *last = NULL;

	for (int i = 0; i < st->norder; i++) {
		struct hchan *c = st->cases[st->lockorder[i]].c;
		if (c != last) {
			spin_lock(&c->lock);
			last = c;
		}
	}
}

static void selunlock(void *arg)
{
	struct selstate *st = arg;

	/* Reverse order; a channel named by several cases is unlocked at
	 * its first (lowest) position, after its duplicates are passed. */
	for (int i = st->norder - 1; i >= 0; i--) {
		struct hchan *c = st->cases[st->lockorder[i]].c;
		if (i > 0 && c == st->cases[st->lockorder[i - 1]].c)
			continue;
		spin_unlock(&c->lock);
	}
}

/*
 * SELECT_AFTER's timer, in the select's frame. It is started on g0 once
 * the G is parked and before its channels unlock (selparkcommit), so no
 * waker has readied the G yet. Its callback claims the select as a
 * channel's waker does, by the CAS on sel.done, and then stores `done`,
 * its last touch of the frame. Pass 3 stops the timer and, if its firing
 * had already left the heap, waits for `done`: the frame outlives every
 * callback that may touch it. (A channel's waker holds the channel's lock
 * for that, and pass 3 takes it.)
 */
struct selecttimer {
	struct timer t;
	struct selectwait *sel;
	struct sudog *fired;		/* what sel.fired becomes: the case's
					 * sudog slot, otherwise unused */
	struct g *gp;
	volatile uint32_t done;		/* the callback is done with the frame */
};

static void selecttimer_fire(void *arg)
{
	struct selecttimer *st = arg;

	/* seq-cst CAS: one winner among the channels' wakers and the timer
	 * (waitq_dequeue's). */
	if (atomic_cas32(&st->sel->done, 0, 1)) {
		st->sel->fired = st->fired;
		goready(st->gp);
	}
	/* store-release: the frame may be gone after it. */
	atomic_store32(&st->done, 1);
}

/* What pass 2 hands selparkcommit. */
struct selpark {
	struct sudog *waiting;		/* the sudogs, in lock order */
	struct selecttimer *timer;	/* SELECT_AFTER's, or NULL */
};

/*
 * gopark's unlock function: runs on g0 once the G is parked. The list of
 * sudogs (on the G's stack) is walked in lock order; a lock is released
 * only after the last sudog of its channel was read. Once a channel is
 * unlocked a waker can ready the G, which then blocks in sellock on the
 * channels still held here, so the sudogs read afterwards are still alive;
 * after the last unlock nothing of the G is touched. The timer, if any,
 * starts first, while every channel is still held: a firing at once
 * readies a G that is parked, and that G too waits in sellock.
 */
static bool selparkcommit(struct g *gp, void *arg)
{
	struct selpark *park = arg;
	struct sudog *sg = park->waiting;
	struct hchan *last = NULL;

	(void)gp;
	if (park->timer)
		timer_start(&park->timer->t, park->timer->t.when);
	while (sg) {
		struct sudog *next = sg->waitlink;
		if (last && sg->c != last)
			spin_unlock(&last->lock);
		last = sg->c;
		sg = next;
	}
	if (last)
		spin_unlock(&last->lock);
	return true;
}

/* ---- selectgo ----------------------------------------------------------- */

/*
 * lockorder[0..n) := pollorder[0..n) sorted by channel address, as Go's
 * selectgo does: a heap sort, O(n log n) in place, for the large selects;
 * cases on one channel end adjacent (sellock and selunlock rely on it),
 * in no particular order among themselves.
 */
static __noinline void sortlockorder_heap(const struct select_case *cases,
					  const uint16_t *pollorder, uint16_t *lockorder, int n)
{
	for (int i = 0; i < n; i++) {
		int j = i;
		uintptr_t c = (uintptr_t)cases[pollorder[i]].c;
		while (j > 0 && (uintptr_t)cases[lockorder[(j - 1) / 2]].c < c) {
			int k = (j - 1) / 2;
			lockorder[j] = lockorder[k];
			j = k;
		}
		lockorder[j] = pollorder[i];
	}
	for (int i = n - 1; i >= 0; i--) {
		uint16_t o = lockorder[i];
		uintptr_t c = (uintptr_t)cases[o].c;
		int j = 0;
		lockorder[i] = lockorder[0];
		for (;;) {
			int k = j * 2 + 1;
			if (k >= i)
				break;
			if (k + 1 < i && (uintptr_t)cases[lockorder[k]].c <
					 (uintptr_t)cases[lockorder[k + 1]].c)
				k++;
			if (c < (uintptr_t)cases[lockorder[k]].c) {
				lockorder[j] = lockorder[k];
				j = k;
				continue;
			}
			break;
		}
		lockorder[j] = o;
	}
}

int chan_select(struct select_case *cases, int ncases, bool has_default)
{
	if (ncases < 0 || ncases > SELECT_MAX_CASES)
		panic("select: %d cases (at most %d)", ncases, SELECT_MAX_CASES);

	/* Sized by the cases at hand, not by the maximum: a select runs on a
	 * G's small fixed stack. Above SELECT_STACK_CASES the arrays are
	 * kmalloc'd (onheap) and the stack ones are one slot each. */
	bool onheap = ncases > SELECT_STACK_CASES;
	int nslots = ncases > 0 && !onheap ? ncases : 1;
	uint16_t pollorder_stk[nslots], lockorder_stk[nslots];
	uint16_t *pollorder = pollorder_stk, *lockorder = lockorder_stk;
	/* Here, not in pass 2: a goto out may not jump past an array
	 * sized at run time. */
	struct sudog sgs_stk[nslots];
	struct sudog *sgs, *sgs_heap = NULL;
	int norder = 0;
	int ret;

	if (unlikely(onheap)) {
		pollorder = kmalloc(2 * sizeof(uint16_t) * (size_t)ncases);
		lockorder = pollorder + ncases;
	}
	int tcasi = -1;			/* the SELECT_AFTER case */
	uint64_t deadline = 0;

	/* Insertion shuffle of the cases that have a channel; nil-channel
	 * cases never proceed, so they are left out of both orders, and so
	 * is the timeout, which has a deadline instead. */
	for (int i = 0; i < ncases; i++) {
		if (cases[i].dir == SELECT_DIR_AFTER) {
			if (tcasi >= 0)
				panic("select: two SELECT_AFTER cases (%d and %d; at most one)",
				      tcasi, i);
			tcasi = i;
			deadline = time_when(cases[i].ns);
			continue;
		}
		if (!cases[i].c)
			continue;
		chancheck(cases[i].c, cases[i].dir == SELECT_DIR_RECV ? "select receive"
								       : "select send");
		uint32_t j = cheaprandn((uint32_t)norder + 1);
		pollorder[norder] = pollorder[j];
		pollorder[j] = (uint16_t)i;
		norder++;
	}
	if (norder == 0) {
		if (tcasi >= 0) {
			uint64_t now = nanotime();
			if (now >= deadline) {
				cases[tcasi].ok = true;
				ret = tcasi;
				goto out;
			}
			if (!has_default && deadline != TIME_NEVER) {
				sleep_ns(deadline - now);
				cases[tcasi].ok = true;
				ret = tcasi;
				goto out;
			}
		}
		if (has_default) {
			ret = SELECT_DEFAULT;
			goto out;
		}
		/* Never woken: the block, if any, is never freed either. */
		gopark(NULL, NULL, ncases ? waitReasonSelect : waitReasonSelectNoCases);
		panic("unreachable: woke from a select that can never proceed");
	}

	/* Sort by channel address: an insertion sort for the small selects
	 * (few cases, no call), Go's heap sort above. */
	if (unlikely(onheap)) {
		sortlockorder_heap(cases, pollorder, lockorder, norder);
	} else {
		for (int i = 0; i < norder; i++) {
			uint16_t k = pollorder[i];
			uintptr_t ck = (uintptr_t)cases[k].c;
			int j = i;
			while (j > 0 && (uintptr_t)cases[lockorder[j - 1]].c > ck) {
				lockorder[j] = lockorder[j - 1];
				j--;
			}
			lockorder[j] = k;
		}
	}

	struct selstate st = { cases, lockorder, norder };
	struct select_case *cas;
	struct hchan *c;
	struct sudog *sg;
	int casi;

	sellock(&st);

	/* Pass 1: something ready now? */
	for (int i = 0; i < norder; i++) {
		casi = pollorder[i];
		cas = &cases[casi];
		c = cas->c;
		if (cas->dir == SELECT_DIR_RECV) {
			if ((sg = waitq_dequeue(&c->sendq))) {
				cas->ok = true;
				chan_recv_direct(c, sg, cas->elem, selunlock, &st);
				ret = casi;
				goto out;
			}
			if (c->qcount > 0) {
				void *slot = chanbuf(c, c->recvx);
				if (cas->elem && c->elemsize)
					memcpy(cas->elem, slot, c->elemsize);
				if (c->elemsize)
					memset(slot, 0, c->elemsize);
				if (++c->recvx == c->dataqsiz)
					c->recvx = 0;
				atomic_store32(&c->qcount, c->qcount - 1);	/* chan_len reads it unlocked */
				selunlock(&st);
				cas->ok = true;
				ret = casi;
				goto out;
			}
			if (c->closed) {
				selunlock(&st);
				if (cas->elem && c->elemsize)
					memset(cas->elem, 0, c->elemsize);
				cas->ok = false;
				ret = casi;
				goto out;
			}
		} else {
			if (c->closed) {
				selunlock(&st);
				panic("send on closed channel");
			}
			if ((sg = waitq_dequeue(&c->recvq))) {
				chan_send_direct(c, sg, cas->elem, selunlock, &st);
				ret = casi;
				goto out;
			}
			if (c->qcount < c->dataqsiz) {
				if (c->elemsize)
					memcpy(chanbuf(c, c->sendx), cas->elem, c->elemsize);
				if (++c->sendx == c->dataqsiz)
					c->sendx = 0;
				atomic_store32(&c->qcount, c->qcount + 1);	/* chan_len reads it unlocked */
				selunlock(&st);
				ret = casi;
				goto out;
			}
		}
	}
	if (tcasi >= 0 && nanotime() >= deadline) {
		selunlock(&st);
		cases[tcasi].ok = true;
		ret = tcasi;
		goto out;
	}
	if (has_default) {
		selunlock(&st);
		ret = SELECT_DEFAULT;
		goto out;
	}

	/* Pass 2: queue on every channel, in lock order, and park. */
	sgs = sgs_stk;
	if (unlikely(onheap))
		sgs = sgs_heap = kmalloc(sizeof(struct sudog) * (size_t)ncases);
	struct selectwait sel = { 0, NULL };
	struct sudog *waiting = NULL, **linkp = &waiting;
	struct g *gp = getg();

	for (int i = 0; i < norder; i++) {
		casi = lockorder[i];
		cas = &cases[casi];
		sg = &sgs[casi];
		*sg = (struct sudog){
			.g = gp, .elem = cas->elem, .c = cas->c, .sel = &sel,
		};
		*linkp = sg;
		linkp = &sg->waitlink;
		if (cas->dir == SELECT_DIR_RECV)
			waitq_enqueue(&cas->c->recvq, sg);
		else
			waitq_enqueue(&cas->c->sendq, sg);
	}
	struct selecttimer stt;
	struct selpark park = { waiting, NULL };
	if (tcasi >= 0 && deadline != TIME_NEVER) {
		stt = (struct selecttimer){ .sel = &sel, .fired = &sgs[tcasi], .gp = gp };
		timer_init(&stt.t, selecttimer_fire, &stt);
		stt.t.when = deadline;
		park.timer = &stt;
	}
	gopark(selparkcommit, &park, waitReasonSelect);

	/* Pass 3: one case fired; take the others off their queues. The
	 * waker's store of sel.fired is ordered before its goready. The
	 * timer first: a firing that has left its heap may still be about
	 * to touch this frame. */
	if (park.timer && !timer_stop(&stt.t))
		while (!atomic_load32(&stt.done))	/* load-acquire */
			arch_cpu_relax();
	sellock(&st);
	struct sudog *fired = sel.fired;
	bool orphans = false;
	casi = -1;
	for (sg = waiting; sg; sg = sg->waitlink) {
		int k = (int)(sg - sgs);
		if (sg == fired) {
			casi = k;
			continue;
		}
		if (cases[k].dir == SELECT_DIR_RECV)
			waitq_remove(&sg->c->recvq, sg);
		else
			waitq_remove(&sg->c->sendq, sg);
		if (unlikely(sg->c->orphan) && !sg->c->recvq.first && !sg->c->sendq.first) {
			/* The last waiter on a freed timer's channel: ours to
			 * free once unlocked (ticket is a semaphore's field,
			 * unused by a channel's sudog). */
			sg->c->orphan = false;
			sg->ticket = 1;
			orphans = true;
		}
	}
	if (casi < 0 && park.timer && fired == stt.fired)
		casi = tcasi;
	if (casi < 0)
		panic("select: woken with no case fired");
	selunlock(&st);
	if (unlikely(orphans))
		for (sg = waiting; sg; sg = sg->waitlink)
			if (sg != fired && sg->ticket == 1)
				chanfree(sg->c);

	cas = &cases[casi];
	ret = casi;
	if (casi == tcasi) {
		cas->ok = true;
	} else if (cas->dir == SELECT_DIR_SEND) {
		if (!fired->success)
			panic("send on closed channel");
	} else {
		cas->ok = fired->success;
	}
out:
	if (unlikely(onheap)) {
		kfree(sgs_heap);
		kfree(pollorder);
	}
	return ret;
}
