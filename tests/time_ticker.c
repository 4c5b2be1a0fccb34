/*
 * Tickers (sched/timechan.c, Go's time.Ticker): a tick every period, a
 * tick that finds the channel full dropped (a slow reader is never handed
 * a backlog), Stop ends the ticks and takes back an unread one, Reset
 * changes the period; and tickers stopped, reset and freed while they
 * fire, on every P, leave nothing behind.
 *
 * Times are lower bounds (a tick never comes early) or counts with wide
 * margins: a loaded host delays ticks, which only drops some.
 */
#include <stdio.h>

#include "kernel/kmalloc.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/sched_testutil.h"

#define TK_PERIOD	(10 * NSEC_PER_MSEC)

TEST(time_ticker_ticks_every_period)
{
	uint64_t t0 = nanotime(), last = t0;
	struct time_ticker *tk = time_newticker(TK_PERIOD);
	for (int k = 1; k <= 5; k++) {
		uint64_t when = 0;
		ASSERT(chan_recv(tk->C, &when));
		/* Never early; a late tick does not move the next one's
		 * deadline (ticks are due at multiples of the period). */
		EXPECT_GE(when, t0 + (uint64_t)k * TK_PERIOD);
		EXPECT_GT(when, last);
		last = when;
	}
	EXPECT_GE(nanotime(), t0 + 5 * TK_PERIOD);
	time_ticker_free(tk);
}

/*
 * A reader that sleeps 20 periods finds one tick waiting, not 20; then,
 * reading as fast as it can for 10 periods, it gets at most the ticks of
 * those 10 periods and the waiting one: no backlog.
 */
TEST(time_ticker_drops_the_ticks_a_slow_reader_misses)
{
	struct time_ticker *tk = time_newticker(TK_PERIOD / 2);
	sleep_ns(20 * (TK_PERIOD / 2));
	EXPECT_EQ(chan_len(tk->C), 1);
	uint64_t t1 = nanotime(), end = t1 + 10 * (TK_PERIOD / 2);
	uint32_t got = 0;
	for (uint64_t now = t1; now < end; now = nanotime()) {
		struct select_case cs[] = { SELECT_RECV(tk->C, NULL), SELECT_AFTER(end - now) };
		if (chan_select(cs, 2, false) == 0)
			got++;
	}
	printf("# %u ticks in the 10 periods after the sleep\n", got);
	EXPECT_GE(got, 1);		/* the one that waited */
	/* The waiting one, and one per firing in the window: ticks due
	 * at the 11 period boundaries it may hold, and one due just
	 * before it that fired late. A backlog would be 20 more. */
	EXPECT_LE(got, 1 + 11 + 1);
	time_ticker_free(tk);
}

TEST(time_ticker_stop_ends_the_ticks_and_takes_back_an_unread_one)
{
	struct time_ticker *tk = time_newticker(TK_PERIOD / 2);
	uint64_t end = nanotime() + 10 * NSEC_PER_SEC;
	while (chan_len(tk->C) == 0 && nanotime() < end)
		sleep_ns(NSEC_PER_MSEC);
	ASSERT_EQ(chan_len(tk->C), 1);
	time_ticker_stop(tk);
	EXPECT_EQ(chan_len(tk->C), 0);
	sleep_ns(6 * (TK_PERIOD / 2));
	EXPECT_EQ(chan_len(tk->C), 0);
	time_ticker_free(tk);
}

/* A ticker of 10 s reset to 10 ms: three ticks come far sooner than one
 * tick of the old period could (30 s for three). */
TEST(time_ticker_reset_changes_the_period)
{
	struct time_ticker *tk = time_newticker(10 * NSEC_PER_SEC);
	uint64_t t0 = nanotime(), last = 0;
	time_ticker_reset(tk, TK_PERIOD);
	for (int k = 1; k <= 3; k++) {
		uint64_t when = 0;
		ASSERT(chan_recv(tk->C, &when));
		EXPECT_GE(when, t0 + (uint64_t)k * TK_PERIOD);
		EXPECT_GT(when, last);
		last = when;
	}
	EXPECT_LT(nanotime() - t0, 10 * NSEC_PER_SEC);
	time_ticker_stop(tk);
	sleep_ns(3 * TK_PERIOD);
	EXPECT_EQ(chan_len(tk->C), 0);
	time_ticker_reset(tk, TK_PERIOD);	/* a stopped ticker starts again */
	ASSERT(chan_recv(tk->C, NULL));
	time_ticker_reset(tk, UINT64_MAX);	/* past the end of time: no tick */
	sleep_ns(3 * TK_PERIOD);
	EXPECT_EQ(chan_len(tk->C), 0);
	time_ticker_free(tk);
}

/*
 * Tickers of 50-450 us, one G each on every P: it takes a few ticks,
 * resets, stops, starts again, and frees its ticker while it is ticking,
 * so Stop, Reset and free meet firings under way on other cores. Every
 * G finishes, and kmalloc is back where it was.
 */
#define STRESS_GS	64
#define STRESS_ROUNDS	20

static struct waitgroup stress_wg;
static volatile uint64_t stress_ticks;

static void ticker_user(void *p)
{
	uint64_t period = (uint64_t)(uintptr_t)p;
	for (int r = 0; r < STRESS_ROUNDS; r++) {
		struct time_ticker *tk = time_newticker(period);
		for (int k = 0; k < 3; k++) {
			chan_recv(tk->C, NULL);
			atomic_xadd64(&stress_ticks, 1);
		}
		time_ticker_reset(tk, period + 50 * NSEC_PER_USEC);
		chan_recv(tk->C, NULL);
		time_ticker_stop(tk);
		time_ticker_reset(tk, period);
		if (r % 2)
			chan_recv(tk->C, NULL);
		else
			delay_ns(period);	/* free with a tick due */
		time_ticker_free(tk);
	}
	waitgroup_done(&stress_wg);
}

TEST(time_tickers_stopped_reset_and_freed_while_ticking_leave_nothing)
{
	uint64_t km0 = kmalloc_bytes_in_use();
	atomic_store64(&stress_ticks, 0);
	waitgroup_add(&stress_wg, STRESS_GS);
	for (uintptr_t i = 0; i < STRESS_GS; i++)
		go(ticker_user, (void *)((50 + 50 * (i % 9)) * NSEC_PER_USEC));
	waitgroup_wait(&stress_wg);
	sleep_ns(2 * NSEC_PER_MSEC);	/* firings under way at the frees end */
	uint64_t km1 = kmalloc_bytes_in_use();
	printf("# %llu ticks; kmalloc %llu -> %llu bytes\n",
	       (unsigned long long)atomic_load64(&stress_ticks),
	       (unsigned long long)km0, (unsigned long long)km1);
	EXPECT_EQ(atomic_load64(&stress_ticks), (uint64_t)STRESS_GS * STRESS_ROUNDS * 3);
	/* A ticker or channel left behind per round: 1,280 of them. The
	 * channel quarantine holds 256 freed channels (~100 bytes each). */
	EXPECT_LE(km1, km0 + 256 * 128 + 4096);
}
