/*
 * Go's runtime package: NumGoroutine counts the Gs that exist (parked,
 * runnable and running, the caller included) and no dead one, on every
 * P's free list and the global one.
 */
#include "kernel/test.h"
#include "tests/chan_testutil.h"
#include "tests/sched_testutil.h"

static void park_until_closed(void *p)
{
	chan_recv(p, NULL);
}

/* Yield until num_goroutine() == want with nothing else running or
 * runnable (sched_quiescent: only then is the count exact; while Gs exit
 * on other cores it is an estimate, as Go's gcount is); false after
 * timeout_ns. Exiting Gs need their cores to run them to goexit, however
 * slow the machine. */
static bool num_goroutine_reaches(int want, uint64_t timeout_ns)
{
	uint64_t end = nanotime() + timeout_ns;

	for (;;) {
		gosched();
		if (sched_quiescent() && num_goroutine() == want)
			return true;
		if (nanotime() > end)
			return false;
	}
}

#define NG_WAVE 300		/* over GFREE_LOCAL_MAX: dead Gs reach the global list */
#define NG_WAVES 4

/* The count at rest: Gs that earlier tests left on their way out (a
 * last waitgroup_done, then the return) run to goexit first. Yielding
 * puts this G behind every runnable one, over and over, until nothing
 * else runs (sched_quiescent) and the count has held for a while. The
 * count alone once held for 100 yields with an earlier test's G still on
 * its way out on a vCPU the host did not run meanwhile, and that G's
 * exit then came out of the first wave's count. */
static int num_goroutine_at_rest(void)
{
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	int n = num_goroutine(), same = 0;

	while (same < 100 && nanotime() < end) {
		gosched();
		int m = num_goroutine();
		same = m == n && sched_quiescent() ? same + 1 : 0;
		n = m;
	}
	return n;
}

TEST(runtime_num_goroutine_counts_live_gs_only)
{
	int n0 = num_goroutine_at_rest();

	ASSERT_GE(n0, 1);			/* this G */
	for (int w = 0; w < NG_WAVES; w++) {
		chan_t c = chan_make(0, 0);
		for (int i = 0; i < NG_WAVE; i++)
			go(park_until_closed, c);
		/* All parked: nothing starts or exits, so the count is exact. */
		ASSERT(chan_wait_for_waiters(c, true, NG_WAVE, WAIT_TIMEOUT_NS));
		int n = num_goroutine();
		if (n != n0 + NG_WAVE)
			printf("# wave %d of %d: %d goroutines with the wave parked, %d at rest\n",
			       w + 1, NG_WAVES, n, n0);
		ASSERT_EQ(n, n0 + NG_WAVE);
		chan_close(c);
		/* Dead, on whichever P's list (or the global one) they died. */
		if (!num_goroutine_reaches(n0, WAIT_TIMEOUT_NS))
			ASSERT_EQ(num_goroutine(), n0);
		chan_free(c);
	}
	/* The records are reused, not counted again. */
	ASSERT_EQ(num_goroutine(), n0);
	printf("# %d goroutines at rest, %d with a wave parked\n", n0, n0 + NG_WAVE);
}
