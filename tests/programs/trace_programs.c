/*
 * Programs with a known shape, for the execution-trace and gdb tests
 * (tools/test-trace): what they do is counted in advance, and the trace
 * or the debugger must agree.
 *
 * tracecheck: TRACECHECK_WORKERS Gs (entry tracecheck_worker) each yield
 * TRACECHECK_YIELDS times (gosched), sleep once and send one value on an
 * unbuffered channel to the main G; tools/test-trace expects exactly that
 * many creates, ends, GoSched and sleep parks from tracecheck_worker Gs.
 * One more G (tracecheck_poller) waits once on a pollDesc that the main G
 * makes ready, as a device's interrupt would: its wake-up comes through
 * the poller's ready list.
 *
 * gdbcheck: GDBCHECK_WAITERS Gs (gdbcheck_waiter) parked on a channel
 * receive, one (gdbcheck_sleeper) in sleep and one (gdbcheck_spinner) that
 * never blocks (running on another core, or, with nprocs=1, preempted at
 * an interrupt), when the main G calls gdbcheck_stop, where the gdb test
 * puts its breakpoint. The last G (gdbcheck_fresh) is made just before
 * it: with nprocs=1 it has not run yet (its context is a fresh one, on
 * its way to gstart), unless a tick switched the main G out in between;
 * then it waits on the channel like the waiters.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "sched/gmk.h"
#include "sched/netpoll.h"
#include "sched/runtime2.h"

#define TRACECHECK_WORKERS	8
#define TRACECHECK_YIELDS	3
#define GDBCHECK_WAITERS	3

static chan_t tc_out;
static struct waitgroup tc_wg;
static struct g *volatile tc_g[TRACECHECK_WORKERS];

static void tracecheck_worker(void *arg)
{
	int id = (int)(uintptr_t)arg;

	tc_g[id - 1] = getg();
	for (int i = 0; i < TRACECHECK_YIELDS; i++)
		gosched();
	sleep_ns(1 * NSEC_PER_MSEC);
	chan_send(tc_out, &id);
	waitgroup_done(&tc_wg);
}

static struct pollDesc tc_pd;
static struct g *volatile tc_poller_g;
static volatile int tc_poll_result = -1;

static void tracecheck_poller(void *arg)
{
	tc_poller_g = getg();
	tc_poll_result = poll_wait(&tc_pd, 'r');
	waitgroup_done(&tc_wg);
}

PROGRAM(tracecheck, "workers that yield, sleep and send: a trace of known shape")
{
	int sum = 0, v;

	tc_out = chan_make(sizeof(int), 0);
	tc_poll_result = -1;
	waitgroup_add(&tc_wg, TRACECHECK_WORKERS + 1);
	go(tracecheck_poller, NULL);
	for (int i = 0; i < TRACECHECK_WORKERS; i++)
		go(tracecheck_worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < TRACECHECK_WORKERS; i++) {
		chan_recv(tc_out, &v);
		sum += v;
	}
	/* Parked on tc_pd (counted once its park is committed): readied
	 * now, it takes the poller's path, not goready's. */
	while (netpoll_waiters() == 0)
		sleep_ns(NSEC_PER_MSEC);
	netpollready(&tc_pd, 'r');
	waitgroup_wait(&tc_wg);
	/*
	 * waitgroup_done is not the end of a worker: it still returns and
	 * exits (its GoEnd), maybe after the trace is written. Wait until
	 * each is dead: goexit0 records GoEnd before that status change.
	 */
	for (int i = 0; i < TRACECHECK_WORKERS; i++)
		while (atomic_load32(&tc_g[i]->atomicstatus) != _Gdead)
			gosched();
	while (atomic_load32(&tc_poller_g->atomicstatus) != _Gdead)
		gosched();
	chan_free(tc_out);	/* every worker is dead: nobody touches it */
	printf("tracecheck: %d workers x %d yields, 1 sleep, 1 send; sum %d; "
	       "1 poller, poll_wait %d\n", TRACECHECK_WORKERS, TRACECHECK_YIELDS,
	       sum, tc_poll_result);
	return sum == TRACECHECK_WORKERS * (TRACECHECK_WORKERS + 1) / 2 &&
	       tc_poll_result == POLL_OK ? 0 : 1;
}

static chan_t gc_in;
static struct waitgroup gc_wg;
static volatile int gc_sleeping, gc_spin_stop;
static volatile unsigned long gc_spins;

static void gdbcheck_waiter(void *arg)
{
	int v;

	while (chan_recv(gc_in, &v))
		;
	waitgroup_done(&gc_wg);
}

static void gdbcheck_fresh(void *arg)
{
	int v;

	while (chan_recv(gc_in, &v))
		;
	waitgroup_done(&gc_wg);
}

static void gdbcheck_sleeper(void *arg)
{
	gc_sleeping = 1;
	/* Long enough to be still asleep at the breakpoint on a loaded
	 * host (TCG); the program waits for it at the end. */
	sleep_ns(2 * NSEC_PER_SEC);
	waitgroup_done(&gc_wg);
}

static void gdbcheck_spinner(void *arg)
{
	while (!gc_spin_stop)
		gc_spins++;
	waitgroup_done(&gc_wg);
}

/* The gdb test's breakpoint: every G above exists and is parked. */
__attribute__((noinline)) void gdbcheck_stop(int nwaiters)
{
	asm volatile("" : : "r"(nwaiters) : "memory");
}

PROGRAM(gdbcheck, "Gs parked on a channel and in sleep, then gdbcheck_stop")
{
	/* Afresh, for a second run: its Gs of a first one have all ended. */
	gc_sleeping = gc_spin_stop = 0;
	gc_spins = 0;
	gc_in = chan_make(sizeof(int), 0);
	waitgroup_add(&gc_wg, GDBCHECK_WAITERS + 3);
	for (int i = 0; i < GDBCHECK_WAITERS; i++)
		go(gdbcheck_waiter, NULL);
	go(gdbcheck_sleeper, NULL);
	/* Let them all get to their parking places. */
	while (!gc_sleeping)
		gosched();
	go(gdbcheck_spinner, NULL);
	while (!gc_spins)
		gosched();
	sleep_ns(5 * NSEC_PER_MSEC);
	go(gdbcheck_fresh, NULL);
	gdbcheck_stop(GDBCHECK_WAITERS);
	gc_spin_stop = 1;
	chan_close(gc_in);
	waitgroup_wait(&gc_wg);
	chan_free(gc_in);	/* every waiter is done with it */
	printf("gdbcheck: done\n");
	return 0;
}
