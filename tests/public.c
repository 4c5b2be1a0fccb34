/*
 * The public API (include/gmk.h) as an application sees it: its types
 * have the kernel's size, alignment and field offsets (the kernel's view
 * is tests/fixtures/public_layout.c, which also checks the prototypes;
 * the list of entries is tests/fixtures/public_layout.h),
 * and a program written with it alone runs: goroutines, a channel, a
 * WaitGroup, a mutex, a timer. Only the public headers are included here.
 */
#include "include/gmk.h"
#include "include/gmk_test.h"
#include "tests/fixtures/public_layout.h"

extern const size_t public_kernel_layout[];
extern const size_t public_kernel_layout_n;

TEST(public_types_have_the_kernels_layout)
{
	static const char *const what[] = { PUBLIC_LAYOUT(PUBLIC_LAYOUT_NAME) };
	const size_t public_layout[] = { PUBLIC_LAYOUT(PUBLIC_LAYOUT_VALUE) };

	ASSERT_EQ(public_kernel_layout_n, sizeof public_layout / sizeof public_layout[0]);
	for (size_t i = 0; i < public_kernel_layout_n; i++)
		if (public_layout[i] != public_kernel_layout[i])
			test_fail(__FILE__, __LINE__, "%s: include/gmk.h has %zu, the kernel %zu",
				  what[i], public_layout[i], public_kernel_layout[i]);
}

struct shared {
	struct mutex mu;
	struct waitgroup wg;
	long total;
	chan_t done;
};

static void add(void *arg)
{
	struct shared *s = arg;

	mutex_lock(&s->mu);
	s->total += 2;
	mutex_unlock(&s->mu);
	waitgroup_done(&s->wg);
}

static void closer(void *arg)
{
	struct shared *s = arg;

	waitgroup_wait(&s->wg);
	chan_close(s->done);
}

static void counted(void *arg)
{
	waitgroup_done(arg);
}

TEST(public_sched_pstats_count_every_g_run_and_core_idle_only_grows)
{
	static struct waitgroup wg;
	uint32_t np = sched_nprocs();
	uint64_t before = 0, after = 0;
	struct sched_pstats st;

	ASSERT_GE(num_cpu(), (int)np);
	ASSERT(!sched_pstats(np, &st));		/* no P np */
	ASSERT_EQ(core_idle_ns(-1), 0);
	ASSERT_EQ(core_idle_ns(num_cpu()), 0);
	uint64_t idle0 = core_idle_ns(0);
	for (uint32_t i = 0; i < np; i++) {
		ASSERT(sched_pstats(i, &st));
		before += st.nrun;
	}
	waitgroup_add(&wg, 100);
	for (int i = 0; i < 100; i++)
		go(counted, &wg);
	waitgroup_wait(&wg);
	for (uint32_t i = 0; i < np; i++) {
		ASSERT(sched_pstats(i, &st));
		after += st.nrun;
	}
	/* Each of the 100 Gs ran on some P (and this one again, after its
	 * wait). */
	ASSERT_GE(after - before, 100);
	ASSERT_GE(core_idle_ns(0), idle0);
}

TEST(public_api_alone_runs_goroutines_channels_sync_and_time)
{
	static struct shared s;		/* zero: Go's zero values */
	uint64_t t0 = time_now();

	s.done = chan_make(0, 0);
	waitgroup_add(&s.wg, 100);
	for (int i = 0; i < 100; i++)
		go(add, &s);
	go(closer, &s);
	struct time_timer *t = time_newtimer(5 * NSEC_PER_SEC);
	uint64_t when;
	struct select_case cs[] = { SELECT_RECV(s.done, NULL), SELECT_RECV(t->C, &when) };
	ASSERT_EQ(chan_select(cs, 2, false), 0);	/* done closed, not timed out */
	time_timer_free(t);
	ASSERT_EQ(s.total, 200);
	sleep_ns(NSEC_PER_MSEC);
	ASSERT_GE(time_now() - t0, NSEC_PER_MSEC);
	for (int i = 0; i < 10; i++)	/* closer may still be returning */
		gosched();
	chan_free(s.done);
}
