/*
 * The public API (include/gmk.h) as an application sees it: its types
 * have the kernel's size, alignment and field offsets (the kernel's view
 * is tests/fixtures/public_layout.c, which also checks the prototypes),
 * and a program written with it alone runs: goroutines, a channel, a
 * WaitGroup, a mutex, a timer. Only the public headers are included here.
 */
#include "include/gmk.h"
#include "include/gmk_test.h"

extern const size_t public_kernel_layout[];
extern const size_t public_kernel_layout_n;

#define LAYOUT(t) sizeof(struct t), _Alignof(struct t)

TEST(public_types_have_the_kernels_layout)
{
	static const char *const what[] = {
		"sizeof mutex", "align mutex", "sizeof rwmutex", "align rwmutex",
		"sizeof waitgroup", "align waitgroup", "sizeof once", "align once",
		"sizeof cond", "align cond", "cond.L",
		"sizeof semaphore", "align semaphore", "semaphore.size",
		"sizeof errgroup", "align errgroup",
		"time_timer.C", "time_ticker.C",
		"NSEC_PER_SEC", "TIME_NEVER", "CONTEXT_CANCELED", "CONTEXT_DEADLINE_EXCEEDED",
		"CONSOLE_ERR_TIMEOUT", "CONSOLE_ERR_NOINPUT",
	};
	const size_t public_layout[] = {
		LAYOUT(mutex), LAYOUT(rwmutex), LAYOUT(waitgroup), LAYOUT(once),
		LAYOUT(cond), offsetof(struct cond, L),
		LAYOUT(semaphore), offsetof(struct semaphore, size),
		LAYOUT(errgroup),
		offsetof(struct time_timer, C), offsetof(struct time_ticker, C),
		NSEC_PER_SEC, TIME_NEVER, (size_t)CONTEXT_CANCELED, (size_t)CONTEXT_DEADLINE_EXCEEDED,
		(size_t)CONSOLE_ERR_TIMEOUT, (size_t)CONSOLE_ERR_NOINPUT,
	};
	_Static_assert(sizeof public_layout / sizeof public_layout[0] ==
		       sizeof what / sizeof what[0], "a name per entry");

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
