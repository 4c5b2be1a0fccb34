/*
 * Channel timers (sched/timechan.c) and select with a timeout: a select
 * over a channel and a timer channel picks the timer when nothing is
 * sent, at the timer's deadline and not before, and the channel when
 * something is; Stop keeps a timer from sending; Reset moves it.
 */
#include <stdio.h>

#include "kernel/test.h"
#include "sched/gmk.h"
#include "tests/preempt_testutil.h"

#define TC_TIMEOUT_NS	(30 * NSEC_PER_MSEC)
#define TC_ROUNDS	10

TEST(time_select_picks_the_timer_when_nothing_is_sent)
{
	chan_t work = chan_make(sizeof(int), 0);
	for (int i = 0; i < TC_ROUNDS; i++) {
		uint64_t t0 = nanotime();
		chan_t timeout = time_after(TC_TIMEOUT_NS);
		int v = 0;
		uint64_t when = 0;
		struct select_case cs[] = {
			SELECT_RECV(work, &v),
			SELECT_RECV(timeout, &when),
		};
		ASSERT_EQ(chan_select(cs, 2, false), 1);
		ASSERT(cs[1].ok);
		ASSERT_GE(when, t0 + TC_TIMEOUT_NS);	/* not before */
		ASSERT_GE(nanotime(), t0 + TC_TIMEOUT_NS);
		chan_free(timeout);
	}
	chan_free(work);
}

struct sender_arg { chan_t c; int v; uint64_t delay; };

static void late_sender(void *p)
{
	struct sender_arg *a = p;
	sleep_ns(a->delay);
	chan_send(a->c, &a->v);
}

TEST(time_select_picks_the_channel_when_something_is_sent)
{
	static struct sender_arg a;
	a.c = chan_make(sizeof(int), 0);
	for (int i = 0; i < TC_ROUNDS; i++) {
		struct time_timer *t = time_newtimer(10 * NSEC_PER_SEC);
		a.v = 1000 + i;
		a.delay = (uint64_t)(i % 3) * NSEC_PER_MSEC;	/* 0: sender may come first */
		go(late_sender, &a);
		int v = 0;
		uint64_t when = 0;
		struct select_case cs[] = {
			SELECT_RECV(a.c, &v),
			SELECT_RECV(t->C, &when),
		};
		ASSERT_EQ(chan_select(cs, 2, false), 0);
		ASSERT_EQ(v, 1000 + i);
		ASSERT(time_timer_stop(t));		/* had not fired */
		ASSERT_EQ(chan_len(t->C), 0);
		time_timer_free(t);
	}
	chan_free(a.c);
}

TEST(time_timer_stop_and_reset)
{
	struct time_timer *t = time_newtimer(TC_TIMEOUT_NS);
	ASSERT(time_timer_stop(t));
	sleep_ns(2 * TC_TIMEOUT_NS);
	ASSERT_EQ(chan_len(t->C), 0);		/* stopped: never sent */
	ASSERT(!time_timer_stop(t));

	uint64_t t0 = nanotime();
	ASSERT(!time_timer_reset(t, TC_TIMEOUT_NS));	/* was not pending */
	uint64_t when;
	ASSERT(chan_recv(t->C, &when));
	ASSERT_GE(when, t0 + TC_TIMEOUT_NS);
	time_timer_free(t);
}
