/*
 * The poller without a device (sched/netpoll.c): netpollready called from
 * a G stands in for an interrupt handler. Every waiter is woken exactly
 * once; readiness that comes before the wait is not lost; a deadline
 * times out at the deadline, not before, and not when readiness comes
 * first; two waiters on one mode are refused.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/ipi.h"
#include "kernel/test.h"
#include "sched/netpoll.h"
#include "tests/preempt_testutil.h"
#include "tests/sched_testutil.h"

#define NP_GS		32
#define NP_ROUNDS	10

static struct pollDesc pds[NP_GS];
static volatile uint64_t np_woken[NP_GS], np_done, np_parked;

static void np_waiter(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	for (int r = 0; r < NP_ROUNDS; r++) {
		atomic_xadd64(&np_parked, 1);
		if (poll_wait(&pds[i], 'r') == POLL_OK)
			atomic_xadd64(&np_woken[i], 1);
	}
	atomic_xadd64(&np_done, 1);
}

/* One readiness per wait: a waiter is readied NP_ROUNDS times and wakes
 * NP_ROUNDS times. The readier waits until the waiter is parked again
 * (or about to be: pdReady then stays for it), so no readiness merges. */
TEST(netpoll_every_readied_waiter_runs_once_per_readiness)
{
	memset(pds, 0, sizeof pds);
	memset((void *)np_woken, 0, sizeof np_woken);
	atomic_store64(&np_done, 0);
	atomic_store64(&np_parked, 0);
	for (uintptr_t i = 0; i < NP_GS; i++)
		go(np_waiter, (void *)i);
	for (int r = 0; r < NP_ROUNDS; r++) {
		ASSERT_EQ(wait_count(&np_parked, (uint64_t)(r + 1) * NP_GS,
				     10 * NSEC_PER_SEC), (uint64_t)(r + 1) * NP_GS);
		for (int i = 0; i < NP_GS; i++) {
			/* the waiter of round r has taken its readiness */
			while (atomic_loaduintptr(&pds[i].rg) == pdReady)
				gosched();
			netpollready(&pds[i], 'r');
		}
	}
	ASSERT_EQ(wait_count(&np_done, NP_GS, 10 * NSEC_PER_SEC), NP_GS);
	for (int i = 0; i < NP_GS; i++) {
		EXPECT_EQ(np_woken[i], NP_ROUNDS);
		EXPECT(!pd_parked(&pds[i], 'r'));
	}
}

TEST(netpoll_readiness_before_the_wait_is_kept)
{
	static struct pollDesc pd;
	memset(&pd, 0, sizeof pd);
	netpollready(&pd, 'r');
	ASSERT_EQ(pd.rg, pdReady);
	uint64_t t0 = nanotime();
	ASSERT_EQ(poll_wait(&pd, 'r'), POLL_OK);	/* no park */
	ASSERT_EQ(pd.rg, pdNil);
	EXPECT_LT(nanotime() - t0, NSEC_PER_SEC);
}

#define NP_DEADLINE_NS	(20 * NSEC_PER_MSEC)

TEST(netpoll_deadline_times_out_at_the_deadline_not_before)
{
	static struct pollDesc pd;
	memset(&pd, 0, sizeof pd);
	for (int i = 0; i < 5; i++) {
		uint64_t d = nanotime() + NP_DEADLINE_NS;
		poll_setdeadline(&pd, d, 'r');
		ASSERT_EQ(poll_wait(&pd, 'r'), POLL_ERR_TIMEOUT);
		uint64_t now = nanotime();
		ASSERT_GE(now, d);
		/* expired: fails at once until reset */
		ASSERT_EQ(poll_wait(&pd, 'r'), POLL_ERR_TIMEOUT);
	}
	/* readiness before the deadline wins; the timer is stopped */
	poll_setdeadline(&pd, nanotime() + 10 * NSEC_PER_SEC, 'r');
	netpollready(&pd, 'r');
	ASSERT_EQ(poll_wait(&pd, 'r'), POLL_OK);
	poll_setdeadline(&pd, 0, 'r');
	EXPECT(!pd_parked(&pd, 'r'));
}

static struct pollDesc late_pd;
static volatile uint64_t late_result = 99;

static void late_waiter(void *arg)
{
	atomic_store64(&late_result, (uint64_t)poll_wait(&late_pd, 'r'));
}

/* A deadline set while a G waits applies to it (Go's SetReadDeadline on
 * a blocked Read). */
TEST(netpoll_deadline_set_during_the_wait_wakes_the_waiter)
{
	memset(&late_pd, 0, sizeof late_pd);
	atomic_store64(&late_result, 99);
	go(late_waiter, NULL);
	while (!pd_parked(&late_pd, 'r'))
		sleep_ns(NSEC_PER_MSEC);
	uint64_t d = nanotime() + NP_DEADLINE_NS;
	poll_setdeadline(&late_pd, d, 'r');
	while (atomic_load64(&late_result) == 99)
		sleep_ns(NSEC_PER_MSEC);
	ASSERT_EQ(late_result, POLL_ERR_TIMEOUT);
	ASSERT_GE(nanotime(), d);
}

/* Go's pollUnblock (the close of a socket): the Gs waiting on either
 * mode wake with the closing error, every later wait fails at once with
 * it (readiness or not), and poll_open makes the descriptor new again. */
static struct pollDesc cl_pd;
static volatile uint64_t cl_result[2] = { 99, 99 };

static void cl_waiter(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	atomic_store64(&cl_result[i], (uint64_t)poll_wait(&cl_pd, i ? 'w' : 'r'));
}

TEST(netpoll_unblock_wakes_both_waiters_with_closing_until_reopened)
{
	memset(&cl_pd, 0, sizeof cl_pd);
	atomic_store64(&cl_result[0], 99);
	atomic_store64(&cl_result[1], 99);
	/* A deadline far off: the closing, not the timer, must wake them. */
	poll_setdeadline(&cl_pd, nanotime() + 60 * NSEC_PER_SEC, 'r' + 'w');
	go(cl_waiter, (void *)0);
	go(cl_waiter, (void *)1);
	while (!pd_parked(&cl_pd, 'r') || !pd_parked(&cl_pd, 'w'))
		sleep_ns(NSEC_PER_MSEC);
	poll_unblock(&cl_pd);
	while (atomic_load64(&cl_result[0]) == 99 || atomic_load64(&cl_result[1]) == 99)
		sleep_ns(NSEC_PER_MSEC);
	EXPECT_EQ(cl_result[0], POLL_ERR_CLOSING);
	EXPECT_EQ(cl_result[1], POLL_ERR_CLOSING);
	netpollready(&cl_pd, 'r');
	EXPECT_EQ(poll_wait(&cl_pd, 'r'), POLL_ERR_CLOSING);	/* readiness or not */
	EXPECT_EQ(poll_wait(&cl_pd, 'w'), POLL_ERR_CLOSING);
	poll_open(&cl_pd);
	netpollready(&cl_pd, 'w');
	EXPECT_EQ(poll_wait(&cl_pd, 'w'), POLL_OK);
	EXPECT(!pd_parked(&cl_pd, 'r'));
}

/*
 * A G readied by a device becomes runnable only when a P polls: at
 * findrunnable's netpoll step, which Ps whose Gs only yield never reach
 * (their queues are never empty), or at the look each round makes once
 * the oldest readied G has waited NETPOLL_MAX_DELAY_NS (Go's sysmon
 * poll). netpollready from a G stands in for the interrupt, and makes no
 * netpoll_kick: with two yielding Gs for every P and this G yielding too,
 * only the rounds' look can run the waiter. It must run before the
 * yielders stop (10 s: a loaded host delays it, but it comes once the
 * list is overdue, at the next round of any P).
 */
static struct pollDesc ny_pd;
static volatile uint64_t ny_woke, ny_yielding, ny_exited;
static volatile uint32_t ny_stop;

static void ny_waiter(void *arg)
{
	(void)arg;
	if (poll_wait(&ny_pd, 'r') == POLL_OK)
		atomic_store64(&ny_woke, nanotime());
}

static void ny_yielder(void *arg)
{
	(void)arg;
	atomic_xadd64(&ny_yielding, 1);
	while (!atomic_load32(&ny_stop))
		gosched();
	atomic_xadd64(&ny_exited, 1);
}

TEST(netpoll_readied_g_runs_while_yielders_keep_every_p_busy)
{
	memset(&ny_pd, 0, sizeof ny_pd);
	atomic_store64(&ny_woke, 0);
	atomic_store64(&ny_yielding, 0);
	atomic_store64(&ny_exited, 0);
	atomic_store32(&ny_stop, 0);
	go(ny_waiter, NULL);
	while (!pd_parked(&ny_pd, 'r'))
		sleep_ns(NSEC_PER_MSEC);
	uint64_t n = 2 * (uint64_t)sched_nprocs();
	for (uint64_t i = 0; i < n; i++)
		go(ny_yielder, NULL);
	ASSERT_EQ(wait_count(&ny_yielding, n, 10 * NSEC_PER_SEC), n);
	uint64_t t0 = nanotime();
	netpollready(&ny_pd, 'r');
	while (atomic_load64(&ny_woke) == 0 && nanotime() - t0 < 10 * NSEC_PER_SEC)
		gosched();
	uint64_t woke = atomic_load64(&ny_woke);
	atomic_store32(&ny_stop, 1);
	ASSERT_EQ(wait_count(&ny_exited, n, 10 * NSEC_PER_SEC), n);
	ASSERT(woke != 0);
	printf("# the readied G ran %llu us after netpollready (overdue at %llu us), "
	       "%llu yielders on %u Ps\n", (unsigned long long)((woke - t0) / 1000),
	       (unsigned long long)(NETPOLL_MAX_DELAY_NS / 1000), (unsigned long long)n,
	       sched_nprocs());
}

static struct pollDesc dbl_pd;

static void dbl_waiter(void *arg)
{
	poll_wait(&dbl_pd, 'r');
}

TEST_FATAL(netpoll_two_waiters_on_one_mode_panic, "two goroutines wait on mode 'r'")
{
	go(dbl_waiter, NULL);
	while (!pd_parked(&dbl_pd, 'r'))
		sleep_ns(NSEC_PER_MSEC);
	poll_wait(&dbl_pd, 'r');
}

/*
 * A core without a P (gomaxprocs below the cores) while a G its device
 * readied waits for a busy P: the core has nothing to run it on, and
 * must halt, not look again and again under sched.lock (Go's M without
 * a P sleeps). This G holds the one P with preemption off for the
 * window, so the readied G waits throughout; each core without a P is
 * woken to look (an IPI, as the device's interrupt on that core would),
 * and they must be halted for most of the window (half, counted over all
 * of them).
 */
#define SPARE_WINDOW_NS	(200 * NSEC_PER_MSEC)

static struct pollDesc spare_pd;
static volatile uint64_t spare_woke;

static void spare_waiter(void *arg)
{
	(void)arg;
	if (poll_wait(&spare_pd, 'r') == POLL_OK)
		atomic_store64(&spare_woke, 1);
}

TEST(netpoll_core_without_a_p_halts_while_a_readied_g_waits_for_a_busy_p)
{
	if (ncpus_online < 2)
		test_skip("one core: no core is left without a P");
	memset(&spare_pd, 0, sizeof spare_pd);
	atomic_store64(&spare_woke, 0);
	int n0 = gomaxprocs(1);
	go(spare_waiter, NULL);
	while (!pd_parked(&spare_pd, 'r'))
		sleep_ns(NSEC_PER_MSEC);

	uint64_t idle0[MAX_CPUS];
	preempt_disable();	/* the one P is ours for the window */
	struct cpu *me = this_cpu();
	netpollready(&spare_pd, 'r');
	netpoll_wake();		/* as its interrupt would: no P is idle */
	/* Each core without a P looks, as one that took the device's
	 * interrupt itself would (or one the time-keeping woke). */
	for (unsigned i = 0; i < ncpus; i++)
		if (&cpus[i] != me && cpus[i].online)
			ipi_send(i, IPI_WAKE);
	uint64_t t0 = nanotime();
	for (unsigned i = 0; i < ncpus; i++)
		idle0[i] = cpu_idle_ns(&cpus[i]);
	delay_ns(SPARE_WINDOW_NS);
	uint64_t elapsed = nanotime() - t0, total = 0;
	unsigned spare = 0;
	for (unsigned i = 0; i < ncpus; i++) {
		if (&cpus[i] == me || !cpus[i].online)
			continue;
		uint64_t d = cpu_idle_ns(&cpus[i]) - idle0[i];
		printf("# core %u (no P): halted %llu of %llu ms\n", i,
		       (unsigned long long)(d / NSEC_PER_MSEC),
		       (unsigned long long)(elapsed / NSEC_PER_MSEC));
		total += d;
		spare++;
	}
	bool waited = atomic_load64(&spare_woke) == 0;
	preempt_enable();

	uint64_t t = nanotime();
	while (!atomic_load64(&spare_woke) && nanotime() - t < 10 * NSEC_PER_SEC)
		sleep_ns(NSEC_PER_MSEC);
	gomaxprocs(n0);
	ASSERT(waited);			/* the readied G waited the window */
	EXPECT_EQ(spare_woke, 1);
	EXPECT_GE(total * 2, spare * elapsed);
}
