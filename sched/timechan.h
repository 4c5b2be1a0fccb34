/*
 * Channel timers, as Go's time.NewTimer and time.After: a channel that a
 * timer sends on, so that a select can wait for a channel or a deadline.
 *
 *   struct time_timer *t = time_newtimer(50 * NSEC_PER_MSEC);
 *   struct select_case cs[] = { SELECT_RECV(work, &v), SELECT_RECV(t->C, &when) };
 *   switch (chan_select(cs, 2, false)) { case 0: ...; case 1: timed out }
 *   time_timer_stop(t);      true if it had not fired (Go's Stop)
 *   time_timer_reset(t, ns); fire ns from now (Go's Reset)
 *   time_timer_free(t);      its channel too; only once it cannot be
 *                            firing: after Stop returned true, or after
 *                            its value was received
 *
 * C has room for one value, the nanotime() at which the timer fired, and
 * the send never blocks (Go's sendTime): a value nobody took stays until
 * it is received or the timer is freed.
 *
 *   chan_t c = time_after(ns);   Go's time.After: the timer frees itself
 *                                when it fires; free c with chan_free
 *                                once it has delivered its value.
 *
 * A duration whose deadline lies past the end of time (TIME_NEVER,
 * kernel/time.h: UINT64_MAX, say) means never: the timer stays pending
 * and never sends; time_after's channel never receives (free it with
 * chan_free when done with it).
 */
#ifndef GMK_SCHED_TIMECHAN_H
#define GMK_SCHED_TIMECHAN_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/chan.h"
#include "sched/timer.h"

struct time_timer {
	chan_t C;		/* receives the firing time, a uint64_t */
	struct timer t;
	bool after;		/* time_after's: freed by its own firing */
};

struct time_timer *time_newtimer(uint64_t ns);
bool time_timer_stop(struct time_timer *t);
bool time_timer_reset(struct time_timer *t, uint64_t ns);
void time_timer_free(struct time_timer *t);
chan_t time_after(uint64_t ns);

#endif
