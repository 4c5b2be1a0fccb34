/*
 * nprocs=N below the core count (Go's GOMAXPROCS): N cores get an M and a
 * P, the others stay halted without either. make test boots this with
 * nprocs=2 on 4 cores; at nprocs = cores it checks the plain case.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "sched/sched.h"

#define SPIN_WINDOW_NS (100 * NSEC_PER_MSEC)

static volatile uint32_t spinners_done;

static void spin_a_while(void *arg)
{
	uint64_t until = nanotime() + SPIN_WINDOW_NS;
	(void)arg;
	while (nanotime() < until)
		;
	atomic_xadd32(&spinners_done, 1);
}

TEST(sched_cores_beyond_nprocs_have_no_p_and_stay_halted)
{
	unsigned online = ncpus_online, with_m = 0;
	uint32_t nprocs = sched_nprocs();
	uint64_t idle0[MAX_CPUS];

	ASSERT_EQ(nprocs, kopts.nprocs ? kopts.nprocs : online);
	for (unsigned i = 0; i < ncpus; i++) {
		with_m += cpus[i].m != NULL;
		idle0[i] = cpu_idle_ns(&cpus[i]);
	}
	EXPECT_EQ(with_m, nprocs);

	/* Keep every P busy; cores without an M must not join in. */
	atomic_store32(&spinners_done, 0);
	for (unsigned i = 0; i < 2 * online; i++)
		go(spin_a_while, NULL);
	while (atomic_load32(&spinners_done) < 2 * online)
		gosched();

	for (unsigned i = 0; i < ncpus; i++) {
		if (cpus[i].m)
			continue;
		uint64_t halted = cpu_idle_ns(&cpus[i]) - idle0[i];
		if (halted * 2 < SPIN_WINDOW_NS)
			test_fail(__FILE__, __LINE__, "core %u has no M but halted only %llu us "
				  "of the busy window", i, (unsigned long long)(halted / 1000));
	}
}

/* gomaxprocs(n) over the cores online is refused as Go's GOMAXPROCS
 * never is, but as silently: nothing on the console, however often. */
TEST(sched_gomaxprocs_over_the_cores_is_refused_silently)
{
	static char captured[256];
	int n0 = gomaxprocs(0);
	console_capture_start(captured, sizeof captured);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(gomaxprocs((int)ncpus_online + 1 + i), n0);
	size_t n = console_capture_stop();
	EXPECT_EQ(sched_nprocs(), (uint32_t)n0);
	/* Not the watchdog's whole lines (a core the host did not run for
	 * a second, in a loaded soak): the kernel's, not gomaxprocs'. */
	static const char wd[] = "gmk: watchdog: ";
	size_t k = 0;
	while (k < n && n - k >= sizeof wd - 1 && memcmp(captured + k, wd, sizeof wd - 1) == 0) {
		const char *nl = memchr(captured + k, '\n', n - k);
		if (!nl)
			break;
		k = (size_t)(nl - captured) + 1;
	}
	if (n != k)
		test_fail(__FILE__, __LINE__, "gomaxprocs printed %zu bytes: %.*s",
			  n - k, (int)(n - k < 120 ? n - k : 120), captured + k);
}
