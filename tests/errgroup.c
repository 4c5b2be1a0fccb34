/*
 * errgroup (lib/errgroup.h), after x/sync/errgroup's tests: Wait
 * returns the first error after every goroutine has finished; the
 * group's context is cancelled at the first error, and at Wait when
 * there is none; SetLimit bounds the goroutines running at once and
 * TryGo refuses beyond it; several Gs may Wait at once.
 */
#include <stdio.h>

#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "sched/tracebuf.h"
#include "tests/sched_testutil.h"

static volatile uint64_t eg_ran;
static struct errgroup *first_group;

/* Task i: the one with i == 0 fails with 1000; those with i % 10 == 3
 * fail with 1000 + i once the group has recorded an error (its first,
 * then: task 0's), so that the order does not hang on the scheduling;
 * the rest succeed. */
static int task(void *p)
{
	uintptr_t i = (uintptr_t)p;
	atomic_xadd64(&eg_ran, 1);
	if (i == 0)
		return 1000;
	if (i % 10 == 3) {
		while (!atomic_load32(&first_group->errset))
			sleep_ns(100 * NSEC_PER_USEC);
		return 1000 + (int)i;
	}
	return 0;
}

TEST(errgroup_wait_returns_the_first_error_after_all_finish)
{
	static struct errgroup g;
	g = (struct errgroup){ 0 };
	first_group = &g;
	atomic_store64(&eg_ran, 0);
	for (uintptr_t i = 0; i < 100; i++)
		errgroup_go(&g, task, (void *)i);
	EXPECT_EQ(errgroup_wait(&g), 1000);
	EXPECT_EQ(atomic_load64(&eg_ran), 100);

	static struct errgroup ok;
	ok = (struct errgroup){ 0 };
	first_group = &ok;
	for (uintptr_t i = 1; i < 50; i += 10)	/* 1, 11, ...: all succeed */
		errgroup_go(&ok, task, (void *)i);
	EXPECT_EQ(errgroup_wait(&ok), 0);
}

/* Workers wait on the group's context; one fails: every other one sees
 * the context done and returns its error, and Wait returns the failure,
 * the first error. */
static int ctx_waiter(void *p)
{
	struct context *ctx = p;
	chan_recv(context_done(ctx), NULL);
	return context_err(ctx);
}

static int fail_later(void *p)
{
	(void)p;
	sleep_ns(2 * NSEC_PER_MSEC);
	return 7;
}

TEST(errgroup_context_is_cancelled_at_the_first_error)
{
	struct errgroup g;
	struct context *ctx = errgroup_with_context(&g, context_background());
	for (int i = 0; i < 20; i++)
		errgroup_go(&g, ctx_waiter, ctx);
	errgroup_go(&g, fail_later, NULL);
	EXPECT_EQ(errgroup_wait(&g), 7);
}

static int nothing(void *p)
{
	(void)p;
	return 0;
}

/* Without an error the context ends when Wait returns (a reference of
 * our own keeps it readable after). */
TEST(errgroup_context_is_cancelled_when_wait_returns)
{
	struct errgroup g;
	struct context *ctx = context_retain(errgroup_with_context(&g, context_background()));
	errgroup_go(&g, nothing, NULL);
	EXPECT_EQ(context_err(ctx), 0);
	EXPECT_EQ(errgroup_wait(&g), 0);
	EXPECT_EQ(context_err(ctx), CONTEXT_CANCELED);
	context_release(ctx);
}

/* A limit of 3: 60 tasks that each hold on a moment never run more than
 * 3 at once (counted on entry), and all run. */
static volatile uint64_t running_now, running_max;

static int held_task(void *p)
{
	(void)p;
	uint64_t n = atomic_xadd64(&running_now, 1);
	for (uint64_t m = atomic_load64(&running_max); n > m && !atomic_cas64(&running_max, m, n);
	     m = atomic_load64(&running_max))
		;
	atomic_xadd64(&eg_ran, 1);
	sleep_ns(200 * NSEC_PER_USEC);
	atomic_xadd64(&running_now, -1);
	return 0;
}

TEST(errgroup_set_limit_bounds_the_goroutines_at_once)
{
	struct errgroup g = { 0 };
	atomic_store64(&running_now, 0);
	atomic_store64(&running_max, 0);
	atomic_store64(&eg_ran, 0);
	errgroup_set_limit(&g, 3);
	for (int i = 0; i < 60; i++)
		errgroup_go(&g, held_task, NULL);
	EXPECT_EQ(errgroup_wait(&g), 0);
	printf("# at most %llu at once\n", (unsigned long long)atomic_load64(&running_max));
	EXPECT_LE(atomic_load64(&running_max), 3);
	EXPECT_GE(atomic_load64(&running_max), 1);
	EXPECT_EQ(atomic_load64(&eg_ran), 60);
	errgroup_set_limit(&g, -1);		/* none left running: allowed */
}

/* TryGo at the limit: refused while the limit's worth run, accepted
 * again once one finished. */
static int wait_on(void *p)
{
	chan_recv(p, NULL);
	return 0;
}

TEST(errgroup_trygo_refuses_at_the_limit)
{
	struct errgroup g = { 0 };
	chan_t release = chan_make(0, 0);
	errgroup_set_limit(&g, 2);
	EXPECT(errgroup_trygo(&g, wait_on, release));
	EXPECT(errgroup_trygo(&g, wait_on, release));
	EXPECT(!errgroup_trygo(&g, nothing, NULL));
	chan_send(release, NULL);		/* one finishes */
	uint64_t end = nanotime() + 10 * NSEC_PER_SEC;
	bool started = false;
	while (!(started = errgroup_trygo(&g, nothing, NULL)) && nanotime() < end)
		sleep_ns(100 * NSEC_PER_USEC);
	EXPECT(started);
	chan_close(release);
	EXPECT_EQ(errgroup_wait(&g), 0);
	chan_free(release);
}

/*
 * Go lets several goroutines Wait on one group: 8 Gs wait at once, each
 * gets the first error, and the group's context is cancelled and released
 * once (the test's reference outlives the rounds' and would be released
 * once too often otherwise). In even rounds the waiters park in Wait
 * until the group's one task is let go, and wake together; in odd ones
 * the task has ended and they are let go together from a spin on every
 * P. 2,000 rounds: a double release was a fatal error in 1 of 2 to 5 runs
 * of one round.
 */
#define WAITERS		8
#define WAIT_ROUNDS	2000

struct waiters {
	struct errgroup g;
	struct waitgroup done;
	volatile uint32_t arrived, start, got_err, got_other;
};

static int fail_after(void *p)
{
	chan_recv(p, NULL);
	return 7;
}

static void waiter(void *p)
{
	struct waiters *w = p;
	atomic_xadd32(&w->arrived, 1);
	while (!atomic_load32(&w->start))
		gosched();
	if (errgroup_wait(&w->g) == 7)
		atomic_xadd32(&w->got_err, 1);
	else
		atomic_xadd32(&w->got_other, 1);
	waitgroup_done(&w->done);
}

TEST(errgroup_wait_from_8_goroutines_at_once)
{
	static struct waiters w;
	chan_t go_on = chan_make(0, 0);
	for (int r = 0; r < WAIT_ROUNDS; r++) {
		w = (struct waiters){ 0 };
		struct context *ctx =
			context_retain(errgroup_with_context(&w.g, context_background()));
		errgroup_go(&w.g, fail_after, go_on);
		waitgroup_add(&w.done, WAITERS);
		for (int i = 0; i < WAITERS; i++)
			go(waiter, &w);
		while (atomic_load32(&w.arrived) < WAITERS)
			gosched();
		if (r % 2) {			/* the task ends first */
			chan_send(go_on, NULL);
			atomic_store32(&w.start, 1);
		} else {			/* they park in Wait first */
			atomic_store32(&w.start, 1);
			sleep_ns(50 * NSEC_PER_USEC);
			chan_send(go_on, NULL);
		}
		waitgroup_wait(&w.done);
		ASSERT_EQ(w.got_err, WAITERS);
		ASSERT_EQ(w.got_other, 0);
		ASSERT_EQ(context_err(ctx), CONTEXT_CANCELED);
		context_release(ctx);
	}
	chan_free(go_on);
}

/*
 * An errgroup's goroutine is shown (traces, gdb's goroutine commands) by
 * the program's function, not by the group's wrapper that runs it; and a
 * go_copy's whose argument went to the heap by its function too.
 */
static volatile uintptr_t shown;

static int shows_itself(void *p)
{
	(void)p;
	atomic_store64((volatile uint64_t *)&shown, g_startpc(getg()));
	return 0;
}

static void big_copy_shows_itself(void *p)
{
	(void)p;
	atomic_store64((volatile uint64_t *)&shown, g_startpc(getg()));
}

TEST(errgroup_goroutine_is_shown_by_the_program_function)
{
	struct errgroup g = { 0 };
	errgroup_go(&g, shows_itself, NULL);
	EXPECT_EQ(errgroup_wait(&g), 0);
	EXPECT_EQ(atomic_load64((volatile uint64_t *)&shown), (uintptr_t)shows_itself);

	static char big[G_ARG_INLINE + 1];	/* over the record's room: the heap */
	atomic_store64((volatile uint64_t *)&shown, 0);
	go_copy(big_copy_shows_itself, big, sizeof big);
	while (!atomic_load64((volatile uint64_t *)&shown))
		gosched();
	EXPECT_EQ(atomic_load64((volatile uint64_t *)&shown), (uintptr_t)big_copy_shows_itself);
}
