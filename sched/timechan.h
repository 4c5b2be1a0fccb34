/*
 * Go's time package over the runtime timers: Timer, Ticker, After and
 * AfterFunc, with Go 1.23's semantics where C allows.
 *
 *   struct time_timer *t = time_newtimer(50 * NSEC_PER_MSEC);   time.NewTimer
 *   struct select_case cs[] = { SELECT_RECV(work, &v), SELECT_RECV(t->C, &when) };
 *   switch (chan_select(cs, 2, false)) { case 0: ...; case 1: timed out }
 *   time_timer_stop(t);      Stop: true if the call kept a value from being
 *                            received (the timer had not fired, or its value
 *                            was still unread: it is taken back)
 *   time_timer_reset(t, ns); Reset: fire ns from now; true as Stop's
 *   time_timer_free(t);      stops it and frees it with its channel, at any
 *                            time (fired or not); a G that waits on t->C
 *                            then keeps waiting, as in Go, where Stop
 *                            does not close C: a select returns by its
 *                            other cases (the channel goes with the last
 *                            one to leave it), a lone receive never
 *
 *   struct time_ticker *tk = time_newticker(ns);   time.NewTicker: tk->C
 *                            receives a value every ns; a tick that finds
 *                            the channel full is dropped, so a slow reader
 *                            never finds ticks piled up (Go's)
 *   time_ticker_stop(tk), time_ticker_reset(tk, ns), time_ticker_free(tk)
 *
 *   struct time_timer *t = time_afterfunc(ns, fn, arg);   time.AfterFunc:
 *                            fn(arg) runs in a goroutine of its own, so it
 *                            may block; t->C is NULL; Stop is true if it
 *                            kept fn from being started
 *
 *   chan_t c = time_after(ns);   time.After: free c with chan_free when done
 *                            with it, fired or not (that stops its timer)
 *
 * A select with a timeout needs no timer object at all: SELECT_AFTER(ns)
 * (sched/chan.h) is a case whose timer lives in the select's own frame and
 * is gone when the select returns.
 *
 * The channels hold one value, the nanotime() at which the timer fired,
 * and the firing never blocks (Go's sendTime). As in Go 1.23, no stale
 * value is received after Stop or Reset returns: they take back a value
 * that was sent but not yet received. chan_len and chan_cap see the one-
 * value buffer (Go 1.23 reports 0 for both). A timer's channel is closed
 * by nobody: chan_close of it is a fatal error, and so is chan_free of a
 * Timer's or Ticker's (free those with their own free).
 *
 * A duration whose deadline lies past the end of time (TIME_NEVER,
 * kernel/time.h: UINT64_MAX, say) means never: the timer stays pending
 * and never fires.
 *
 * Misuse that can be detected is a fatal error: a Stop, Reset or free of
 * a freed timer or ticker (until kmalloc hands its memory out again), a
 * ticker of a non-positive interval.
 */
#ifndef GMK_SCHED_TIMECHAN_H
#define GMK_SCHED_TIMECHAN_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/spinlock.h"
#include "sched/chan.h"
#include "sched/timer.h"

/*
 * What Timer, Ticker, After and AfterFunc share (sched/timechan.c); its
 * fields are private. sendlock orders a firing against Stop, Reset and
 * free (Go's timer.sendLock), and refs keeps it alive while a firing that
 * has left the heap may still run (Go's collector does that).
 */
struct timechan {
	uint64_t magic;			/* TIMECHAN_LIVE until freed */
	struct timer t;
	struct spinlock sendlock;	/* guards armed, dead and the sends */
	chan_t c;			/* where it sends; NULL: AfterFunc */
	uint64_t period;		/* a ticker's interval; 0: fires once */
	void (*fn)(void *);		/* AfterFunc's */
	void *arg;
	volatile uint32_t refs;		/* the owner's, and the heap's or a
					 * firing's while armed (atomic) */
	uint32_t committed;		/* AfterFunc firings a Stop found under
					 * way: each still starts fn */
	uint8_t kind;			/* enum timechan_kind */
	bool armed;			/* started, and neither fired (once)
					 * nor stopped since */
};

struct time_timer {
	chan_t C;		/* receives the firing time (a uint64_t); NULL
				 * for time_afterfunc's */
	struct timechan tc;
};

struct time_ticker {
	chan_t C;		/* receives the time of each tick (a uint64_t) */
	struct timechan tc;
};

struct time_timer *time_newtimer(uint64_t ns);
struct time_timer *time_afterfunc(uint64_t ns, void (*fn)(void *), void *arg);
bool time_timer_stop(struct time_timer *t);
bool time_timer_reset(struct time_timer *t, uint64_t ns);
void time_timer_free(struct time_timer *t);

struct time_ticker *time_newticker(uint64_t ns);
void time_ticker_stop(struct time_ticker *tk);
void time_ticker_reset(struct time_ticker *tk, uint64_t ns);
void time_ticker_free(struct time_ticker *tk);

chan_t time_after(uint64_t ns);

/* chan_free of a channel a timer sends on (sched/chan.c): time_after's
 * goes with its timer; a Timer's or Ticker's is a fatal error. */
void time_chan_free(chan_t c);

#endif
