/*
 * The scheduler's wake-up paths: each test names the defect it would
 * catch if it came back. A race is forced where a test hook can hold one
 * side at the point where the other must slip in (sched_race_hook); the
 * rest count, and bound time only in slices with wide margins, as said
 * beside each.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "sched/netpoll.h"
#include "sched/sched.h"
#include "sched/sync.h"
#include "tests/preempt_testutil.h"

/* ---- the poller's kick counters are exact under every core ----------- */

/*
 * netpoll_kick and netpoll_wake count, from any core's interrupt handler,
 * how they got readied Gs run (netpoll_kicks[]). A plain increment there
 * loses counts when two cores bump the same one. Here every P runs a G
 * that calls netpoll_wake KICK_CALLS times at once, with a readied G on
 * the poller's list and no P idle: each call must count one
 * NETPOLL_KICK_NONE. The slice is made long so that no tick preempts a
 * kicker (a preemption takes the readied G off the list, and the calls
 * after it count nothing); a round where the list was taken anyway (a
 * leftover timer of another test, say) is run again.
 */
#define KICK_CALLS	100000u
#define KICK_ROUNDS	3
#define KICK_SLICE_NS	(10 * NSEC_PER_SEC)

static struct pollDesc kick_pd;
static volatile uint32_t kick_started, kick_go, kick_done, kick_drained;
static struct waitgroup kick_wg;

static void kick_waiter(void *arg)
{
	(void)arg;
	poll_wait(&kick_pd, 'r');
	waitgroup_done(&kick_wg);
}

/* The calls, then whether the readied G was still on the list after the
 * last (it leaves only once: then every call before saw it). */
static void kick_calls(void)
{
	for (uint32_t i = 0; i < KICK_CALLS; i++)
		netpoll_wake();
	if (!netpoll_pending())
		atomic_store32(&kick_drained, 1);
	atomic_xadd32(&kick_done, 1);
}

static void kicker(void *arg)
{
	uint32_t np = (uint32_t)(uintptr_t)arg;
	atomic_xadd32(&kick_started, 1);
	while (!atomic_load32(&kick_go))
		;	/* spin: this P stays busy (the tick lets others run) */
	kick_calls();
	/* Spin until every kicker is done: a P that schedules now would
	 * take the readied G off the list under the others' calls. */
	while (atomic_load32(&kick_done) < np)
		;
	waitgroup_done(&kick_wg);
}

TEST(sched_wakeup_netpoll_kick_counts_are_exact_from_every_core)
{
	uint32_t np = sched_nprocs();
	if (np < 2)
		test_skip("needs 2 Ps: the counters race between cores");
	uint64_t got = 0, want = (uint64_t)np * KICK_CALLS;
	int round;
	for (round = 0; round < KICK_ROUNDS; round++) {
		memset(&kick_pd, 0, sizeof kick_pd);
		atomic_store32(&kick_started, 0);
		atomic_store32(&kick_go, 0);
		atomic_store32(&kick_done, 0);
		atomic_store32(&kick_drained, 0);
		waitgroup_add(&kick_wg, (int32_t)np);	/* np - 1 kickers, the waiter */
		go(kick_waiter, NULL);
		while (netpoll_waiters() == 0)
			sleep_ns(NSEC_PER_MSEC);
		for (uint32_t i = 0; i + 1 < np; i++)
			go(kicker, (void *)(uintptr_t)np);
		while (atomic_load32(&kick_started) < np - 1)
			gosched();
		/* Every other P runs a kicker now, and this G one: no P idle. */
		uint64_t old = sched_set_slice(KICK_SLICE_NS);
		uint64_t none0 = atomic_load64(&netpoll_kicks[NETPOLL_KICK_NONE]);
		netpollready(&kick_pd, 'r');	/* as a device's interrupt would */
		atomic_store32(&kick_go, 1);
		kick_calls();
		while (atomic_load32(&kick_done) < np)
			;
		got = atomic_load64(&netpoll_kicks[NETPOLL_KICK_NONE]) - none0;
		bool taken = atomic_load32(&kick_drained);
		sched_set_slice(old);
		waitgroup_wait(&kick_wg);
		printf("# round %d: %u cores x %u calls: %llu counted%s\n", round, np,
		       KICK_CALLS, (unsigned long long)got,
		       taken ? " (the readied G was taken meanwhile: again)" : "");
		if (!taken)
			break;
	}
	ASSERT_LT(round, KICK_ROUNDS);
	EXPECT_EQ(got, want);
}
