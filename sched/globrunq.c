/*
 * The global run queue: sched.runq, a gQueue under sched.lock. Gs land
 * here from gosched (and preemption), from a full local queue
 * (runqputslow) and from anything that has no P. findrunnable takes one G
 * every 61st schedtick, for fairness, and batches when the local queue is
 * empty.
 */
#include "kernel/atomic.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "sched/sched.h"

/* The scheduler's global state. Defined here, with the queue it guards,
 * so that the host tests link the run queues without the rest of sched/. */
struct schedt sched = {
	.lock = SPINLOCK_INIT("sched"),
	.gfree_lock = SPINLOCK_INIT("sched.gfree"),
	.allglock = SPINLOCK_INIT("sched.allg"),
};

/* Publish the size for globrunqempty(): store-release, so a core that sees
 * it nonzero and then takes the lock finds the Gs. */
static inline void publish_size(void)
{
	atomic_store32(&sched.runqsize, (uint32_t)sched.runq.size);
}

static inline void assert_sched_locked(void)
{
#ifndef NDEBUG
	/* The holder field alone (spin_held also reads the tickets): it
	 * names this core only between its spin_lock and spin_unlock. */
	if (__builtin_expect(__atomic_load_n(&sched.lock.holder, __ATOMIC_RELAXED) !=
			     (int32_t)cpu_id(), 0))
		panic("global run queue used without sched.lock");
#endif
}

/* globrunqput puts gp at the tail of the global queue. */
void globrunqput(struct g *gp)
{
	assert_sched_locked();
	gqueue_pushback(&sched.runq, gp);
	publish_size();
}

/* globrunqputhead puts gp at the head: it runs before everything queued. */
void globrunqputhead(struct g *gp)
{
	assert_sched_locked();
	gqueue_push(&sched.runq, gp);
	publish_size();
}

/* globrunqputbatch appends a whole batch; *batch is empty afterwards. */
void globrunqputbatch(struct gqueue *batch)
{
	assert_sched_locked();
	gqueue_pushbackall(&sched.runq, batch);
	publish_size();
}

/* globrunqget takes one G from the head, or NULL. */
struct g *globrunqget(void)
{
	assert_sched_locked();
	struct g *gp = gqueue_pop(&sched.runq);
	publish_size();
	return gp;
}

/*
 * globrunqgetbatch takes min(max, size, size/nprocs + 1) Gs: it returns the
 * first and appends the rest to *q, which the caller puts on its local
 * queue with runqputbatch after dropping the lock. The size/nprocs term
 * leaves the other Ps their share.
 */
struct g *globrunqgetbatch(int32_t max, struct gqueue *q)
{
	assert_sched_locked();
	int32_t size = sched.runq.size;
	if (size == 0)
		return NULL;
	uint32_t nprocs = sched.nprocs ? sched.nprocs : 1;
	int32_t n = size / (int32_t)nprocs + 1;
	if (n > size)
		n = size;
	if (n > max)
		n = max;
	if (n < 1)
		n = 1;

	/* Detach the first n Gs as one chain (a walk, not n pops and
	 * pushes: this runs every other gosched at 1 P). */
	struct g *gp = sched.runq.head;
	struct g *last = gp;
	for (int32_t i = 1; i < n; i++)
		last = last->schedlink;
	sched.runq.head = last->schedlink;
	if (sched.runq.head == NULL)
		sched.runq.tail = NULL;
	sched.runq.size -= n;
	last->schedlink = NULL;
	if (n > 1) {
		struct gqueue chain = { gp->schedlink, last, n - 1 };
		if (q->tail == NULL)
			*q = chain;
		else
			gqueue_pushbackall(q, &chain);
	}
	gp->schedlink = NULL;
	publish_size();
	return gp;
}
