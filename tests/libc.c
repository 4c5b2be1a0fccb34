/*
 * The C library under goroutines: its per-thread state (newlib's struct
 * _reent, picolibc's TLS, glibc's errno) is each G's own (kernel/glocal.h).
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/test.h"
#include "sched/gmk.h"

/* ---- formatting and parsing from many goroutines --------------------- */

#define LIBC_GS		16
#define LIBC_INPUTS	64
/* Library calls in one round of libc_round: snprintf, strtod twice,
 * strtol, strtok_r four times. */
#define LIBC_CALLS_PER_ROUND	8

struct libc_result {
	char text[96];
	double d1, d2;
	long l;
	char tok[3][32];
	int errno_range;	/* errno after an out-of-range strtol */
};

/* One round on input i: format three numbers, parse them back, split the
 * text, and a strtol that overflows (errno). */
static void libc_round(unsigned i, struct libc_result *r)
{
	double x = ((double)i * 1234.5678) / 7.0 - 3000.0;
	char *end, *save, copy[96];

	memset(r, 0, sizeof *r);
	snprintf(r->text, sizeof r->text, "%.3f %e %d", x, x * 1.0e-7 + (double)i,
		 (int)(i * 7919u) - 250000);
	r->d1 = strtod(r->text, &end);
	r->d2 = strtod(end, &end);
	r->l = strtol(end, &end, 10);
	strcpy(copy, r->text);
	char *t = strtok_r(copy, " ", &save);
	for (int k = 0; k < 3 && t; k++, t = strtok_r(NULL, " ", &save))
		strncpy(r->tok[k], t, sizeof r->tok[k] - 1);
	errno = 0;
	(void)strtol("99999999999999999999999", NULL, 10);
	r->errno_range = errno;
}

struct libc_run {
	struct libc_result want[LIBC_INPUTS];
	uint32_t rounds;		/* per G */
	volatile uint64_t bad, done;
	volatile uint32_t first_bad;	/* input + 1 of the first mismatch */
	struct waitgroup wg;
};

static void libc_g(void *arg)
{
	struct libc_run *run = arg;
	struct libc_result got;
	unsigned start = (unsigned)goid();

	for (uint32_t k = 0; k < run->rounds; k++) {
		unsigned i = (start * 7 + k) % LIBC_INPUTS;
		libc_round(i, &got);
		if (memcmp(&got, &run->want[i], sizeof got) != 0) {
			if (atomic_xadd64(&run->bad, 1) == 0)
				atomic_store32(&run->first_bad, i + 1);
		}
	}
	atomic_xadd64(&run->done, run->rounds);
	waitgroup_done(&run->wg);
}

/* LIBC_GS Gs, `calls` library calls each, on short slices so that they
 * are preempted inside the library; every result must be the one a
 * single G got. */
static void libc_concurrent(uint32_t calls)
{
	struct libc_run *run = calloc(1, sizeof *run);
	ASSERT(run != NULL);
	for (unsigned i = 0; i < LIBC_INPUTS; i++) {
		libc_round(i, &run->want[i]);
		ASSERT_EQ(run->want[i].errno_range, ERANGE);
	}
	ASSERT(strncmp(run->want[1].text, run->want[1].tok[0], strlen(run->want[1].tok[0])) == 0);
	ASSERT(run->want[1].d1 == strtod(run->want[1].tok[0], NULL));
	run->rounds = calls / LIBC_CALLS_PER_ROUND;
	uint64_t old = sched_set_slice(100 * NSEC_PER_USEC);
	uint64_t t0 = nanotime();
	waitgroup_add(&run->wg, LIBC_GS);
	for (int g = 0; g < LIBC_GS; g++)
		go(libc_g, run);
	waitgroup_wait(&run->wg);
	uint64_t ns = nanotime() - t0;
	sched_set_slice(old);
	printf("# %d goroutines x %u calls: %llu ms\n", LIBC_GS, calls,
	       (unsigned long long)(ns / NSEC_PER_MSEC));
	unsigned fb = run->first_bad;
	if (fb)
		printf("# first wrong result: input %u, want \"%s\"\n", fb - 1,
		       run->want[fb - 1].text);
	EXPECT_EQ(run->bad, 0);
	EXPECT_EQ(run->done, (uint64_t)LIBC_GS * run->rounds);
	free(run);
}

/* The whole count takes a few seconds under TCG (3 s on qemu-virt-arm64
 * at 2 cores), so it runs in every boot. */
TEST(libc_numbers_formatted_and_parsed_100000_times_in_16_goroutines_match_one_goroutine)
{
	libc_concurrent(100000);
}

/* ---- errno is per goroutine ------------------------------------------ */

/* ERRNO_GS Gs take turns round a ring, more of them than cores, so that
 * several share each core: each sets errno to its own value, passes the
 * turn and yields, and must find its value again at its next turn. */
#define ERRNO_GS	8
#define ERRNO_ROUNDS	500

struct errno_ring {
	volatile uint32_t turn;
	volatile uint64_t bad, fresh_bad;
	struct waitgroup wg;
};

struct errno_g_arg {
	struct errno_ring *ring;
	int me;
};

static void errno_g(void *arg)
{
	struct errno_g_arg *a = arg;
	struct errno_ring *ring = a->ring;
	int value = 1000 + a->me;

	if (errno != 0)			/* a new G starts with errno 0 */
		atomic_xadd64(&ring->fresh_bad, 1);
	errno = value;
	for (int k = 0; k < ERRNO_ROUNDS; k++) {
		while (atomic_load32(&ring->turn) != (uint32_t)a->me)
			gosched();
		if (errno != value)
			atomic_xadd64(&ring->bad, 1);
		errno = value;
		atomic_store32(&ring->turn, (uint32_t)(a->me + 1) % ERRNO_GS);
		gosched();
	}
	waitgroup_done(&ring->wg);
}

TEST(libc_errno_set_in_one_goroutine_is_not_seen_in_another)
{
	struct errno_ring ring = { 0 };
	struct errno_g_arg args[ERRNO_GS];

	errno = 0;
	waitgroup_add(&ring.wg, ERRNO_GS);
	for (int i = 0; i < ERRNO_GS; i++) {
		args[i] = (struct errno_g_arg){ &ring, i };
		go(errno_g, &args[i]);
	}
	waitgroup_wait(&ring.wg);
	EXPECT_EQ(ring.fresh_bad, 0);
	EXPECT_EQ(ring.bad, 0);
	EXPECT_EQ(errno, 0);		/* nor in the G that started them */
}
