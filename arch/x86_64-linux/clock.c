/*
 * The hosted board's counter (arch_counter, arch/x86_64-linux/cpu_arch.h).
 *
 * The scheduler reads the counter at every switch (the slice's stamp,
 * sched/proc.c). On the x86-64 board that is `lfence; rdtsc`; a Linux
 * process can execute the same instructions, and that is what the
 * hosted board does where the host's own clock is the TSC: the vDSO's
 * clock_gettime(CLOCK_MONOTONIC) reads that same TSC and then converts
 * the reading under a seqlock and splits it into seconds and
 * nanoseconds, which the caller joins again: more work per read than
 * `lfence; rdtsc`, on every switch (docs/performance.md).
 *
 * The TSC is used only where Linux trusts it: an invariant TSC (CPUID
 * 0x80000007 EDX bit 8: same rate in every P- and C-state) and `tsc` as
 * the kernel's clocksource, which Linux selects only once it has checked
 * that the cores' TSCs agree. Elsewhere (other clocksources) the counter
 * is CLOCK_MONOTONIC in nanoseconds; and in ThreadSanitizer builds
 * (below). GMK_HOSTED_CLOCK=monotonic forces that, GMK_HOSTED_CLOCK=tsc
 * the TSC, so that both paths can be tested on one host.
 *
 * The rate: measured once, at boot, against CLOCK_MONOTONIC_RAW over
 * CAL_NS, from the narrowest of a few bracketed readings at each end
 * (Linux's own rate estimate, not slewed by NTP as CLOCK_MONOTONIC may
 * be while the measurement runs). The TSC reading is taken relative to
 * its value at boot (host_tsc_base), so that the counter starts near 0
 * as a board's does (the trace keeps 56 bits of it).
 *
 * Waits. Linux's timers and futexes take CLOCK_MONOTONIC times, so with
 * the TSC a deadline becomes that clock's time now plus the time left
 * until it (host_counter_timespec), plus DEADLINE_MARGIN of the time left
 * for the rate's error: a timer that fired early would cost a second
 * signal (the kernel sees nothing due and re-arms), a futex wait that
 * ended early a second wait (arch_wait_for_interrupt tests the counter),
 * never a missed deadline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/x86_64-linux/host.h"
#include "kernel/kernel.h"
#include "kernel/time.h"

bool host_tsc;
uint64_t host_tsc_base;

#define CAL_NS		(5 * NSEC_PER_MSEC)	/* the span the rate is measured over */
#define CAL_READS	8			/* bracketed readings at each end */
#define DEADLINE_MARGIN	8192			/* 1/8192 of the time left: 122 ppm */

static uint64_t monotonic_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

#include <cpuid.h>

static bool tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return d & (1u << 8);
}

/* One reading of CLOCK_MONOTONIC_RAW and the TSC at the same moment: the
 * middle of the narrowest of CAL_READS brackets (a thread descheduled
 * inside one widens it, and is not kept). */
static void tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < CAL_READS; i++) {
		uint64_t a = host_tsc_read();
		uint64_t n = monotonic_raw_ns();
		uint64_t b = host_tsc_read();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

static uint64_t tsc_calibrate(void)
{
	uint64_t t0, n0, t1, n1;

	tsc_pair(&t0, &n0);
	struct timespec d = { 0, CAL_NS };
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
	tsc_pair(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return 0;
	return (uint64_t)((__uint128_t)(t1 - t0) * NSEC_PER_SEC / (n1 - n0));
}

/* Linux's clocksource, "tsc" where the kernel trusts it; "" if unreadable. */
static void current_clocksource(char *buf, size_t n)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

uint64_t host_clock_init(void)
{
	const char *want = getenv("GMK_HOSTED_CLOCK");
	char why[96];

	if (!want || !*want)
		want = "auto";
	if (strcmp(want, "auto") != 0 && strcmp(want, "tsc") != 0 &&
	    strcmp(want, "monotonic") != 0) {
		fprintf(stderr, "gmk: hosted: GMK_HOSTED_CLOCK=%s: want tsc, monotonic or auto\n",
			want);
		exit(2);
	}
	snprintf(why, sizeof why, "GMK_HOSTED_CLOCK=monotonic");
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
	/* ThreadSanitizer runs a signal's handler when the thread next
	 * enters a call it intercepts; clock_gettime is one and rdtsc is
	 * not, so with the TSC a G spinning on nanotime() would never take
	 * its tick. */
	if (strcmp(want, "auto") == 0) {
		want = "monotonic";
		snprintf(why, sizeof why, "ThreadSanitizer delivers signals in clock_gettime");
	}
#endif
#endif
	if (strcmp(want, "monotonic") != 0) {
		char cs[32];
		current_clocksource(cs, sizeof cs);
		bool ok = strcmp(want, "tsc") == 0;
		if (!ok && !tsc_invariant())
			snprintf(why, sizeof why, "the TSC is not invariant");
		else if (!ok && strcmp(cs, "tsc") != 0)
			snprintf(why, sizeof why, "Linux's clocksource is %s, not tsc",
				 cs[0] ? cs : "unknown");
		else
			ok = true;
		uint64_t hz = ok ? tsc_calibrate() : 0;
		/* A rate outside 100 MHz..20 GHz is a failed measurement. */
		if (ok && (hz < 100000000ull || hz > 20000000000ull)) {
			snprintf(why, sizeof why, "the TSC measured %llu Hz",
				 (unsigned long long)hz);
			ok = false;
		}
		if (ok) {
			printf("gmk: hosted: counter: TSC, %llu.%03llu MHz (against "
			       "CLOCK_MONOTONIC_RAW)\n", (unsigned long long)(hz / 1000000),
			       (unsigned long long)(hz / 1000 % 1000));
			host_tsc_base = host_tsc_read();
			host_tsc = true;
			return hz;
		}
	}
	printf("gmk: hosted: counter: CLOCK_MONOTONIC (%s)\n", why);
	return NSEC_PER_SEC;
}

/*
 * deadline, a counter value, as the CLOCK_MONOTONIC time Linux's timers
 * and futexes wait for. With the TSC: now on that clock plus the time
 * left (each call reads both clocks afresh, so the rate's error applies
 * to the time left only and never accumulates), plus DEADLINE_MARGIN of
 * it, at least 1 ns after now.
 */
void host_counter_timespec(uint64_t deadline, struct timespec *ts)
{
	uint64_t ns = deadline;

	if (host_tsc) {
		uint64_t now = arch_counter();
		uint64_t left = deadline > now ? counter_to_ns(deadline - now) : 0;
		struct timespec mono;
		clock_gettime(CLOCK_MONOTONIC, &mono);
		ns = (uint64_t)mono.tv_sec * NSEC_PER_SEC + (uint64_t)mono.tv_nsec +
		     left + left / DEADLINE_MARGIN + 1;
	}
	ts->tv_sec = (time_t)(ns / NSEC_PER_SEC);
	ts->tv_nsec = (long)(ns % NSEC_PER_SEC);
}
