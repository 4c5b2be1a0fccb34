/*
 * Misuse of timers and tickers ends the program naming the call. Each
 * runs alone in its own boot (make test does that).
 */
#include "kernel/test.h"
#include "tests/kernel_api.h"

TEST_FATAL(time_ticker_stop_of_a_freed_ticker, "time_ticker_stop: use of a freed ticker")
{
	struct time_ticker *tk = time_newticker(NSEC_PER_MSEC);
	time_ticker_free(tk);
	time_ticker_stop(tk);
}

TEST_FATAL(time_timer_free_of_a_freed_timer, "time_timer_free: use of a freed timer")
{
	struct time_timer *t = time_newtimer(NSEC_PER_SEC);
	time_timer_free(t);
	time_timer_free(t);
}

TEST_FATAL(time_newticker_of_a_zero_interval, "time_newticker: non-positive interval (0 ns)")
{
	time_newticker(0);
}

TEST_FATAL(time_chan_free_of_a_timers_channel,
	   "chan_free: the channel of a timer (free the timer with time_timer_free)")
{
	struct time_timer *t = time_newtimer(NSEC_PER_SEC);
	chan_free(t->C);
}

TEST_FATAL(time_close_of_a_timers_channel, "close of a timer's channel")
{
	struct time_ticker *tk = time_newticker(NSEC_PER_SEC);
	chan_close(tk->C);
}

TEST_FATAL(time_select_with_two_after_cases, "select: two SELECT_AFTER cases (0 and 1")
{
	struct select_case cs[] = { SELECT_AFTER(NSEC_PER_MSEC), SELECT_AFTER(NSEC_PER_SEC) };
	chan_select(cs, 2, false);
}
