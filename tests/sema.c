/*
 * Semaphores (sched/sema.c, Go's sema.go): a hand-off release yields to
 * the waiter it readies only where the releaser may switch.
 */
#include "kernel/atomic.h"
#include "kernel/spinlock.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "lib/sync.h"
#include "sched/sched.h"
#include "sched/sema.h"
#include "sched/timer.h"

/*
 * semrelease1(handoff) yields to the waiter it readied (Go's goyield) --
 * only where it may: from a timer callback (on g0) a yield would panic in
 * mcall ("mcall called on g0"), and under a spinlock in schedule ("a G
 * switched out holding a spinlock?").
 */
static volatile uint32_t hs_sem, hs_parking;
static volatile uint64_t hs_woke;
static struct waitgroup hs_wg;

static void hs_waiter(void *arg)
{
	(void)arg;
	atomic_store32(&hs_parking, 1);
	semacquire1(&hs_sem, false, waitReasonSemacquire);
	atomic_xadd64(&hs_woke, 1);
	waitgroup_done(&hs_wg);
}

static void hs_release_fn(void *arg)
{
	(void)arg;
	semrelease1(&hs_sem, true);	/* on g0, in timers_run */
}

/* Start a waiter and give it time to park (it is then on the semaphore's
 * queue; if it has not parked, the release is a plain increment and the
 * test still passes, exercising less). */
static void hs_start_waiter(void)
{
	hs_parking = 0;
	waitgroup_add(&hs_wg, 1);
	go(hs_waiter, NULL);
	while (!atomic_load32(&hs_parking))
		sleep_ns(100 * NSEC_PER_USEC);
	sleep_ns(2 * NSEC_PER_MSEC);
}

TEST(sema_handoff_from_a_timer_callback_or_under_a_spinlock_does_not_yield)
{
	static struct spinlock l = SPINLOCK_INIT("hs");
	struct timer t;
	hs_woke = 0;

	hs_start_waiter();
	timer_init(&t, hs_release_fn, NULL);
	timer_start(&t, nanotime() + NSEC_PER_MSEC);
	waitgroup_wait(&hs_wg);

	hs_start_waiter();
	spin_lock(&l);
	semrelease1(&hs_sem, true);
	spin_unlock(&l);
	waitgroup_wait(&hs_wg);
	EXPECT_EQ(hs_woke, 2);
}
