/*
 * Channels, following Go's runtime/chan.go.
 *
 * Invariants (under c->lock):
 *   - at least one of sendq and recvq is empty, except for an unbuffered
 *     channel with one G blocked in a select that both sends and receives
 *     on it (select guards that itself);
 *   - buffered: qcount > 0 implies recvq is empty, qcount < dataqsiz
 *     implies sendq is empty.
 *
 * An unbuffered channel never touches a ring: a sender that finds a parked
 * receiver copies straight into the receiver's slot (chan_send_direct),
 * and a receiver that finds a parked sender copies straight out of the
 * sender's value. A value therefore moves once, under the channel lock,
 * between two G stacks; that is safe because gmk's stacks never move.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/compiler.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "sched/hchan.h"
#include "sched/linkname.h"
#include "sched/schedimpl.h"
#include "sched/timechan.h"

/* Go's limits: element type at most 64 KiB, the buffer must fit. */
#define CHAN_MAX_ELEM	(64u * 1024u)
#define CHAN_MAX_BYTES	((size_t)1 << 30)
/* The ring starts on a 16-byte boundary after the header. */
#define CHAN_HDR	((sizeof(struct hchan) + 15) & ~(size_t)15)

chan_t chan_make(size_t elem_size, size_t capacity)
{
	if (elem_size > CHAN_MAX_ELEM)
		panic("makechan: invalid channel element type (%zu bytes)", elem_size);
	if (capacity > UINT32_MAX ||
	    (elem_size && capacity > CHAN_MAX_BYTES / elem_size))
		panic("makechan: size out of range");
	struct hchan *c = kmalloc(CHAN_HDR + elem_size * capacity);

	c->magic = CHAN_LIVE;
	spin_init(&c->lock, "chan");
	c->elemsize = (uint32_t)elem_size;
	c->dataqsiz = (uint32_t)capacity;
	c->buf = (uint8_t *)c + CHAN_HDR;
	return c;
}

/*
 * The quarantine: freed channels wait here, poisoned, before kmalloc may
 * hand their memory out again, the oldest going back first once more than
 * CHAN_QUARANTINE_MAX channels or CHAN_QUARANTINE_BYTES bytes are held.
 * A use of a channel freed fewer frees ago than that is reported for
 * certain; after, the memory may be a new channel's (Go has no free to
 * get wrong: its collector frees a channel only when nothing refers to
 * it).
 */
#define CHAN_QUARANTINE_MAX	256
#define CHAN_QUARANTINE_BYTES	((size_t)4 << 20)

static struct spinlock quarantine_lock = SPINLOCK_INIT("chan quarantine");
static struct hchan *quarantine[CHAN_QUARANTINE_MAX];
static size_t quarantine_bytes[CHAN_QUARANTINE_MAX];
static unsigned quarantine_head, quarantine_len;
static size_t quarantine_total;

static size_t chan_bytes(const struct hchan *c)
{
	return CHAN_HDR + (size_t)c->elemsize * c->dataqsiz;
}

void chan_bad(const struct hchan *c, const char *op)
{
	uint64_t m = __atomic_load_n(&c->magic, __ATOMIC_RELAXED);
	const char *what = op[0] == 'f' ? "double free of channel" : "use of freed channel";

	if (m == CHAN_FREED)
		panic("%s %p (%s)", what, (const void *)c, op);
	/* Freed and its memory reused since, or never a channel. */
	panic("%s %p (%s): not a live channel, its header reads 0x%llx", what,
	      (const void *)c, op, (unsigned long long)m);
}

static void chanfree_(struct hchan *c, bool orphan);

void chan_free(chan_t c)
{
	if (!c)
		return;
	chancheck(c, "free");
	if (c->timer) {			/* its timer goes with it, or first */
		time_chan_free(c);
		return;
	}
	if (c->ctxdone)		/* Go's is receive-only: a compile error */
		fatal("chan_free: the done channel of a context (it goes with its "
		      "context: context_release)");
	chanfree(c);
}

void chanfree(struct hchan *c)
{
	chanfree_(c, false);
}

void chanfree_or_orphan(struct hchan *c)
{
	chanfree_(c, true);
}

static void chanfree_(struct hchan *c, bool orphan)
{
	chancheck(c, "free");
	spin_lock(&c->lock);
	bool busy = c->recvq.first || c->sendq.first;
	/* Poisoned under the lock: an operation that checked the magic
	 * just before is serialised before the free. */
	if (!busy)
		__atomic_store_n(&c->magic, CHAN_FREED, __ATOMIC_RELAXED);
	else if (orphan)
		c->orphan = true;
	spin_unlock(&c->lock);
	if (busy && orphan)
		return;
	if (busy)
		panic("chan_free: a goroutine is still blocked on channel %p", (void *)c);

	size_t n = chan_bytes(c);
	spin_lock(&quarantine_lock);
	unsigned tail = (quarantine_head + quarantine_len) % CHAN_QUARANTINE_MAX;
	quarantine[tail] = c;
	quarantine_bytes[tail] = n;
	quarantine_len++;
	quarantine_total += n;
	for (;;) {	/* one at a time: kfree outside the lock */
		struct hchan *old = NULL;
		if (quarantine_len == CHAN_QUARANTINE_MAX ||
		    (quarantine_len > 1 && quarantine_total > CHAN_QUARANTINE_BYTES)) {
			old = quarantine[quarantine_head];
			quarantine_total -= quarantine_bytes[quarantine_head];
			quarantine_head = (quarantine_head + 1) % CHAN_QUARANTINE_MAX;
			quarantine_len--;
		}
		spin_unlock(&quarantine_lock);
		if (!old)
			return;
		kfree(old);		/* its magic stays CHAN_FREED until reused */
		spin_lock(&quarantine_lock);
	}
}

size_t chan_len(chan_t c)
{
	if (!c)
		return 0;
	chancheck(c, "len");
	return atomic_load32(&c->qcount);
}

size_t chan_cap(chan_t c)
{
	if (!c)
		return 0;
	chancheck(c, "cap");
	return c->dataqsiz;
}

/*
 * The functions hchan.h declares for select.c are inline here, in
 * chansend and chanrecv, and out of line there: __always_inline on a
 * definition whose declaration (hchan.h) has no `inline` makes it C99's
 * external definition as well, one body for both.
 */

/* ---- wait queues ------------------------------------------------------ */

/*
 * Take the first sudog that may still be woken. A sudog of a select is
 * claimed by CAS on the select's done flag: the first channel to get there
 * wins the G; the others just drop their sudog (the select dequeues the
 * rest itself when it wakes, see waitq_remove). Go's waitq.dequeue.
 */
__always_inline struct sudog *waitq_dequeue(struct waitq *q)
{
	for (;;) {
		struct sudog *sg = q->first;
		if (!sg)
			return NULL;
		struct sudog *y = sg->next;
		if (!y) {
			q->first = NULL;
			q->last = NULL;
		} else {
			y->prev = NULL;
			q->first = y;
			sg->next = NULL;
		}
		if (sg->sel) {
			/* seq-cst CAS: one winner among all the channels of
			 * the select, whichever cores their wakers run on. */
			if (!atomic_cas32(&sg->sel->done, 0, 1))
				continue;
			sg->sel->fired = sg;
		}
		return sg;
	}
}

/* ---- direct hand-off to a parked peer ---------------------------------- */

/*
 * One element: inline moves for the sizes of a word or two (ints,
 * pointers: most channels), memcpy for the rest. Under -mstrict-align
 * (aarch64: the kernel runs code before its MMU maps memory as normal)
 * gcc cannot move a word of unknown alignment inline and calls memcpy
 * for __builtin_memcpy too; there a naturally aligned pair (the common
 * case) moves as words, once checked, and the rest goes to memcpy.
 * Elsewhere a word moves inline at any alignment.
 */
#if defined(__aarch64__)	/* arch.mk's -mstrict-align (gcc 12 still
				 * defines __ARM_FEATURE_UNALIGNED under it) */
#define ELEM_STRICT_ALIGN 1
#else
#define ELEM_STRICT_ALIGN 0
#endif
typedef uint16_t __attribute__((may_alias)) elem16_t;
typedef uint32_t __attribute__((may_alias)) elem32_t;
typedef uint64_t __attribute__((may_alias)) elem64_t;

static __always_inline void
elemcopy(void *dst, const void *src, uint32_t n)
{
	uintptr_t both = (uintptr_t)dst | (uintptr_t)src;
	switch (n) {
	case 0:
		return;
	case 1:
		*(uint8_t *)dst = *(const uint8_t *)src;
		return;
	case 2:
		if (!ELEM_STRICT_ALIGN)
			__builtin_memcpy(dst, src, 2);
		else if (both & 1)
			break;
		else
			*(elem16_t *)dst = *(const elem16_t *)src;
		return;
	case 4:
		if (!ELEM_STRICT_ALIGN)
			__builtin_memcpy(dst, src, 4);
		else if (both & 3)
			break;
		else
			*(elem32_t *)dst = *(const elem32_t *)src;
		return;
	case 8:
		if (!ELEM_STRICT_ALIGN)
			__builtin_memcpy(dst, src, 8);
		else if (both & 7)
			break;
		else
			*(elem64_t *)dst = *(const elem64_t *)src;
		return;
	case 16:
		if (!ELEM_STRICT_ALIGN) {
			__builtin_memcpy(dst, src, 16);
		} else if (both & 7) {
			break;
		} else {
			((elem64_t *)dst)[0] = ((const elem64_t *)src)[0];
			((elem64_t *)dst)[1] = ((const elem64_t *)src)[1];
		}
		return;
	}
	memcpy(dst, src, n);
}

/*
 * The hand-offs (Go's send and recv), inline in chansend/chanrecv (the
 * hot path of every unbuffered channel) and out of line for select,
 * which unlocks its own way. unlockf NULL: unlock c->lock.
 */

/* The value has moved: unlock c, then wake the peer parked in sg. */
static __always_inline void
handoff_wake(struct hchan *c, struct sudog *sg, void (*unlockf)(void *), void *arg)
{
	sg->elem = NULL;
	struct g *gp = sg->g;
	if (unlockf || !GMK_FASTPATH) {
		if (unlockf)
			unlockf(arg);
		else
			spin_unlock(&c->lock);	/* the reference build: Go's */
		sg->success = true;
		ready(gp);	/* publishes the copy: goready's CAS orders it */
		return;
	}
	/* The lock's preempt-off count covers the ready too. */
	spin_unlock_nopreempt(&c->lock);
	sg->success = true;
	ready_nopreempt(gp);
	preempt_enable();
}

__always_inline void chan_send_direct(struct hchan *c, struct sudog *sg, const void *ep,
				      void (*unlockf)(void *), void *arg)
{
	/* The receiver's slot is on its stack (or NULL: value discarded). */
	if (sg->elem)
		elemcopy(sg->elem, ep, c->elemsize);
	handoff_wake(c, sg, unlockf, arg);
}

__always_inline void chan_recv_direct(struct hchan *c, struct sudog *sg, void *ep,
				      void (*unlockf)(void *), void *arg)
{
	if (c->dataqsiz == 0) {
		/* Unbuffered: copy straight from the sender. */
		if (ep)
			elemcopy(ep, sg->elem, c->elemsize);
	} else {
		/*
		 * The ring is full (a sender is parked). Take the head and
		 * put the sender's value in the slot it frees, which becomes
		 * the tail: both FIFO orders hold.
		 */
		void *slot = chanbuf(c, c->recvx);
		if (ep)
			elemcopy(ep, slot, c->elemsize);
		elemcopy(slot, sg->elem, c->elemsize);
		if (++c->recvx == c->dataqsiz)
			c->recvx = 0;
		c->sendx = c->recvx;
	}
	handoff_wake(c, sg, unlockf, arg);
}

/* ---- send ------------------------------------------------------------- */

/*
 * Would a send block now? Go's full(); the lock-free read is a snapshot.
 * load-acquire, as Go's atomic.Loadp: the fast paths read closed after
 * this, and that load must not be satisfied before this one (arm64
 * reorders plain loads), or "open" and "full/empty" would not have been
 * true at one instant.
 */
static bool chan_full(struct hchan *c)
{
	if (c->dataqsiz == 0)
		return atomic_loaduintptr((volatile uintptr_t *)&c->recvq.first) == 0;
	return atomic_load32(&c->qcount) == c->dataqsiz;
}

static __always_inline bool
chansend(struct hchan *c, const void *ep, bool block)
{
	if (!c) {
		if (!block)
			return false;
		gopark(NULL, NULL, waitReasonChanSendNilChan);
		panic("unreachable: woke from a send on a nil channel");
	}
	chancheck(c, "send");
	/* Fast path for a failing try-send, without the lock (Go's
	 * reasoning: closed is read after full, and a channel never goes
	 * from closed to open, so "not closed and full" was true at once). */
	if (!block && !atomic_load32(&c->closed) && chan_full(c))
		return false;

	spin_lock(&c->lock);
	if (c->closed) {
		spin_unlock(&c->lock);
		panic("send on closed channel");
	}
	struct sudog *sg = waitq_dequeue(&c->recvq);
	if (sg) {
		chan_send_direct(c, sg, ep, NULL, NULL);
		return true;
	}
	if (c->qcount < c->dataqsiz) {
		elemcopy(chanbuf(c, c->sendx), ep, c->elemsize);
		if (++c->sendx == c->dataqsiz)
			c->sendx = 0;
		atomic_store32(&c->qcount, c->qcount + 1);	/* chan_len reads it unlocked */
		spin_unlock(&c->lock);
		return true;
	}
	if (!block) {
		spin_unlock(&c->lock);
		return false;
	}

	struct sudog mysg = {
		.g = getg(), .elem = (void *)ep, .c = c,
	};
	waitq_enqueue(&c->sendq, &mysg);
	goparkunlock_spin(&c->lock, waitReasonChanSend);
	/* Woken by a receiver (success) or by chan_close. */
	if (!mysg.success)
		panic("send on closed channel");
	return true;
}

void chan_send(chan_t c, const void *elem)
{
	chansend(c, elem, true);
}

bool chan_trysend(chan_t c, const void *elem)
{
	return chansend(c, elem, false);
}

/* ---- receive ---------------------------------------------------------- */

/* Would a receive block now? Go's empty(); load-acquire as in chan_full. */
static bool chan_empty(struct hchan *c)
{
	if (c->dataqsiz == 0)
		return atomic_loaduintptr((volatile uintptr_t *)&c->sendq.first) == 0;
	return atomic_load32(&c->qcount) == 0;
}

/* Returns whether it received or saw the close (Go's "selected");
 * *received is false when the channel was closed and drained. */
static __always_inline bool
chanrecv(struct hchan *c, void *ep, bool block, bool *received)
{
	*received = false;
	if (!c) {
		if (!block)
			return false;
		gopark(NULL, NULL, waitReasonChanReceiveNilChan);
		panic("unreachable: woke from a receive on a nil channel");
	}
	chancheck(c, "receive");
	if (!block && chan_empty(c)) {
		if (!atomic_load32(&c->closed))
			return false;
		/* Closed: re-check emptiness, a value may have been buffered
		 * between the two loads (it must still be received first). */
		if (chan_empty(c)) {
			if (ep && c->elemsize)
				memset(ep, 0, c->elemsize);
			return true;
		}
	}

	spin_lock(&c->lock);
	if (c->closed) {
		if (c->qcount == 0) {
			spin_unlock(&c->lock);
			if (ep && c->elemsize)
				memset(ep, 0, c->elemsize);
			return true;
		}
		/* Closed but values remain: drain them first. */
	} else {
		struct sudog *sg = waitq_dequeue(&c->sendq);
		if (sg) {
			chan_recv_direct(c, sg, ep, NULL, NULL);
			*received = true;
			return true;
		}
	}
	if (c->qcount > 0) {
		void *slot = chanbuf(c, c->recvx);
		if (ep)
			elemcopy(ep, slot, c->elemsize);
		if (c->elemsize)
			memset(slot, 0, c->elemsize);
		if (++c->recvx == c->dataqsiz)
			c->recvx = 0;
		atomic_store32(&c->qcount, c->qcount - 1);	/* chan_len reads it unlocked */
		spin_unlock(&c->lock);
		*received = true;
		return true;
	}
	if (!block) {
		spin_unlock(&c->lock);
		return false;
	}

	struct sudog mysg = { .g = getg(), .elem = ep, .c = c };
	waitq_enqueue(&c->recvq, &mysg);
	goparkunlock_spin(&c->lock, waitReasonChanReceive);
	/* chan_close cleared our slot and left success false. */
	*received = mysg.success;
	return true;
}

bool chan_recv(chan_t c, void *elem)
{
	bool received;

	chanrecv(c, elem, true, &received);
	return received;
}

bool chan_tryrecv(chan_t c, void *elem, bool *ok)
{
	bool received;
	bool selected = chanrecv(c, elem, false, &received);

	if (ok)
		*ok = received;
	return selected;
}

/* ---- close ------------------------------------------------------------ */

void chan_close(chan_t c)
{
	if (!c)
		panic("close of nil channel");
	chancheck(c, "close");
	if (c->timer)			/* Go's is receive-only: a compile error */
		panic("close of a timer's channel (its timer sends on it)");
	if (c->ctxdone)			/* the same */
		panic("close of a context's done channel (context_cancel closes it)");
	chanclose(c);
}

void chanclose(struct hchan *c)
{
	struct glist ready = { NULL, 0 };
	struct sudog *sg;

	spin_lock(&c->lock);
	if (c->closed) {
		spin_unlock(&c->lock);
		panic("close of closed channel");
	}
	atomic_store32(&c->closed, 1);

	/* Every receiver gets a zero value and ok == false. */
	while ((sg = waitq_dequeue(&c->recvq))) {
		if (sg->elem && c->elemsize)
			memset(sg->elem, 0, c->elemsize);
		sg->elem = NULL;
		sg->success = false;
		glist_push(&ready, sg->g);
	}
	/* Every sender wakes up to panic in its own G. */
	while ((sg = waitq_dequeue(&c->sendq))) {
		sg->elem = NULL;
		sg->success = false;
		glist_push(&ready, sg->g);
	}
	spin_unlock(&c->lock);

	/* Ready them after unlocking, so that they do not spin on the lock
	 * at once. Their sudogs are not touched from here on. */
	struct g *gp;
	while ((gp = glist_pop(&ready)))
		goready(gp);
}

/* ---- a context's done channel (sched/linkname.h) ------------------------ */

chan_t ctxdone_make(void)
{
	chan_t c = chan_make(0, 0);
	c->ctxdone = true;		/* before anyone else has it */
	return c;
}

void ctxdone_close(chan_t c)
{
	chanclose(c);
}

void ctxdone_free(chan_t c)
{
	chanfree(c);
}
