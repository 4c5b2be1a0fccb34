/*
 * Channel timers (sched/timechan.c) and select with a timeout: a select
 * over a channel and a timer channel picks the timer when nothing is
 * sent, at the timer's deadline and not before, and the channel when
 * something is; Stop keeps a timer from sending; Reset moves it; after
 * either no stale value is received (Go 1.23). A select loop with a
 * timeout keeps memory and the timer heaps flat, whether the timeout is
 * the select's own (SELECT_AFTER) or a time_after channel freed each
 * round.
 */
#include <stdio.h>

#include "kernel/kmalloc.h"
#include "kernel/page.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/chan_testutil.h"
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

/* Wait (bounded: a 1 ms timer that has not fired in 10 s is lost) until
 * c holds a value. */
static bool wait_for_value(chan_t c)
{
	uint64_t end = nanotime() + 10 * NSEC_PER_SEC;
	while (chan_len(c) == 0 && nanotime() < end)
		sleep_ns(NSEC_PER_MSEC);
	return chan_len(c) == 1;
}

/* Go 1.23: a timer that fired but whose value nobody received is not
 * "expired" for Stop: Stop takes the value back and reports true, and
 * nothing is received after it. */
TEST(time_timer_stop_takes_back_a_value_not_yet_received)
{
	struct time_timer *t = time_newtimer(NSEC_PER_MSEC);
	ASSERT(wait_for_value(t->C));
	EXPECT(time_timer_stop(t));
	EXPECT_EQ(chan_len(t->C), 0);
	bool ok;
	EXPECT(!chan_tryrecv(t->C, NULL, &ok));
	EXPECT(!time_timer_stop(t));		/* nothing left to stop */
	time_timer_free(t);
}

/* Go 1.23: after Reset, only the new deadline's value is received. */
TEST(time_timer_reset_discards_a_stale_value)
{
	struct time_timer *t = time_newtimer(NSEC_PER_MSEC);
	ASSERT(wait_for_value(t->C));
	uint64_t t0 = nanotime();
	EXPECT(time_timer_reset(t, TC_TIMEOUT_NS));	/* it took a value back */
	bool ok;
	EXPECT(!chan_tryrecv(t->C, NULL, &ok));
	uint64_t when = 0;
	ASSERT(chan_recv(t->C, &when));
	EXPECT_GE(when, t0 + TC_TIMEOUT_NS);
	time_timer_free(t);
}

/* Timers pending in every P's heap. */
static uint64_t timers_pending(void)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < sched_nprocs(); i++)
		n += timers_len(sched_p(i));
	return n;
}

TEST(time_select_after_picks_the_timeout_when_nothing_is_sent)
{
	chan_t work = chan_make(sizeof(int), 0);
	for (int i = 0; i < TC_ROUNDS; i++) {
		uint64_t t0 = nanotime();
		int v = 0;
		struct select_case cs[] = {
			SELECT_RECV(work, &v),
			SELECT_AFTER(TC_TIMEOUT_NS),
		};
		ASSERT_EQ(chan_select(cs, 2, false), 1);
		EXPECT(cs[1].ok);
		ASSERT_GE(nanotime(), t0 + TC_TIMEOUT_NS);	/* not before */
	}
	chan_free(work);
}

/* The channel wins; the select's timer is gone when the select returns
 * (no timer left pending), so nothing can fire later. The timeout is far
 * beyond the sender's delay, so that a host that stops the sender's core
 * cannot let it win. */
TEST(time_select_after_loses_to_a_channel_and_leaves_no_timer)
{
	static struct sender_arg a;
	uint64_t pending0 = timers_pending();
	a.c = chan_make(sizeof(int), 0);
	for (int i = 0; i < TC_ROUNDS; i++) {
		a.v = 2000 + i;
		a.delay = (uint64_t)(i % 3) * NSEC_PER_MSEC;
		go(late_sender, &a);
		int v = 0;
		struct select_case cs[] = {
			SELECT_AFTER(10 * NSEC_PER_SEC),
			SELECT_RECV(a.c, &v),
		};
		ASSERT_EQ(chan_select(cs, 2, false), 1);
		EXPECT_EQ(v, 2000 + i);
		EXPECT(!cs[0].ok);
		EXPECT_LE(timers_pending(), pending0);
	}
	chan_free(a.c);
}

TEST(time_select_after_alone_sleeps_and_with_default_polls)
{
	uint64_t t0 = nanotime();
	struct select_case after[] = { SELECT_AFTER(TC_TIMEOUT_NS) };
	EXPECT_EQ(chan_select(after, 1, false), 0);
	EXPECT_GE(nanotime(), t0 + TC_TIMEOUT_NS);
	EXPECT_EQ(chan_select(after, 1, true), SELECT_DEFAULT);	/* not yet */
	chan_t c = chan_make(sizeof(int), 0);
	struct select_case now[] = { SELECT_RECV(c, NULL), SELECT_AFTER(0) };
	EXPECT_EQ(chan_select(now, 2, false), 1);	/* expired at once */
	EXPECT_EQ(chan_select(now, 2, true), 1);	/* ready beats default */
	chan_free(c);
}

/*
 * A select loop with a timeout, 100,000 rounds. A G parked in chan_recv
 * on `ack` sends each round's work once it is acked, so the select has
 * mostly parked, its timer armed, before the work comes (4 rounds in 5
 * on the hosted board at 1, 2 and 4 Ps: a preemption can put the feeder
 * ahead for a while). Every 10,000th round nothing is sent and the
 * timeout wins. Memory and the timer heaps are where they were after a
 * warm-up: the warm-up fills what stays (the heaps' arrays; time_after's
 * rounds fill the channel quarantine, 256 channels). A timer or channel
 * left behind per round would be 100,000 of them, megabytes; the margin
 * is 4 KiB.
 */
#define LOOP_ROUNDS	100000u
#define LOOP_WARMUP	1000u
#define LOOP_TIMEOUT_EVERY 10000u

struct loop_feed { chan_t ack, work; struct waitgroup done; };

static void loop_feeder(void *p)
{
	struct loop_feed *f = p;
	uint32_t i;
	while (chan_recv(f->ack, &i))
		chan_send(f->work, &i);
	waitgroup_done(&f->done);
}

/* Runs `rounds` rounds; returns how many the timeout won. use_after:
 * time_after channels freed each round, else SELECT_AFTER. */
static uint32_t select_loop(struct loop_feed *f, uint32_t rounds, bool use_after)
{
	uint32_t timeouts = 0;
	for (uint32_t i = 0; i < rounds; i++) {
		bool quiet = i % LOOP_TIMEOUT_EVERY == LOOP_TIMEOUT_EVERY - 1;
		uint64_t ns = quiet ? NSEC_PER_MSEC : 10 * NSEC_PER_SEC;
		if (!quiet)
			chan_send(f->ack, &i);
		uint32_t v = ~0u;
		chan_t tc = use_after ? time_after(ns) : NULL;
		struct select_case cs[] = {
			SELECT_RECV(f->work, &v),
			use_after ? (struct select_case)SELECT_RECV(tc, NULL)
				  : (struct select_case)SELECT_AFTER(ns),
		};
		int r = chan_select(cs, 2, false);
		if (r == 1)
			timeouts++;
		else if (v != i)
			test_fail(__FILE__, __LINE__, "round %u received %u", i, v);
		chan_free(tc);
	}
	return timeouts;
}

static void select_loop_flat(bool use_after)
{
	static struct loop_feed f;
	f.ack = chan_make(sizeof(uint32_t), 0);
	f.work = chan_make(sizeof(uint32_t), 0);
	waitgroup_add(&f.done, 1);
	go(loop_feeder, &f);
	select_loop(&f, LOOP_WARMUP, use_after);
	uint64_t km0 = kmalloc_bytes_in_use(), pg0 = page_bytes_in_use();
	uint64_t pending0 = timers_pending();
	uint64_t t0 = nanotime();
	uint32_t timeouts = select_loop(&f, LOOP_ROUNDS, use_after);
	uint64_t km1 = kmalloc_bytes_in_use(), pg1 = page_bytes_in_use();
	uint64_t pending1 = timers_pending();
	printf("# %u rounds (%s) in %llu ms: kmalloc %llu -> %llu bytes, pages %llu -> %llu "
	       "bytes, timers pending %llu -> %llu\n", LOOP_ROUNDS,
	       use_after ? "time_after" : "SELECT_AFTER",
	       (unsigned long long)((nanotime() - t0) / NSEC_PER_MSEC),
	       (unsigned long long)km0, (unsigned long long)km1, (unsigned long long)pg0,
	       (unsigned long long)pg1, (unsigned long long)pending0,
	       (unsigned long long)pending1);
	EXPECT_EQ(timeouts, LOOP_ROUNDS / LOOP_TIMEOUT_EVERY);
	EXPECT_LE(km1, km0 + 4096);
	EXPECT_LE(pg1, pg0 + 4096);
	EXPECT_LE(pending1, pending0);
	chan_close(f.ack);
	waitgroup_wait(&f.done);
	chan_free(f.work);
	chan_free(f.ack);
}

TEST(time_select_after_loop_of_100000_rounds_keeps_memory_flat)
{
	select_loop_flat(false);
}

TEST(time_after_freed_each_round_keeps_a_select_loop_flat)
{
	select_loop_flat(true);
}

/* chan_free of a time_after channel whose timer is pending stops the
 * timer: nothing is left in the heaps, and nothing fires on the freed
 * channel later. */
TEST(time_after_channel_freed_before_it_fires_stops_its_timer)
{
	uint64_t pending0 = timers_pending(), t0 = nanotime();
	chan_t c[16];
	for (int i = 0; i < 16; i++)
		c[i] = time_after(TC_TIMEOUT_NS + (uint64_t)i * NSEC_PER_MSEC);
	/* Each whose deadline (t0 + its duration, at least) is still ahead
	 * after the count was pending when counted: a host that stopped
	 * this core past some deadlines lets those fire first. */
	uint64_t pending = timers_pending(), now = nanotime();
	uint32_t ahead = 0;
	for (int i = 0; i < 16; i++)
		ahead += t0 + TC_TIMEOUT_NS + (uint64_t)i * NSEC_PER_MSEC > now;
	EXPECT_GE(pending, pending0 + ahead);
	for (int i = 0; i < 16; i++)
		chan_free(c[i]);
	EXPECT_LE(timers_pending(), pending0);
	sleep_ns(TC_TIMEOUT_NS + 20 * NSEC_PER_MSEC);	/* past every deadline */
}

/*
 * Stop against a firing under way, made to happen every round: the test
 * holds the timer's send lock until the firing has left the heap on
 * another core, and calls Stop as it lets go. Whichever takes the lock
 * first, the value is not received: Stop cancels the send, or takes the
 * value back, and says true (Go 1.23). Needs a second P to fire it.
 */
TEST(time_timer_stop_against_a_firing_under_way_leaves_no_value)
{
	if (sched_nprocs() < 2)
		test_skip("needs 2 Ps: another core fires the timer");
	for (int i = 0; i < 100; i++) {
		struct time_timer *t = time_newtimer(100 * NSEC_PER_USEC);
		uint64_t end = nanotime() + 10 * NSEC_PER_SEC;
		spin_lock(&t->tc.sendlock);
		while (atomic_loaduintptr((volatile uintptr_t *)&t->tc.t.pp) && nanotime() < end)
			arch_cpu_relax();
		bool left = atomic_loaduintptr((volatile uintptr_t *)&t->tc.t.pp) == 0;
		spin_unlock(&t->tc.sendlock);
		bool stopped = time_timer_stop(t);
		bool ok;
		bool got = chan_tryrecv(t->C, NULL, &ok);
		sleep_ns(200 * NSEC_PER_USEC);
		bool late = chan_len(t->C) != 0;
		time_timer_free(t);
		ASSERT(left);
		EXPECT(stopped);
		EXPECT(!got);
		EXPECT(!late);
	}
}

/*
 * A timer, a ticker and a time_after channel each freed while a G waits
 * on its channel in a select: the G keeps waiting, as in Go (Stop does
 * not close C), and the select returns for its other case; the channel
 * goes with the last select that leaves it. The free was a panic in
 * chan_free ("a goroutine is still blocked on channel"), where the docs
 * say "at any time".
 */
struct freewait {
	struct select_case cs[2];
	int v, got;
	chan_t done;
};

static void freewait_g(void *p)
{
	struct freewait *w = p;
	w->got = chan_select(w->cs, 2, false);
	chan_send(w->done, NULL);
}

TEST(time_timer_ticker_and_after_freed_while_a_g_waits_on_their_channel)
{
	static struct freewait w;
	for (int kind = 0; kind < 3; kind++) {
		chan_t other = chan_make(sizeof(int), 0);
		struct time_timer *t = NULL;
		struct time_ticker *tk = NULL;
		chan_t c;
		if (kind == 0)
			c = (t = time_newtimer(100 * NSEC_PER_SEC))->C;
		else if (kind == 1)
			c = (tk = time_newticker(100 * NSEC_PER_SEC))->C;
		else
			c = time_after(100 * NSEC_PER_SEC);
		w = (struct freewait){
			.cs = { SELECT_RECV(c, NULL), SELECT_RECV(other, &w.v) },
			.got = -1,
			.done = chan_make(0, 0),
		};
		go(freewait_g, &w);
		/* Parked on both: pass 2 queues every case before any unlock. */
		ASSERT(chan_wait_for_waiters(other, true, 1, 10 * NSEC_PER_SEC));
		if (kind == 0)
			time_timer_free(t);
		else if (kind == 1)
			time_ticker_free(tk);
		else
			chan_free(c);
		EXPECT_EQ(chan_nwaiting(other, true), 1);	/* still waiting */
		EXPECT_EQ(w.got, -1);
		int v = 40 + kind;
		chan_send(other, &v);
		chan_recv(w.done, NULL);
		EXPECT_EQ(w.got, 1);
		EXPECT_EQ(w.v, 40 + kind);
		/* Freed by the select as it left (still in chan_free's
		 * quarantine, so its header can be read). */
		EXPECT_EQ(c->magic, CHAN_FREED);
		chan_free(w.done);
		chan_free(other);
	}
}
