/*
 * Timer, Ticker, After and AfterFunc (sched/timechan.h), after Go's
 * time/sleep.go, time/tick.go and the channel half of runtime/time.go.
 *
 * Each is a struct timechan around a runtime timer (sched/timer.c) whose
 * callback, timechan_fire, runs on g0 with a P and must not block. It
 * sends as Go's sendTime does, a non-blocking send into the channel's one
 * slot (a receiver parked in chan_recv or select is readied by it as by
 * any send), or, for AfterFunc, starts a goroutine (Go's goFunc).
 *
 * Two races that Go settles with its timer lock, its sendLock and its
 * collector are settled here as follows.
 *
 * A firing against Stop and Reset. timers_run takes a timer out of its
 * heap and then calls the callback with no lock held, so a Stop can come
 * in between: timer_stop finds the timer not pending while its firing is
 * still to run. Everything the callback does, it does under tc->sendlock,
 * and only if tc->armed (the latest start has neither fired nor been
 * stopped) and the timer is not pending again (else a Reset has started
 * it anew since, and this firing belongs to the old start). Stop, Reset
 * and free clear armed under the same lock and then take back a value
 * that was sent and not received (Go 1.23's timerchandrain), so once they
 * return no value of an earlier start can be received. A channel firing
 * that was under way when Stop came is thereby cancelled (Stop is true:
 * it kept a value from being received, as Go 1.23's isSending makes it);
 * an AfterFunc firing under way is not (Stop is false: fn has been
 * started, as Go's): `committed` counts those, and each runs.
 *
 * A firing against free. The callback gets a pointer to tc after the heap
 * has let go of it, when the owner may be freeing tc. So refs counts the
 * owner (1 until free) and each start (1 from timer_start until the
 * firing it leads to has run, or a Stop took it back: timer_stop true);
 * the last reference dropped frees the memory. A ticker's firing re-arms
 * the timer and hands its reference back to the heap.
 *
 * Lock order: sendlock, then a channel's lock (the send, the drain), a
 * timer heap's lock (start, stop) and the scheduler's. Nothing takes
 * sendlock while holding any of those.
 */
#include <stddef.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "sched/hchan.h"
#include "sched/sched.h"
#include "sched/timechan.h"

#define TIMECHAN_LIVE	0x74696d65726c6976ull	/* "timerliv" */
#define TIMECHAN_FREED	0x74696d6572667265ull	/* "timerfre" */

enum timechan_kind { TC_TIMER = 1, TC_TICKER, TC_AFTER, TC_AFTERFUNC };

/* A Timer and a Ticker are one kmalloc block each: C, then tc. Its first
 * word is kfree's free-list link once freed, so tc->magic is not. */
_Static_assert(offsetof(struct time_timer, tc) == offsetof(struct time_ticker, tc),
	       "a timer and a ticker keep their timechan at one offset");
_Static_assert(offsetof(struct time_timer, tc) >= sizeof(void *),
	       "the magic survives kfree's link");

static void *tc_block(struct timechan *tc)
{
	return (char *)tc - offsetof(struct time_timer, tc);
}

/* A Stop, Reset or free of something that is not a live timer of the
 * right kind: the fatal error naming the call. Detected until kmalloc
 * hands the freed memory out again. */
static struct timechan *tc_get(struct timechan *tc, const char *op, const char *what)
{
	/* Relaxed: a check for misuse; the owner's own free is ordered
	 * before its later calls by program order. */
	uint64_t m = __atomic_load_n(&tc->magic, __ATOMIC_RELAXED);
	if (m == TIMECHAN_FREED)
		fatal("%s: use of a freed %s", op, what);
	if (m != TIMECHAN_LIVE)
		fatal("%s: %p is not a live %s (it reads 0x%llx)", op, tc_block(tc), what,
		      (unsigned long long)m);
	return tc;
}

static void tc_unref(struct timechan *tc)
{
	/* Full barrier (xadd): all this holder did to tc comes before the
	 * free by whoever drops the last reference. */
	if (atomic_xadd32(&tc->refs, -1) == 0)
		kfree(tc_block(tc));
}

static bool tc_pending(struct timechan *tc)
{
	/* load-acquire: timer_start publishes t.pp with the heap's lock. */
	return atomic_loaduintptr((volatile uintptr_t *)&tc->t.pp) != 0;
}

/* Caller holds sendlock; tc is not pending. The start's reference goes
 * to the heap. */
static void tc_start_locked(struct timechan *tc, uint64_t when)
{
	/* Full barrier (xadd), before timer_start: a firing that drops
	 * this reference cannot come first. */
	atomic_xadd32(&tc->refs, 1);
	tc->armed = true;
	timer_start(&tc->t, when);
}

/*
 * Caller holds sendlock. Disarms tc; true if that kept a value from
 * being sent (the timer was pending, or a channel firing was under way)
 * or, for AfterFunc, fn from being started (pending only).
 */
static bool tc_stop_locked(struct timechan *tc)
{
	if (timer_stop(&tc->t)) {
		tc->armed = false;
		/* The start's reference, back from the heap; the owner's
		 * is still held, so it is not the last (full barrier). */
		atomic_xadd32(&tc->refs, -1);
		return true;
	}
	if (!tc->armed)
		return false;
	/* Armed and not pending: a firing has left the heap and waits for
	 * sendlock. */
	tc->armed = false;
	if (tc->kind == TC_AFTERFUNC) {
		tc->committed++;	/* fn counts as started: it runs */
		return false;
	}
	return true;
}

/* Take back a value that was sent and not received (caller holds
 * sendlock): true if there was one. */
static bool tc_drain_locked(struct timechan *tc)
{
	bool ok;
	return tc->c && chan_tryrecv(tc->c, NULL, &ok);
}

/* The next tick after `when`, from `now` (>= when): the first multiple
 * of the period after now, so that a late firing skips the ticks it
 * missed (Go's unlockAndRun). Past the end of time: never. */
static uint64_t tick_next(uint64_t when, uint64_t period, uint64_t now)
{
	uint64_t k = (now - when) / period + 1;
	if (k > (TIME_NEVER - when) / period)
		return TIME_NEVER;
	return when + k * period;
}

/* The timer's callback: on g0 with a P; holds the start's reference. */
static void timechan_fire(void *arg)
{
	struct timechan *tc = arg;
	bool spawn = false;

	spin_lock(&tc->sendlock);
	if (tc->committed) {			/* an AfterFunc Stop let run */
		tc->committed--;
		spawn = true;
	} else if (tc->armed && !tc_pending(tc)) {
		uint64_t now = nanotime();
		if (tc->c)
			chan_trysend(tc->c, &now);	/* full: a value nobody took yet */
		else
			spawn = true;
		if (tc->period) {
			/* The reference goes back to the heap with the timer. */
			timer_start(&tc->t, tick_next(tc->t.when, tc->period, now));
			spin_unlock(&tc->sendlock);
			return;
		}
		tc->armed = false;
	}
	void (*fn)(void *) = tc->fn;
	void *fnarg = tc->arg;
	spin_unlock(&tc->sendlock);
	if (spawn)
		go(fn, fnarg);		/* fn may block: a G of its own */
	tc_unref(tc);
}

/* Fill in a zeroed tc (fresh from kmalloc); returns its channel. */
static chan_t tc_init(struct timechan *tc, enum timechan_kind kind, bool with_chan)
{
	tc->magic = TIMECHAN_LIVE;
	tc->kind = (uint8_t)kind;
	tc->refs = 1;				/* the owner's */
	spin_init(&tc->sendlock, "timechan");
	timer_init(&tc->t, timechan_fire, tc);
	if (with_chan) {
		tc->c = chan_make(sizeof(uint64_t), 1);
		tc->c->timer = tc;		/* before anyone else has c */
	}
	return tc->c;
}

static void tc_start(struct timechan *tc, uint64_t when)
{
	spin_lock(&tc->sendlock);
	tc_start_locked(tc, when);
	spin_unlock(&tc->sendlock);
}

static bool tc_stop(struct timechan *tc)
{
	spin_lock(&tc->sendlock);
	bool pending = tc_stop_locked(tc);
	if (tc_drain_locked(tc))
		pending = true;
	spin_unlock(&tc->sendlock);
	return pending;
}

static bool tc_reset(struct timechan *tc, uint64_t when)
{
	spin_lock(&tc->sendlock);
	bool pending = tc_stop_locked(tc);
	if (tc_drain_locked(tc))
		pending = true;
	tc_start_locked(tc, when);
	spin_unlock(&tc->sendlock);
	return pending;
}

/* The owner lets go: stopped (an AfterFunc firing under way still runs),
 * poisoned, its channel freed, the owner's reference dropped. */
static void tc_free(struct timechan *tc)
{
	spin_lock(&tc->sendlock);
	tc_stop_locked(tc);
	/* Relaxed: read only by the misuse checks (tc_get). */
	__atomic_store_n(&tc->magic, TIMECHAN_FREED, __ATOMIC_RELAXED);
	chan_t c = tc->c;
	spin_unlock(&tc->sendlock);
	/* No firing sends any more: armed is false. A G still waiting on
	 * C keeps waiting, as in Go (Stop does not close C); the last
	 * select to leave C frees it (a lone receive waits for ever). */
	if (c)
		chanfree_or_orphan(c);
	tc_unref(tc);
}

/* ---- Timer and AfterFunc ------------------------------------------------ */

static struct timechan *timer_get(struct time_timer *t, const char *op)
{
	if (!t)
		fatal("%s: nil timer", op);
	return tc_get(&t->tc, op, "timer");
}

struct time_timer *time_newtimer(uint64_t ns)
{
	struct time_timer *t = kmalloc(sizeof *t);
	t->C = tc_init(&t->tc, TC_TIMER, true);
	tc_start(&t->tc, time_when(ns));
	return t;
}

struct time_timer *time_afterfunc(uint64_t ns, void (*fn)(void *), void *arg)
{
	if (!fn)
		fatal("time_afterfunc: nil function");
	struct time_timer *t = kmalloc(sizeof *t);
	t->C = tc_init(&t->tc, TC_AFTERFUNC, false);
	t->tc.fn = fn;
	t->tc.arg = arg;
	tc_start(&t->tc, time_when(ns));
	return t;
}

bool time_timer_stop(struct time_timer *t)
{
	return tc_stop(timer_get(t, "time_timer_stop"));
}

bool time_timer_reset(struct time_timer *t, uint64_t ns)
{
	return tc_reset(timer_get(t, "time_timer_reset"), time_when(ns));
}

void time_timer_free(struct time_timer *t)
{
	tc_free(timer_get(t, "time_timer_free"));
}

/* ---- Ticker ------------------------------------------------------------- */

static struct timechan *ticker_get(struct time_ticker *tk, const char *op)
{
	if (!tk)
		fatal("%s: nil ticker", op);
	return tc_get(&tk->tc, op, "ticker");
}

struct time_ticker *time_newticker(uint64_t ns)
{
	if (ns == 0)			/* an interval past the end of time: never */
		fatal("time_newticker: non-positive interval (%llu ns)", (unsigned long long)ns);
	struct time_ticker *tk = kmalloc(sizeof *tk);
	tk->C = tc_init(&tk->tc, TC_TICKER, true);
	tk->tc.period = ns;
	tc_start(&tk->tc, time_when(ns));
	return tk;
}

void time_ticker_stop(struct time_ticker *tk)
{
	tc_stop(ticker_get(tk, "time_ticker_stop"));
}

void time_ticker_reset(struct time_ticker *tk, uint64_t ns)
{
	struct timechan *tc = ticker_get(tk, "time_ticker_reset");
	if (ns == 0)
		fatal("time_ticker_reset: non-positive interval (%llu ns)", (unsigned long long)ns);
	spin_lock(&tc->sendlock);
	tc_stop_locked(tc);
	tc_drain_locked(tc);
	tc->period = ns;
	tc_start_locked(tc, time_when(ns));
	spin_unlock(&tc->sendlock);
}

void time_ticker_free(struct time_ticker *tk)
{
	tc_free(ticker_get(tk, "time_ticker_free"));
}

/* ---- After -------------------------------------------------------------- */

chan_t time_after(uint64_t ns)
{
	struct time_timer *t = kmalloc(sizeof *t);
	t->C = tc_init(&t->tc, TC_AFTER, true);
	tc_start(&t->tc, time_when(ns));
	return t->C;
}

void time_chan_free(chan_t c)
{
	struct timechan *tc = tc_get(c->timer, "chan_free", "timer");
	if (tc->kind == TC_TICKER)
		fatal("chan_free: the channel of a ticker (free the ticker with time_ticker_free)");
	if (tc->kind != TC_AFTER)
		fatal("chan_free: the channel of a timer (free the timer with time_timer_free)");
	tc_free(tc);
}
