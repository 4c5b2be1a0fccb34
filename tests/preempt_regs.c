/*
 * Register state across asynchronous preemption: Gs that hold distinct
 * values in every general and FP/SIMD register (and non-default FP
 * control/status) in a register-only loop are preempted thousands of
 * times; every value must come back exactly (tests/regs_<arch>.S).
 */
#include <stdio.h>

#include "kernel/cmdline.h"
#include "kernel/test.h"
#include "tests/preempt_testutil.h"

#define REGS_OUT_WORDS	128
/* Per round: long enough that most preemptions land in the loop. */
#define REGS_ITERS	(1u << 18)
#define REGS_GS_PER_P	2
#define REGS_SLICE_NS	(250 * NSEC_PER_USEC)
#define REGS_WINDOW_NS	(1500 * NSEC_PER_MSEC)
#define REGS_MIN_PREEMPTIONS 1000
#define REGS_WINDOW_CAP	10	/* windows at most, under a loaded host */

void regs_fill_spin_dump(uint64_t seed, uint64_t iters, uint64_t *out);

static volatile uint32_t regs_stop;
static volatile uint64_t regs_done, regs_rounds, regs_bad;

/* Compare the dump with what regs_fill_spin_dump put in; count mismatches. */
static unsigned regs_check(uint64_t seed, const uint64_t *out)
{
	unsigned bad = 0;
#if defined(__aarch64__)
	for (unsigned i = 0; i < 30; i++)
		bad += out[i] != seed + ((uint64_t)i << 12);
	bad += out[30] != 0;
	for (unsigned i = 0; i < 32; i++) {
		uint64_t lo = seed + 0x100 + i;
		bad += out[32 + 2 * i] != lo;
		bad += out[33 + 2 * i] != ~lo;
	}
	bad += ((out[96] >> 22) & 3) != 3;		/* FPCR.RMode: toward zero */
	bad += out[97] != 0x08000010;			/* FPSR: QC | IXC */
#else
	for (unsigned k = 0; k < 14; k++)
		bad += out[k] != seed + ((uint64_t)k << 12);
	bad += out[14] != 0;
	for (unsigned i = 0; i < 16; i++) {
		uint64_t lo = seed + 0x100 + i;
		bad += out[16 + 2 * i] != lo;
		bad += out[17 + 2 * i] != ~lo;
	}
	bad += out[48] != 0x7FA0;			/* MXCSR */
	bad += out[49] != 0x0F7F;			/* x87 control word */
#endif
	if (bad)
		printf("# goroutine %llu: %u registers wrong (seed %016llx)\n",
		       (unsigned long long)goid(), bad, (unsigned long long)seed);
	return bad;
}

static void regs_g(void *arg)
{
	uint64_t out[REGS_OUT_WORDS];
	uint64_t seed = (uint64_t)(uintptr_t)arg << 40 ^ 0x5DEECE66Dull;
	uint64_t end = nanotime() + (REGS_WINDOW_CAP + 2) * REGS_WINDOW_NS;
	while (!atomic_load32(&regs_stop) && nanotime() < end) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		regs_fill_spin_dump(seed, REGS_ITERS, out);
		atomic_xadd64(&regs_bad, regs_check(seed, out));
		atomic_xadd64(&regs_rounds, 1);
	}
	atomic_xadd64(&regs_done, 1);
}

TEST(preempt_keeps_every_register_of_a_spinning_g)
{
	test_needs_async_preempt();
	uint32_t n = sched_nprocs() * REGS_GS_PER_P;
	uint64_t old = sched_set_slice(REGS_SLICE_NS);
	uint64_t pre0 = SUM_P(npreempt), t0 = nanotime();

	atomic_store32(&regs_stop, 0);
	atomic_store64(&regs_done, 0);
	atomic_store64(&regs_rounds, 0);
	atomic_store64(&regs_bad, 0);
	for (uint32_t i = 0; i < n; i++)
		go(regs_g, (void *)(uintptr_t)(i + 1));
	/* Until enough preemptions: twice the minimum within the window,
	 * or, on a loaded emulator whose vCPUs take fewer ticks, the
	 * minimum in up to REGS_WINDOW_CAP windows. The property is the
	 * registers; the count only says the test exercised it. */
	for (;;) {
		uint64_t el = nanotime() - t0, pre = SUM_P(npreempt) - pre0;
		if (pre >= 2 * REGS_MIN_PREEMPTIONS ||
		    (el >= REGS_WINDOW_NS && pre >= REGS_MIN_PREEMPTIONS) ||
		    el >= REGS_WINDOW_CAP * REGS_WINDOW_NS)
			break;
		sleep_ns(10 * NSEC_PER_MSEC);
	}
	atomic_store32(&regs_stop, 1);
	uint64_t done = sleep_until_count(&regs_done, n, (REGS_WINDOW_CAP + 8) * REGS_WINDOW_NS);
	sched_set_slice(old);
	uint64_t pre = SUM_P(npreempt) - pre0;
	printf("# %u Gs, %llu rounds, %llu async preemptions in %llu ms, "
	       "%llu wrong registers\n", n, (unsigned long long)regs_rounds,
	       (unsigned long long)pre,
	       (unsigned long long)((nanotime() - t0) / NSEC_PER_MSEC),
	       (unsigned long long)regs_bad);
	ASSERT_EQ(done, n);
	EXPECT_EQ(regs_bad, 0);
	EXPECT_GE(pre, REGS_MIN_PREEMPTIONS);
}
