/*
 * The counter behind nanotime (arch_counter): one clock for every core,
 * and on the hosted board, where it may be the TSC measured against
 * Linux's clock at boot (arch/x86_64-linux/clock.c), the same rate as Linux's.
 */
#include <stdint.h>

#include "kernel/atomic.h"
#include "kernel/kernel.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "sched/timer.h"

/*
 * Every core at once reads the latest stamp any core published, then
 * the clock, then publishes its reading if it is later. A stamp was read
 * before it was published, and so before this core loaded it, so the
 * clock this core reads next must not be earlier: if it is, the cores'
 * counters disagree, or a counter read is taken ahead of the load before
 * it (the lfence and isb in arch_counter).
 */
#define STAMPS_PER_CORE	50000u

static volatile uint64_t stamp_latest, stamp_back, stamp_back_worst;

static void stamp_loop(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < STAMPS_PER_CORE; i++) {
		uint64_t seen = atomic_load64(&stamp_latest);	/* load-acquire */
		uint64_t now = nanotime();
		if (now < seen) {
			atomic_xadd64(&stamp_back, 1);
			uint64_t w;
			do
				w = atomic_load64(&stamp_back_worst);
			while (seen - now > w && !atomic_cas64(&stamp_back_worst, w, seen - now));
		}
		while (now > seen && !atomic_cas64(&stamp_latest, seen, now))
			seen = atomic_load64(&stamp_latest);
	}
}

TEST(time_counter_never_goes_back_across_cores)
{
	atomic_store64(&stamp_latest, 0);
	atomic_store64(&stamp_back, 0);
	atomic_store64(&stamp_back_worst, 0);
	smp_call_all(stamp_loop, NULL);
	if (stamp_back)
		test_fail(__FILE__, __LINE__, "%llu of %u readings on %u cores were earlier "
			  "than a stamp already published (by up to %llu ns)",
			  (unsigned long long)stamp_back, STAMPS_PER_CORE * ncpus_online,
			  ncpus_online, (unsigned long long)stamp_back_worst);
	EXPECT(stamp_latest != 0);
}

#ifdef GMK_HOSTED
#include <time.h>

#define RATE_SPAN_NS	(200 * NSEC_PER_MSEC)
#define RATE_PPM	1000		/* 0.1%: the TSC's rate is measured to a few ppm */
#define RATE_SLACK_NS	(50 * NSEC_PER_USEC)	/* the two readings' own width */

static uint64_t linux_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Both clocks at one moment: the narrowest of 8 bracketed readings (a
 * tick or a descheduled thread inside one only widens it). */
static void both_clocks(uint64_t *kernel_ns, uint64_t *linux_ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t a = nanotime();
		uint64_t l = linux_monotonic_ns();
		uint64_t b = nanotime();
		if (b - a < best) {
			best = b - a;
			*kernel_ns = a + (b - a) / 2;
			*linux_ns = l;
		}
	}
}

/* nanotime and Linux's CLOCK_MONOTONIC advance alike over a sleep,
 * whichever counter the board chose (GMK_HOSTED_CLOCK). */
TEST(time_hosted_counter_keeps_linux_time)
{
	uint64_t k0, l0, k1, l1;

	both_clocks(&k0, &l0);
	sleep_ns(RATE_SPAN_NS);
	both_clocks(&k1, &l1);
	uint64_t dk = k1 - k0, dl = l1 - l0;
	uint64_t diff = dk > dl ? dk - dl : dl - dk;
	ASSERT(dl >= RATE_SPAN_NS);
	if (diff > dl / (1000000 / RATE_PPM) + RATE_SLACK_NS)
		test_fail(__FILE__, __LINE__, "nanotime advanced %llu ns while Linux's "
			  "CLOCK_MONOTONIC advanced %llu ns (%llu ppm apart)",
			  (unsigned long long)dk, (unsigned long long)dl,
			  (unsigned long long)(diff * 1000000 / dl));
}
#endif

/*
 * A deadline short of the end of time is a real one, centuries off, and a
 * core may arm its timer for it (a time-keeper with no nearer deadline).
 * At a counter faster than 1 GHz (the TSC) so long a span is more than 64
 * bits of ticks: the conversion must saturate, not wrap round to a count
 * that would put the deadline in the past. Unsigned comparisons: the
 * counts reach past 2^63.
 */
static void expect_not_less(uint64_t ns_a, uint64_t a, uint64_t ns_b, uint64_t b, int line)
{
	if (a < b)
		test_fail(__FILE__, line, "ns_to_counter(%llu) = %llu < ns_to_counter(%llu) = %llu",
			  (unsigned long long)ns_a, (unsigned long long)a,
			  (unsigned long long)ns_b, (unsigned long long)b);
}

TEST(time_counter_conversion_saturates_instead_of_wrapping)
{
	uint64_t prev_ns = 0, prev = 0;
	for (uint64_t ns = 1ull << 30; ns != 0; ns <<= 1) {	/* to 2^63 */
		uint64_t c = ns_to_counter(ns);
		expect_not_less(ns, c, prev_ns, prev, __LINE__);
		prev_ns = ns;
		prev = c;
	}
	expect_not_less(UINT64_MAX, ns_to_counter(UINT64_MAX), prev_ns, prev, __LINE__);
	expect_not_less(TIME_NEVER, ns_to_counter(TIME_NEVER), TIME_NEVER / 2,
			ns_to_counter(TIME_NEVER / 2), __LINE__);
}
