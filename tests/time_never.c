/*
 * Deadlines past the end of time (TIME_NEVER, kernel/time.h): a duration
 * whose deadline would overflow, or an absolute deadline at or past the
 * end, means "never", as Go clamps `when` to maxWhen. Such a timer stays
 * pending and never fires, a sleep of it parks for good, a poll deadline
 * of it never times out; and a G left waiting on nothing but such a
 * timer counts as blocked for good in checkdead (a deadlock), since no
 * timer can wake it.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "sched/schedimpl.h"
#include "tests/sched_testutil.h"

/* The timer that must fire first, and how long the others are then
 * watched: they would fire at once (a deadline that wrapped lies in the
 * past), so a tenth of a second is ample; a loaded host that stalls the
 * guest only makes the watch longer, never shorter. */
#define SHORT_NS	(25 * NSEC_PER_MSEC)
#define WATCH_NS	(100 * NSEC_PER_MSEC)

static volatile uint64_t raw_fired;

static void raw_fire(void *arg)
{
	(void)arg;
	atomic_xadd64(&raw_fired, 1);
}

TEST(time_overflowing_deadlines_never_fire_and_a_25ms_timer_does)
{
	static struct timer raw_start, raw_reset;

	atomic_store64(&raw_fired, 0);
	uint64_t t0 = nanotime();
	chan_t after_max = time_after(UINT64_MAX);
	chan_t after_max_1000 = time_after(UINT64_MAX - 1000);
	chan_t after_end = time_after(TIME_NEVER - t0);	/* lands on the end */
	struct time_timer *newt = time_newtimer(UINT64_MAX);
	struct time_timer *reset = time_newtimer(10 * NSEC_PER_SEC);
	EXPECT(time_timer_reset(reset, UINT64_MAX));	/* was pending */
	timer_init(&raw_start, raw_fire, NULL);
	timer_start(&raw_start, UINT64_MAX);		/* absolute, past the end */
	timer_init(&raw_reset, raw_fire, NULL);
	timer_start(&raw_reset, nanotime() + 10 * NSEC_PER_SEC);
	EXPECT(timer_reset(&raw_reset, UINT64_MAX - 1000));
	struct time_timer *shortt = time_newtimer(SHORT_NS);

	uint64_t v = 0;
	struct select_case cs[] = {
		SELECT_RECV(after_max, &v),
		SELECT_RECV(after_max_1000, &v),
		SELECT_RECV(after_end, &v),
		SELECT_RECV(newt->C, &v),
		SELECT_RECV(reset->C, &v),
		SELECT_RECV(shortt->C, &v),
	};
	int got = chan_select(cs, 6, false);
	uint64_t t1 = nanotime();
	printf("# case %d came first, after %llu us (the 25 ms timer is case 5)\n",
	       got, (unsigned long long)((t1 - t0) / NSEC_PER_USEC));
	ASSERT_EQ(got, 5);
	EXPECT_GE(t1 - t0, SHORT_NS);

	sleep_ns(WATCH_NS);
	EXPECT_EQ(chan_len(after_max), 0);
	EXPECT_EQ(chan_len(after_max_1000), 0);
	EXPECT_EQ(chan_len(after_end), 0);
	EXPECT_EQ(chan_len(newt->C), 0);
	EXPECT_EQ(chan_len(reset->C), 0);
	EXPECT_EQ(raw_fired, 0);
	/* Still pending: a timer that never fires is stopped as any other. */
	EXPECT(time_timer_stop(newt));
	EXPECT(time_timer_stop(reset));
	EXPECT(timer_stop(&raw_start));
	EXPECT(timer_stop(&raw_reset));
	time_timer_free(newt);
	time_timer_free(reset);
	time_timer_free(shortt);
	chan_free(after_max);
	chan_free(after_max_1000);
	chan_free(after_end);
}

/* A never timer moved back into time fires as any other. */
TEST(time_a_never_timer_reset_to_a_real_deadline_fires)
{
	struct time_timer *t = time_newtimer(UINT64_MAX);
	uint64_t t0 = nanotime();
	EXPECT(time_timer_reset(t, SHORT_NS));
	uint64_t when = 0;
	chan_recv(t->C, &when);
	EXPECT_GE(when, t0 + SHORT_NS);
	time_timer_free(t);
}

/* ---- sleep --------------------------------------------------------------- */

static const uint64_t never_sleeps[] = { UINT64_MAX, UINT64_MAX - 1000, TIME_NEVER };
#define NEVER_SLEEPS (sizeof never_sleeps / sizeof never_sleeps[0])

static volatile uintptr_t never_sleeper;	/* struct g *, atomic */
static volatile uint64_t never_woken;

static void sleep_never(void *arg)
{
	(void)arg;
	atomic_storeuintptr(&never_sleeper, (uintptr_t)getg());
	for (unsigned i = 0; i < NEVER_SLEEPS; i++) {
		sleep_ns(never_sleeps[i]);
		atomic_xadd64(&never_woken, 1);
	}
}

/*
 * A sleep past the end of time parks for good. It parks with no timer at
 * all (there is nothing to fire), so a goready is the only thing that
 * ends it: the test does that to end each sleep and leave no G behind.
 */
TEST(time_sleep_of_the_largest_durations_parks_for_good)
{
	atomic_storeuintptr(&never_sleeper, 0);
	atomic_store64(&never_woken, 0);
	go(sleep_never, NULL);
	struct g *gp;
	while ((gp = (struct g *)atomic_loaduintptr(&never_sleeper)) == NULL)
		gosched();
	for (unsigned i = 0; i < NEVER_SLEEPS; i++) {
		while (readgstatus(gp) != _Gwaiting) {
			ASSERT_EQ(atomic_load64(&never_woken), i);
			gosched();
		}
		sleep_ns(WATCH_NS);
		ASSERT_EQ(atomic_load64(&never_woken), i);
		ASSERT_EQ(readgstatus(gp), _Gwaiting);
		EXPECT_EQ(gp->waitreason, waitReasonSleep);
		preempt_disable();		/* goready readies onto this P */
		goready(gp);
		preempt_enable();
		ASSERT_EQ(wait_count(&never_woken, i + 1, 10 * NSEC_PER_SEC), i + 1);
	}
}

/* ---- poll deadlines -------------------------------------------------------- */

static struct pollDesc never_pd;
static volatile uint64_t never_poll_result = 99;

static void never_poller(void *arg)
{
	(void)arg;
	atomic_store64(&never_poll_result, (uint64_t)poll_wait(&never_pd, 'r'));
}

/* A read deadline past the end of time (the console's is the same
 * pollDesc deadline) never times out: the waiter is still parked after
 * the watch, and readiness then wakes it. */
TEST(time_poll_deadline_past_the_end_of_time_never_times_out)
{
	static const uint64_t deadlines[] = { UINT64_MAX, UINT64_MAX - 1000, TIME_NEVER };
	for (unsigned i = 0; i < sizeof deadlines / sizeof deadlines[0]; i++) {
		memset(&never_pd, 0, sizeof never_pd);
		atomic_store64(&never_poll_result, 99);
		poll_setdeadline(&never_pd, deadlines[i], 'r');
		go(never_poller, NULL);
		while (!pd_parked(&never_pd, 'r') && atomic_load64(&never_poll_result) == 99)
			sleep_ns(NSEC_PER_MSEC);
		sleep_ns(WATCH_NS);
		ASSERT_EQ(atomic_load64(&never_poll_result), 99);
		EXPECT(pd_parked(&never_pd, 'r'));
		netpollready(&never_pd, 'r');
		while (atomic_load64(&never_poll_result) == 99)
			sleep_ns(NSEC_PER_MSEC);
		EXPECT_EQ(never_poll_result, POLL_OK);
		poll_setdeadline(&never_pd, 0, 'r');
	}
}

/* ---- checkdead ------------------------------------------------------------- */

static void park_on_never_sleep(void *arg)
{
	(void)arg;
	sleep_ns(UINT64_MAX);
}

/* Nothing can wake a G asleep past the end of time: with every other G
 * parked too, that is a deadlock (Go would hang; see checkdead.c). */
TEST_FATAL(time_sleeping_forever_with_nothing_else_to_run_is_a_deadlock,
	   "all goroutines are asleep - deadlock!")
{
	go(park_on_never_sleep, NULL);
	sleep_ns(UINT64_MAX - 1);
}

/* The same with a pending timer that never fires (it is in a heap, but
 * can wake nothing). */
TEST_FATAL(time_waiting_on_a_timer_that_never_fires_is_a_deadlock,
	   "all goroutines are asleep - deadlock!")
{
	struct time_timer *t = time_newtimer(UINT64_MAX);
	chan_recv(t->C, NULL);
}
