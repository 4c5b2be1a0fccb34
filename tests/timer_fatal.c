/*
 * Timer callbacks run on the scheduler (g0, with a P) and must not park:
 * one that blocks is a fatal error naming the callback. Each runs alone
 * in its own boot (TEST_FATAL).
 */
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/sched_testutil.h"

static chan_t unbuffered;

/* A send nobody receives: parks (gopark). */
static void send_from_a_timer(void *arg)
{
	(void)arg;
	chan_send(unbuffered, NULL);
}

TEST_FATAL(timer_callback_that_parks_is_named,
	   "timer callback send_from_a_timer blocked (callbacks run on the "
	   "scheduler and must not park)")
{
	unbuffered = chan_make(0, 0);
	fire_timer_callback(send_from_a_timer);
}

/* A yield: switches through mcall, as a park does. */
static void yield_from_a_timer(void *arg)
{
	(void)arg;
	gosched();
}

TEST_FATAL(timer_callback_that_yields_is_named,
	   "timer callback yield_from_a_timer blocked (callbacks run on the "
	   "scheduler and must not park)")
{
	fire_timer_callback(yield_from_a_timer);
}
