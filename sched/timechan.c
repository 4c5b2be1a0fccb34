/*
 * Channel timers (Go's time.NewTimer / time.After, sched/timechan.h).
 * The timer's callback runs on g0 with a P (sched/timer.c) and must not
 * block, so it sends as Go's sendTime does: a non-blocking send into the
 * channel's one slot; a receiver parked in chan_recv or select is readied
 * by it as by any send.
 */
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "sched/timechan.h"

static void sendtime(void *arg)
{
	struct time_timer *t = arg;
	uint64_t now = nanotime();
	/* Read before the send: the send may hand the value to a G on
	 * another core that then frees t at once (time_timer_free after its
	 * receive, as allowed), so t is not ours after it. Reading t->after
	 * after the send let a freed time_newtimer's memory, reused by a
	 * time_after, be freed a second time, and a later firing send on a
	 * channel long freed (the fuzzer found it: "use of freed channel
	 * (send)" from sendtime). Go's collector keeps its timer alive. */
	bool after = t->after;
	chan_trysend(t->C, &now);	/* full: a value is still unread */
	if (after)
		kfree(t);		/* time_after: nobody else has it */
}

struct time_timer *time_newtimer(uint64_t ns)
{
	struct time_timer *t = kmalloc(sizeof *t);
	t->C = chan_make(sizeof(uint64_t), 1);
	t->after = false;
	timer_init(&t->t, sendtime, t);
	timer_start(&t->t, time_when(ns));
	return t;
}

bool time_timer_stop(struct time_timer *t)
{
	if (t->after)
		panic("time_timer_stop: a time_after timer is not the caller's");
	return timer_stop(&t->t);
}

bool time_timer_reset(struct time_timer *t, uint64_t ns)
{
	if (t->after)
		panic("time_timer_reset: a time_after timer is not the caller's");
	return timer_reset(&t->t, time_when(ns));
}

void time_timer_free(struct time_timer *t)
{
	timer_stop(&t->t);
	chan_free(t->C);
	kfree(t);
}

/* Past the end of time: a channel that never receives, and no timer,
 * which would never fire and so never free itself. */
chan_t time_after(uint64_t ns)
{
	chan_t c = chan_make(sizeof(uint64_t), 1);
	uint64_t when = time_when(ns);
	if (when == TIME_NEVER)
		return c;
	struct time_timer *t = kmalloc(sizeof *t);
	t->C = c;
	t->after = true;
	timer_init(&t->t, sendtime, t);
	timer_start(&t->t, when);	/* t may be freed from here on */
	return c;
}
