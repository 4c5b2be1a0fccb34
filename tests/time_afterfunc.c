/*
 * time_afterfunc (Go's time.AfterFunc): fn runs in a goroutine of its
 * own, so it may block, as a timer callback may not; Stop reports true
 * exactly when it kept fn from starting, also when it races the firing
 * on another core; Reset runs fn again.
 */
#include <stdio.h>

#include "kernel/kmalloc.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/sched_testutil.h"

struct blocker {
	chan_t in, out;
	uint64_t goid;
};

/* Blocks in chan_recv: on the scheduler (a plain timer callback) that is
 * the fatal error "timer callback ... blocked". */
static void blocking_fn(void *p)
{
	struct blocker *b = p;
	int v;
	chan_recv(b->in, &v);
	b->goid = goid();
	v++;
	chan_send(b->out, &v);
}

TEST(time_afterfunc_runs_fn_in_a_goroutine_that_may_block)
{
	static struct blocker b;
	b.in = chan_make(sizeof(int), 0);
	b.out = chan_make(sizeof(int), 0);
	struct time_timer *t = time_afterfunc(NSEC_PER_MSEC, blocking_fn, &b);
	EXPECT(t->C == NULL);
	int v = 41;
	chan_send(b.in, &v);		/* fn is parked in chan_recv by now or soon */
	chan_recv(b.out, &v);
	EXPECT_EQ(v, 42);
	EXPECT_NE(b.goid, 0);
	EXPECT_NE(b.goid, goid());
	EXPECT(!time_timer_stop(t));	/* it ran */
	time_timer_free(t);
	chan_free(b.in);
	chan_free(b.out);
}

static volatile uint64_t fn_runs;

static void count_fn(void *p)
{
	(void)p;
	atomic_xadd64(&fn_runs, 1);
}

TEST(time_afterfunc_stop_keeps_fn_from_running_and_reset_runs_it_again)
{
	atomic_store64(&fn_runs, 0);
	struct time_timer *t = time_afterfunc(20 * NSEC_PER_MSEC, count_fn, NULL);
	EXPECT(time_timer_stop(t));
	sleep_ns(40 * NSEC_PER_MSEC);
	EXPECT_EQ(atomic_load64(&fn_runs), 0);
	EXPECT(!time_timer_stop(t));

	EXPECT(!time_timer_reset(t, NSEC_PER_MSEC));	/* was not pending */
	EXPECT_EQ(wait_count(&fn_runs, 1, 10 * NSEC_PER_SEC), 1);
	EXPECT(!time_timer_reset(t, NSEC_PER_MSEC));	/* fired: not pending */
	EXPECT_EQ(wait_count(&fn_runs, 2, 10 * NSEC_PER_SEC), 2);
	time_timer_free(t);
}

/*
 * 4,000 AfterFuncs of 0-63 us, each stopped and freed after a delay of
 * 0-63 us by Gs on every P (every 16th after a 1 ms sleep instead, by
 * which it has fired on any machine: a busy P fires a due timer only as
 * fast as its tick, and under TSan none of the spins may outlast it),
 * so that many Stops meet a firing that has
 * left its heap on another core. fn runs exactly as many times as Stop
 * returned false: no fn lost to a Stop that said it had started, none
 * run behind a Stop that said it had not. The freed timers leave no
 * memory behind.
 */
#define AF_GS		8
#define AF_EACH		500
#define AF_WAIT_NS	(30 * NSEC_PER_SEC)

static volatile uint64_t af_false, af_progress;
static struct waitgroup af_wg;

static void af_stopper(void *p)
{
	uint64_t r = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull + 1;
	for (int i = 0; i < AF_EACH; i++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		struct time_timer *t = time_afterfunc((r & 63) * NSEC_PER_USEC, count_fn, NULL);
		if (i % 16 == 0)
			sleep_ns(NSEC_PER_MSEC);	/* fires first, however slow the machine */
		else
			delay_ns(((r >> 8) & 63) * NSEC_PER_USEC);
		if (!time_timer_stop(t))
			atomic_xadd64(&af_false, 1);
		time_timer_free(t);
		atomic_xadd64(&af_progress, 1);
	}
	waitgroup_done(&af_wg);
}

TEST(time_afterfunc_stop_is_false_exactly_when_fn_runs)
{
	atomic_store64(&fn_runs, 0);
	atomic_store64(&af_false, 0);
	uint64_t km0 = kmalloc_bytes_in_use();
	waitgroup_add(&af_wg, AF_GS);
	for (uintptr_t i = 0; i < AF_GS; i++)
		go(af_stopper, (void *)(i + 1));
	waitgroup_wait(&af_wg);
	uint64_t want = atomic_load64(&af_false);
	uint64_t got = wait_count_progress(&fn_runs, want, &fn_runs, AF_WAIT_NS);
	sleep_ns(10 * NSEC_PER_MSEC);	/* a run too many would show by now */
	got = atomic_load64(&fn_runs);
	printf("# %u AfterFuncs: Stop false %llu times, fn ran %llu times\n", AF_GS * AF_EACH,
	       (unsigned long long)want, (unsigned long long)got);
	EXPECT_EQ(got, want);
	EXPECT_GT(want, 0);			/* some fired before their Stop */
	EXPECT_LT(want, AF_GS * AF_EACH);	/* and some were stopped */
	EXPECT_LE(kmalloc_bytes_in_use(), km0 + 4096);
}

/*
 * The race above, made to happen every round: the test holds the
 * timer's send lock until the firing has left the heap on another core
 * (it then waits for that lock), and calls Stop as it lets go. Whichever
 * takes the lock first, fn has been started by then (Go's rule: a timer
 * whose firing is under way has expired), so Stop is false and fn runs,
 * every round. Needs a second P to fire the timer.
 */
#define RACE_ROUNDS	100

TEST(time_afterfunc_stop_against_a_firing_under_way_is_false_and_fn_runs)
{
	if (sched_nprocs() < 2)
		test_skip("needs 2 Ps: another core fires the timer");
	atomic_store64(&fn_runs, 0);
	uint32_t nfalse = 0;
	for (int i = 0; i < RACE_ROUNDS; i++) {
		struct time_timer *t = time_afterfunc(100 * NSEC_PER_USEC, count_fn, NULL);
		uint64_t end = nanotime() + 10 * NSEC_PER_SEC;
		spin_lock(&t->tc.sendlock);
		while (atomic_loaduintptr((volatile uintptr_t *)&t->tc.t.pp) && nanotime() < end)
			arch_cpu_relax();
		bool left = atomic_loaduintptr((volatile uintptr_t *)&t->tc.t.pp) == 0;
		spin_unlock(&t->tc.sendlock);
		bool stopped = time_timer_stop(t);
		time_timer_free(t);
		ASSERT(left);
		if (!stopped)
			nfalse++;
	}
	EXPECT_EQ(nfalse, RACE_ROUNDS);
	EXPECT_EQ(wait_count(&fn_runs, RACE_ROUNDS, 10 * NSEC_PER_SEC), RACE_ROUNDS);
	sleep_ns(NSEC_PER_MSEC);
	EXPECT_EQ(atomic_load64(&fn_runs), RACE_ROUNDS);
}
