/*
 * The per-P local run queue, as in Go's proc.go (runqput .. runqsteal).
 *
 * A ring of RUNQ_SIZE G pointers with free-running 32-bit indices: the
 * queue holds runq[head % RUNQ_SIZE] .. runq[(tail-1) % RUNQ_SIZE].
 *
 *   - Only the P's owner writes runqtail and the ring slots at or after it.
 *     It may read runqtail plainly (nobody else writes it) and reads
 *     runqhead with load-acquire, so that slots a consumer has finished
 *     reading are not overwritten before that consumer's CAS.
 *   - The owner publishes new slots with a store-release of runqtail.
 *   - Anyone (owner or thief) consumes by reading the slots and then
 *     committing with a CAS-release of runqhead; a failed CAS discards what
 *     was read, which may by then have been overwritten.
 *   - runnext is one extra slot changed only by atomic read-modify-writes
 *     (the owner's exchanges, runnext_swap and runnext_get, and the CASes
 *     of runqgrab and runqdrain), never by a plain store, so that the
 *     owner and thieves agree on who took the G in it.
 */
#include "kernel/atomic.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "sched/sched.h"

/*
 * Ring slots are read by thieves while the owner may be overwriting them
 * (a thief whose CAS then fails throws the value away). Go reads them
 * plainly; in C that is a data race unless both sides are atomic, so they
 * are relaxed atomics: a plain ldr/str (mov) on both arches, ordered by the
 * acquire/release on runqhead/runqtail around them, and visible as atomic
 * to ThreadSanitizer in the host tests.
 */
#define SLOT_LOAD(slot)		__atomic_load_n((slot), __ATOMIC_RELAXED)
#define SLOT_STORE(slot, gp)	__atomic_store_n((slot), (gp), __ATOMIC_RELAXED)

/*
 * Before stealing a running P's runnext, wait this long: the owner most
 * likely just readied that G and is about to schedule it. Go asks for
 * usleep(3), and on Linux gets 50-60 us (the default timer slack is 50
 * us), its spinning M asleep meanwhile. gmk busy-waits, and a wait of a
 * few microseconds would be too short to matter: a ping-pong pair on one
 * P of two readies into runnext at every hand-off, so the spinner would
 * give up and sleep within microseconds, and the next ready wake it
 * again (an IPI; on the hosted board a futex wake or a signal), every
 * 10 us or so. A spinner that waits 30 us stays counted in nmspinning,
 * and those readies' wakep returns at its first test (the figures:
 * docs/performance.md).
 */
#define RUNQ_STEAL_RUNNEXT_BACKOFF_NS (30 * NSEC_PER_USEC)

static inline struct g *slot(struct g **ring, uint32_t i)
{
	return SLOT_LOAD(&ring[i % RUNQ_SIZE]);
}

static inline void set_slot(struct g **ring, uint32_t i, struct g *gp)
{
	SLOT_STORE(&ring[i % RUNQ_SIZE], gp);
}

/*
 * runqput tries to put gp on pp's local run queue. With next, gp goes to
 * runnext and the G it displaces goes to the tail. A full ring moves half
 * of itself plus gp to the global queue. Owner only.
 *
 * gmk departs from Go in one place: Go ignores `next` when the runtime has
 * no sysmon, because then nothing bounds a runnext chain's shared slice.
 * gmk's per-core tick plays sysmon's part, so next is always honoured.
 */
void runqput(struct p *pp, struct g *gp, bool next)
{
	if (next) {
		/* Kick the old runnext out to the regular run queue. */
		gp = runnext_swap(pp, gp);
		if (!gp)
			return;
	}

	for (;;) {
		if (runqput_ring(pp, gp))
			return;
		/* Full: h and t as runqput_ring read them (only thieves move
		 * h, and only forward; runqputslow's CAS checks it). */
		uint32_t h = atomic_load32(&pp->runqhead);
		uint32_t t = pp->runqtail;
		if (t - h < RUNQ_SIZE)
			continue;	/* a thief took some meanwhile */
		if (runqputslow(pp, gp, h, t))
			return;
		/* The queue is not full any more: a thief took some; retry. */
	}
}

/* Links last to the Gs of the slots [from, to), in order; returns the
 * last G linked. Owner only. */
static inline struct g *link_slots(struct g *last, struct g **from, struct g **to)
{
	for (; from < to; from++) {
		struct g *next = SLOT_LOAD(from);
		last->schedlink = next;
		last = next;
	}
	return last;
}

/*
 * runqputslow moves gp and half of the full local queue to the global
 * queue in one batch, so that the lock is taken once. Owner only.
 *
 * Departure from Go, which copies the half out of the ring and then CASes
 * the head (the CAS tells it that what it copied was still its to take),
 * then links the copies: here the CAS comes first and the Gs are linked
 * straight from the ring. Only the owner writes slots, and an interrupt
 * handler never queues a G (sched/netpoll.c), so the slots the CAS gave
 * up keep their Gs until this owner's next put; a thief that read them
 * fails its own CAS. One pass over the Gs instead of two, and no 1 KiB
 * array (Go's is on the stack: here a small G's stack could not hold it,
 * on the path waitgroup_done -> semrelease -> goready -> runqput).
 */
const char *runq_owner_violation(const struct p *pp)
{
	struct g *gp = getg();
	/* No G: a thread of the host tests (tests/host/runq_test.c), which
	 * drive the queue outside any M, as owner and thieves by hand. In
	 * the kernel every core runs a G, its g0 at least. */
	if (gp == NULL)
		return NULL;
	struct m *mp = gp->m;
	/* One read of this core's count: preemptible, we may move, but a
	 * core's count is that of the G running there. */
	if (gp != mp->g0 && THIS_CPU_READ32(preempt_off) == 0)
		return "the caller is a goroutine with preemption on";
	if (mp->p != pp || pp->m != mp)
		return "the caller's M does not own the P";
	return NULL;
}

bool runqputslow(struct p *pp, struct g *gp, uint32_t h, uint32_t t)
{
	uint32_t n = (t - h) / 2;

#ifdef GMK_DEBUG_ASSERTS
	/* What the link straight from the ring relies on (above). The debug
	 * builds only (make test boots them): the normal build has nothing
	 * here, as Go's runqputslow checks neither. */
	const char *why = runq_owner_violation(pp);
	if (unlikely(why != NULL))
		panic("runqputslow: P%u: %s", pp->id, why);
#endif

	if (n != RUNQ_SIZE / 2)
		panic("runqputslow: queue is not full (%u of %u)", t - h,
		      RUNQ_SIZE);
	/* cas-release, commits consume */
	if (!atomic_casrel32(&pp->runqhead, h, h + n))
		return false;

	/* The n slots from h: one run of the ring, or two where it wraps. */
	uint32_t i0 = h % RUNQ_SIZE, i1 = i0 + n;
	struct g *first = SLOT_LOAD(&pp->runq[i0]);
	struct g *last;
	if (i1 <= RUNQ_SIZE) {
		last = link_slots(first, &pp->runq[i0 + 1], &pp->runq[i1]);
	} else {
		last = link_slots(first, &pp->runq[i0 + 1], &pp->runq[RUNQ_SIZE]);
		last = link_slots(last, &pp->runq[0], &pp->runq[i1 - RUNQ_SIZE]);
	}
	last->schedlink = gp;
	gp->schedlink = NULL;
	struct gqueue q = { .head = first, .tail = gp, .size = (int32_t)n + 1 };

	spin_lock(&sched.lock);
	globrunqputbatch(&q);
	spin_unlock(&sched.lock);
	return true;
}

/* runqputbatch's rest (sched.h): q does not fit in the ring; what does
 * not goes to the global queue. */
void runqputbatch_slow(struct p *pp, struct gqueue *q)
{
	if (gqueue_empty(q))
		return;
	/* load-acquire, synchronize with consumers */
	uint32_t h = atomic_load32(&pp->runqhead);
	uint32_t t = pp->runqtail;
	struct g *gp = q->head;
	int32_t n = 0;
	while (gp && t - h < RUNQ_SIZE) {
		struct g *next = gp->schedlink;
		gp->schedlink = NULL;
		set_slot(pp->runq, t, gp);
		t++;
		n++;
		gp = next;
	}
	q->head = gp;
	q->size -= n;
	if (!gp)
		q->tail = NULL;
	/* store-release, makes the items available to consumers */
	atomic_store32(&pp->runqtail, t);

	if (!gqueue_empty(q)) {
		spin_lock(&sched.lock);
		globrunqputbatch(q);
		spin_unlock(&sched.lock);
	}
}

/*
 * runqdrain takes every G from pp's local queue (runnext included) and
 * appends them to out. Owner only: nobody else can add Gs meanwhile.
 */
void runqdrain(struct p *pp, struct gqueue *out)
{
	uintptr_t oldnext = atomic_loaduintptr(&pp->runnext);
	while (oldnext != 0 && !atomic_casuintptr(&pp->runnext, oldnext, 0))
		oldnext = atomic_loaduintptr(&pp->runnext);
	if (oldnext != 0)
		gqueue_pushback(out, (struct g *)oldnext);

	for (;;) {
		/* load-acquire, synchronize with other consumers */
		uint32_t h = atomic_load32(&pp->runqhead);
		uint32_t t = pp->runqtail;
		uint32_t qn = t - h;
		if (qn == 0)
			return;
		if (qn > RUNQ_SIZE)	/* read inconsistent h and t */
			continue;
		/*
		 * Commit first, then read the slots (Go does the same): pushing
		 * a G writes its schedlink, which must wait until the G is
		 * ours and no thief can take it any more. The owner is the only
		 * producer, so nobody overwrites the slots meanwhile.
		 */
		/* cas-release, commits consume */
		if (!atomic_casrel32(&pp->runqhead, h, h + qn))
			continue;
		for (uint32_t i = 0; i < qn; i++)
			gqueue_pushback(out, slot(pp->runq, h + i));
		return;
	}
}

/*
 * runqgrab copies a batch of Gs from pp's queue into the ring `batch`
 * starting at batch_head (mod RUNQ_SIZE) and returns how many. Half of the
 * queue, rounded up; runnext only if the ring is empty and steal_runnext.
 * Any core may call it.
 */
uint32_t runqgrab(struct p *pp, struct g **batch, uint32_t batch_head,
		  bool steal_runnext)
{
	for (;;) {
		/* load-acquire, synchronize with other consumers */
		uint32_t h = atomic_load32(&pp->runqhead);
		/* load-acquire, synchronize with the producer */
		uint32_t t = atomic_load32(&pp->runqtail);
		uint32_t n = t - h;
		n = n - n / 2;
		if (n == 0) {
			if (!steal_runnext)
				return 0;
			uintptr_t next = atomic_loaduintptr(&pp->runnext);
			if (next == 0)
				return 0;
			if (atomic_load32(&pp->status) == _Prunning) {
				/*
				 * pp is running and its G most likely just
				 * readied this one and is about to block or
				 * exit, after which pp runs it at once. Stealing
				 * it now would bounce it between cores. Wait a
				 * moment and see whether it is still there.
				 * Go looks at runnext only, and a ping-pong
				 * pair readies the same two Gs into it in turn:
				 * after the wait the one there is most often
				 * not the one seen, but the pair's next (ABA),
				 * and stealing it splits the pair across two
				 * cores. pp's Gs run meanwhile (nrun moved)
				 * says pp is taking its runnext itself.
				 */
				uint64_t nrun = __atomic_load_n(&pp->nrun, __ATOMIC_RELAXED);
				delay_ns(RUNQ_STEAL_RUNNEXT_BACKOFF_NS);
				if (__atomic_load_n(&pp->nrun, __ATOMIC_RELAXED) != nrun)
					return 0;
			}
			if (!atomic_casuintptr(&pp->runnext, next, 0))
				continue;
			set_slot(batch, batch_head, (struct g *)next);
			return 1;
		}
		/* h and t were read at different times: inconsistent (more
		 * than the ring holds). Read again. */
		if (n > RUNQ_SIZE / 2)
			continue;
		for (uint32_t i = 0; i < n; i++)
			set_slot(batch, batch_head + i, slot(pp->runq, h + i));
		/* cas-release, commits consume */
		if (atomic_casrel32(&pp->runqhead, h, h + n))
			return n;
	}
}

/*
 * runqsteal moves half of p2's queue into pp's and returns one of the Gs
 * (the last one grabbed), or NULL. Called by pp's owner.
 */
struct g *runqsteal(struct p *pp, struct p *p2, bool steal_runnext)
{
	uint32_t t = pp->runqtail;
	uint32_t n = runqgrab(p2, pp->runq, t, steal_runnext);
	if (n == 0)
		return NULL;
	n--;
	struct g *gp = slot(pp->runq, t + n);
	if (n == 0)
		return gp;
	/* load-acquire, synchronize with consumers */
	uint32_t h = atomic_load32(&pp->runqhead);
	if (t - h + n >= RUNQ_SIZE)
		panic("runqsteal: runq overflow");
	/* store-release, makes the item available for consumption */
	atomic_store32(&pp->runqtail, t + n);
	return gp;
}

/*
 * runqempty reports whether pp has no G on its local queue. It never says
 * "empty" while a G moves from runnext to the ring: with G1 in runnext and
 * head == tail, runqput(next) may kick G1 into the ring and runqget empty
 * runnext between our reads of head/tail and of runnext. Re-reading tail
 * after runnext detects that the ring changed meanwhile.
 */
bool runqempty(struct p *pp)
{
	for (;;) {
		uint32_t head = atomic_load32(&pp->runqhead);
		uint32_t tail = atomic_load32(&pp->runqtail);
		uintptr_t runnext = atomic_loaduintptr(&pp->runnext);
		if (tail == atomic_load32(&pp->runqtail))
			return head == tail && runnext == 0;
	}
}
