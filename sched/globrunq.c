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

void globrunq_unlocked(void)
{
	panic("global run queue used without sched.lock");
}

/* globrunqputhead puts gp at the head: it runs before everything queued. */
void globrunqputhead(struct g *gp)
{
	assert_sched_locked();
	gqueue_push(&sched.runq, gp);
	globrunq_publish_size();
}

/* globrunqputbatch appends a whole batch; *batch is empty afterwards. */
void globrunqputbatch(struct gqueue *batch)
{
	assert_sched_locked();
	gqueue_pushbackall(&sched.runq, batch);
	globrunq_publish_size();
}

/* globrunqget takes one G from the head, or NULL. */
struct g *globrunqget(void)
{
	assert_sched_locked();
	struct g *gp = gqueue_pop(&sched.runq);
	globrunq_publish_size();
	return gp;
}
