/*
 * WaitGroup, Once and Cond.
 */
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/test.h"
#include "tests/chan_testutil.h"

/* ---- WaitGroup: Wait returns only after every Done; reusable ---- */

#define WG_GS		250
#define WG_ROUNDS	3

struct wgtest {
	struct waitgroup wg;
	struct waitgroup waiter_left;	/* the second waiter has checked */
	volatile uint32_t done;
};

static void wg_worker(void *p)
{
	struct wgtest *t = p;

	if (atomic_load32(&t->done) % 7 == 0)
		gosched();
	atomic_xadd32(&t->done, 1);
	waitgroup_done(&t->wg);
}

static void wg_waiter(void *p)
{
	struct wgtest *t = p;

	waitgroup_wait(&t->wg);
	if (atomic_load32(&t->done) != WG_GS)
		test_fail(__FILE__, __LINE__, "waiter woke with %u of %u done",
			  atomic_load32(&t->done), WG_GS);
	waitgroup_done(&t->waiter_left);
}

TEST(sync_waitgroup_waits_for_all)
{
	static struct wgtest t;

	for (int r = 0; r < WG_ROUNDS; r++) {
		t.done = 0;
		waitgroup_add(&t.wg, WG_GS);
		for (int i = 0; i < WG_GS; i++)
			go(wg_worker, &t);
		waitgroup_add(&t.waiter_left, 1);
		go(wg_waiter, &t);		/* a second waiter */
		waitgroup_wait(&t.wg);
		ASSERT_EQ(t.done, WG_GS);
		/* The other waiter must have left Wait and checked before the
		 * next round resets the count (Go: reusing a WaitGroup before
		 * the previous Wait returned is a misuse). Not a time budget:
		 * it tells us. */
		waitgroup_wait(&t.waiter_left);
	}
	waitgroup_wait(&t.wg);			/* zero: returns at once */
	ASSERT_EQ(t.wg.state, 0);
}

/* ---- Once: exactly one run from 1,000 racing Gs ---- */

#define ONCE_GS 1000

struct oncetest {
	struct once once;
	volatile uint32_t runs;
	volatile uint32_t effect;	/* set by the function, slowly */
	volatile uint32_t early;	/* callers that returned before it */
	struct waitgroup wg;
};

static void once_fn(void *p)
{
	struct oncetest *t = p;

	atomic_xadd32(&t->runs, 1);
	delay_ns(200 * NSEC_PER_USEC);	/* widen the window for racers */
	gosched();
	atomic_store32(&t->effect, 1);
}

static void once_caller(void *p)
{
	struct oncetest *t = p;

	once_do(&t->once, once_fn, t);
	if (!atomic_load32(&t->effect))
		atomic_xadd32(&t->early, 1);
	waitgroup_done(&t->wg);
}

TEST(sync_once_runs_exactly_once)
{
	static struct oncetest t;

	t = (struct oncetest){ 0 };
	waitgroup_add(&t.wg, ONCE_GS);
	for (int i = 0; i < ONCE_GS; i++)
		go(once_caller, &t);
	waitgroup_wait(&t.wg);
	ASSERT_EQ(t.runs, 1);
	ASSERT_EQ(t.early, 0);		/* nobody returned before it finished */
	once_do(&t.once, once_fn, &t);
	ASSERT_EQ(t.runs, 1);
}

/* ---- Cond: Broadcast wakes every waiter, Signal one ---- */

#define COND_GS 100

struct condtest {
	struct mutex mu;
	struct cond cv;
	uint32_t generation;		/* under mu */
	uint32_t waiting;		/* under mu */
	volatile uint32_t woken;
	struct waitgroup wg;
};

static void cond_waiter(void *p)
{
	struct condtest *t = p;

	mutex_lock(&t->mu);
	uint32_t gen = t->generation;
	t->waiting++;
	while (t->generation == gen)
		cond_wait(&t->cv);
	t->waiting--;
	mutex_unlock(&t->mu);
	atomic_xadd32(&t->woken, 1);
	waitgroup_done(&t->wg);
}

static uint32_t waiting_now(struct condtest *t)
{
	mutex_lock(&t->mu);
	uint32_t n = t->waiting;
	mutex_unlock(&t->mu);
	return n;
}

TEST(sync_cond_broadcast_wakes_all)
{
	static struct condtest t;

	t = (struct condtest){ 0 };
	cond_init(&t.cv, &t.mu);
	waitgroup_add(&t.wg, COND_GS);
	for (int i = 0; i < COND_GS; i++)
		go(cond_waiter, &t);
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (waiting_now(&t) < COND_GS && nanotime() < end)
		gosched();
	ASSERT_EQ(waiting_now(&t), COND_GS);
	yield_for(NSEC_PER_MSEC);
	ASSERT_EQ(t.woken, 0);

	mutex_lock(&t.mu);
	t.generation++;
	cond_broadcast(&t.cv);
	mutex_unlock(&t.mu);
	waitgroup_wait(&t.wg);
	ASSERT_EQ(t.woken, COND_GS);
	ASSERT_EQ(t.waiting, 0);
}

static void cond_signal_waiter(void *p)
{
	struct condtest *t = p;

	mutex_lock(&t->mu);
	t->waiting++;
	cond_wait(&t->cv);		/* one wake-up per Signal */
	t->waiting--;
	mutex_unlock(&t->mu);
	atomic_xadd32(&t->woken, 1);
	waitgroup_done(&t->wg);
}

TEST(sync_cond_signal_wakes_one)
{
	static struct condtest t;
	const uint32_t n = 8;

	t = (struct condtest){ 0 };
	cond_init(&t.cv, &t.mu);
	waitgroup_add(&t.wg, (int32_t)n);
	for (uint32_t i = 0; i < n; i++)
		go(cond_signal_waiter, &t);
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (waiting_now(&t) < n && nanotime() < end)
		gosched();
	ASSERT_EQ(waiting_now(&t), n);
	for (uint32_t i = 1; i <= n; i++) {
		cond_signal(&t.cv);
		end = nanotime() + WAIT_TIMEOUT_NS;
		while (atomic_load32(&t.woken) < i && nanotime() < end)
			gosched();
		yield_for(200 * NSEC_PER_USEC);
		ASSERT_EQ(atomic_load32(&t.woken), i);	/* exactly one more */
	}
	waitgroup_wait(&t.wg);
}
