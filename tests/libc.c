/*
 * The C library under goroutines: its per-thread state (newlib's struct
 * _reent, picolibc's TLS, glibc's errno) is each G's own, and malloc and
 * its users work on every board (kernel/glocal.h, kernel/malloc.c).
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
#include "tests/kernel_api.h"

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
	struct libc_result first_got;	/* what it got (its finder's alone) */
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
			if (atomic_xadd64(&run->bad, 1) == 1) {	/* the new count */
				run->first_got = got;
				atomic_store32(&run->first_bad, i + 1);	/* release */
			}
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
	if (fb) {
		const struct libc_result *w = &run->want[fb - 1], *g = &run->first_got;
		printf("# first wrong result: input %u\n", fb - 1);
		printf("#   want \"%s\" %.17g %.17g %ld [%s|%s|%s] errno %d\n", w->text, w->d1,
		       w->d2, w->l, w->tok[0], w->tok[1], w->tok[2], w->errno_range);
		printf("#   got  \"%s\" %.17g %.17g %ld [%s|%s|%s] errno %d\n", g->text, g->d1,
		       g->d2, g->l, g->tok[0], g->tok[1], g->tok[2], g->errno_range);
	}
	EXPECT_EQ(run->bad, 0);
	EXPECT_EQ(run->done, (uint64_t)LIBC_GS * run->rounds);
	free(run);
}

/* The whole count (100,000 calls per G) takes seconds under TCG (3 to 6 s
 * on qemu-virt-arm64 and qemu-x86_64 at 1-8 cores), so it runs in every
 * boot rather than in a row of its own. */
TEST(libc_numbers_formatted_and_parsed_100000_times_in_16_goroutines_match_one_goroutine)
{
	libc_concurrent(100000);
}

/* ---- errno is per goroutine ------------------------------------------ */

/* ERRNO_GS Gs take turns round a ring, passing a token over channels:
 * each sets errno to its own value, passes the token on and waits for it
 * again, and must find its value at its next turn. The next G runs where
 * the last one readied it (its runnext) or where an idle P steals it, so
 * all of them take turns on each core they visit. (A token polled with
 * gosched would make each turn wait for one G's vCPU among many under an
 * emulator with fewer host CPUs: seconds per round at 8 cores.) */
#define ERRNO_GS	8
#define ERRNO_ROUNDS	500

struct errno_ring {
	chan_t turn[ERRNO_GS];		/* G i's token arrives on turn[i] */
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
	uint32_t token;

	if (errno != 0)			/* a new G starts with errno 0 */
		atomic_xadd64(&ring->fresh_bad, 1);
	errno = value;
	for (int k = 0; k < ERRNO_ROUNDS; k++) {
		chan_recv(ring->turn[a->me], &token);
		if (errno != value)
			atomic_xadd64(&ring->bad, 1);
		errno = value;
		/* The last G's last turn has no one to pass to. */
		if (k < ERRNO_ROUNDS - 1 || a->me < ERRNO_GS - 1)
			chan_send(ring->turn[(a->me + 1) % ERRNO_GS], &token);
	}
	waitgroup_done(&ring->wg);
}

TEST(libc_errno_set_in_one_goroutine_is_not_seen_in_another)
{
	struct errno_ring ring = { 0 };
	struct errno_g_arg args[ERRNO_GS];
	uint32_t token = 0;

	errno = 0;
	for (int i = 0; i < ERRNO_GS; i++)
		ring.turn[i] = chan_make(sizeof token, 1);
	waitgroup_add(&ring.wg, ERRNO_GS);
	for (int i = 0; i < ERRNO_GS; i++) {
		args[i] = (struct errno_g_arg){ &ring, i };
		go(errno_g, &args[i]);
	}
	chan_send(ring.turn[0], &token);
	waitgroup_wait(&ring.wg);
	for (int i = 0; i < ERRNO_GS; i++)
		chan_free(ring.turn[i]);
	EXPECT_EQ(ring.fresh_bad, 0);
	EXPECT_EQ(ring.bad, 0);
	EXPECT_EQ(errno, 0);		/* nor in the G that started them */
}

/* ERRNO_SPIN_GS Gs, more than cores, write errno and read it back in a
 * loop with no call, on short slices, so that they are preempted at every
 * kind of instruction: each must read back what it wrote. On the hosted
 * board errno is glibc's, the core thread's, and a G moves between
 * threads: an access that took errno's address and then used it would,
 * preempted between the two and resumed on another thread, use the old
 * thread's errno (errno.h reaches it in one instruction). */
#define ERRNO_SPIN_GS	8
#define ERRNO_SPIN_NS	(150 * NSEC_PER_MSEC)

struct errno_spin {
	volatile uint32_t stop;
	volatile uint64_t bad, checks;
	struct waitgroup wg;
};

static void errno_spin_g(void *arg)
{
	struct errno_spin *s = arg;
	int base = 100000 * (int)(goid() % 1000 + 1);
	uint64_t bad = 0, checks = 0;

	while (!atomic_load32(&s->stop)) {
		for (int k = 0; k < 1000; k++) {
			errno = base + k;
			asm volatile("" : : : "memory");	/* read it again */
			bad += errno != base + k;
		}
		checks += 1000;
	}
	atomic_xadd64(&s->bad, bad);
	atomic_xadd64(&s->checks, checks);
	waitgroup_done(&s->wg);
}

TEST(libc_errno_read_back_by_goroutines_preempted_anywhere_is_their_own)
{
	test_needs_async_preempt();	/* the point: preempted between any two instructions */
	struct errno_spin s = { 0 };
	uint64_t old = sched_set_slice(100 * NSEC_PER_USEC);

	waitgroup_add(&s.wg, ERRNO_SPIN_GS);
	for (int i = 0; i < ERRNO_SPIN_GS; i++)
		go(errno_spin_g, &s);
	sleep_ns(ERRNO_SPIN_NS);
	atomic_store32(&s.stop, 1);
	waitgroup_wait(&s.wg);
	sched_set_slice(old);
	printf("# %d goroutines: %llu writes read back, %llu wrong\n", ERRNO_SPIN_GS,
	       (unsigned long long)s.checks, (unsigned long long)s.bad);
	EXPECT_GT(s.checks, 0);
	EXPECT_EQ(s.bad, 0);
}

/* ---- strtok's position ------------------------------------------------ */

/* STRTOK_GS Gs each split a string of their own with strtok (whose
 * position is the library's, not the caller's as strtok_r's), yielding
 * after every token: each must get its own string's tokens, and a new G
 * none. glibc's strtok keeps one position for the whole process; the
 * hosted board's (arch/x86_64-linux/strtok.c) one per G. */
#define STRTOK_GS	8
#define STRTOK_TOKENS	16

struct strtok_run {
	char text[STRTOK_GS][STRTOK_TOKENS * 4];	/* outlives every G */
	volatile uint64_t bad, tokens;
	struct waitgroup wg;
};

struct strtok_arg {
	struct strtok_run *run;
	int me;
};

static void strtok_g(void *arg)
{
	struct strtok_arg *a = arg;
	uint64_t bad = 0, n = 0;

	bad += strtok(NULL, ",") != NULL;	/* a new G has no position */
	for (char *t = strtok(a->run->text[a->me], ","); t; t = strtok(NULL, ",")) {
		bad += atoi(t) != a->me;
		n++;
		gosched();
	}
	atomic_xadd64(&a->run->bad, bad);
	atomic_xadd64(&a->run->tokens, n);
	waitgroup_done(&a->run->wg);
}

TEST(libc_strtok_in_many_goroutines_splits_each_ones_own_string)
{
	struct strtok_run *run = calloc(1, sizeof *run);
	struct strtok_arg args[STRTOK_GS];

	ASSERT(run != NULL);
	for (int i = 0; i < STRTOK_GS; i++) {
		char *p = run->text[i];
		for (int k = 0; k < STRTOK_TOKENS; k++)
			p += sprintf(p, k ? ",%d" : "%d", i);
	}
	waitgroup_add(&run->wg, STRTOK_GS);
	for (int i = 0; i < STRTOK_GS; i++) {
		args[i] = (struct strtok_arg){ run, i };
		go(strtok_g, &args[i]);
	}
	waitgroup_wait(&run->wg);
	EXPECT_EQ(run->bad, 0);
	EXPECT_EQ(run->tokens, (uint64_t)STRTOK_GS * STRTOK_TOKENS);
	free(run);
}

/* ---- malloc and its users -------------------------------------------- */

/* The sanitizers' allocators (hosted SAN=tsan|asan) end the program at an
 * impossible size instead of returning NULL (allocator_may_return_null
 * is off), so those requests are left out there. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LIBC_SAN_ALLOCATOR 1
#endif
#endif

TEST(libc_malloc_calloc_realloc_free_keep_content_and_zero)
{
	free(NULL);
	unsigned char *p = malloc(10);
	ASSERT(p != NULL);
	ASSERT_EQ((uintptr_t)p % 16, 0);
	for (int i = 0; i < 10; i++)
		p[i] = (unsigned char)(i * 31);
	/* Growth through the size classes into whole pages and back. */
	static const size_t steps[] = { 100, 3000, 70000, 300000, 5000, 40, 1 };
	size_t have = 10;
	for (unsigned s = 0; s < sizeof steps / sizeof steps[0]; s++) {
		p = realloc(p, steps[s]);
		ASSERT(p != NULL);
		size_t keep = have < steps[s] ? have : steps[s];
		for (size_t i = 0; i < keep; i++)
			ASSERT_EQ(p[i], (unsigned char)(i * 31));
		for (size_t i = 0; i < steps[s]; i++)
			p[i] = (unsigned char)(i * 31);
		have = steps[s];
	}
	free(p);
	uint32_t *z = calloc(50000, sizeof *z);
	ASSERT(z != NULL);
	for (int i = 0; i < 50000; i++)
		ASSERT_EQ(z[i], 0);
	free(z);
#ifndef LIBC_SAN_ALLOCATOR
	volatile size_t huge = SIZE_MAX / 2;
	ASSERT(calloc(huge, 4) == NULL);	/* overflows size_t */
#endif
	void *a = NULL;
	ASSERT_EQ(posix_memalign(&a, 256, 1000), 0);
	ASSERT_EQ((uintptr_t)a % 256, 0);
	memset(a, 1, 1000);
	free(a);
	a = aligned_alloc(4096, 4096);
	ASSERT(a != NULL);
	ASSERT_EQ((uintptr_t)a % 4096, 0);
	free(a);
}

TEST(libc_malloc_out_of_memory_returns_null)
{
	void *p = NULL;
	(void)p;		/* hosted under a sanitizer: nothing left to try */
#ifndef LIBC_SAN_ALLOCATOR
	/* Bigger than any block: NULL, and a line naming the size. */
	errno = 0;
	volatile size_t huge = (size_t)1 << 40;
	p = malloc(huge);
	EXPECT(p == NULL);
	EXPECT_EQ(errno, ENOMEM);
#endif
#ifndef GMK_HOSTED
	/* Then memory runs out for real: NULL, not a fatal error. (glibc's
	 * malloc on the hosted board would take the host's swap first.) */
	void *head = NULL;
	unsigned n = 0;
	for (;;) {
		void **q = malloc(1 << 20);
		if (!q)
			break;
		*q = head;
		head = q;
		n++;
	}
	printf("# %u MiB allocated before malloc returned NULL\n", n);
	EXPECT_GT(n, 0);
	while (head) {
		void *next = *(void **)head;
		free(head);
		head = next;
	}
	p = malloc(1 << 20);
	EXPECT(p != NULL);
	free(p);
#endif
}

TEST(libc_strdup_and_asprintf_allocate)
{
	char *s = strdup("goroutines all the way down");
	ASSERT(s != NULL);
	EXPECT(strcmp(s, "goroutines all the way down") == 0);
	char *t = NULL;
	int n = asprintf(&t, "%s: %d %.2f", s, 42, 2.5);
	ASSERT(t != NULL);
	EXPECT_EQ(n, (int)strlen("goroutines all the way down: 42 2.50"));
	EXPECT(strcmp(t, "goroutines all the way down: 42 2.50") == 0);
	free(s);
	free(t);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

TEST(libc_qsort_of_a_million_numbers_sorts)
{
	enum { N = 1 << 20 };	/* 4 MiB less one page: whole pages */
	uint32_t *v = malloc((N - 1024) * sizeof *v);
	ASSERT(v != NULL);
	uint32_t x = 12345, sum = 0, sum2 = 0;
	for (unsigned i = 0; i < N - 1024; i++) {
		x = x * 1664525u + 1013904223u;
		v[i] = x;
		sum += x;
	}
	qsort(v, N - 1024, sizeof *v, cmp_u32);
	for (unsigned i = 0; i < N - 1024; i++) {
		sum2 += v[i];
		if (i)
			ASSERT_LE(v[i - 1], v[i]);
	}
	EXPECT_EQ(sum, sum2);
	free(v);
}

/* Many Gs allocate, fill, check and free random sizes at once. */
struct churn {
	volatile uint64_t bad, allocs;
	struct waitgroup wg;
};

#define CHURN_GS	16
#define CHURN_ROUNDS	400
#define CHURN_LIVE	8

static void churn_g(void *arg)
{
	struct churn *c = arg;
	unsigned char *live[CHURN_LIVE] = { 0 };
	size_t len[CHURN_LIVE] = { 0 };
	uint32_t r = (uint32_t)goid() * 2654435761u;

	for (int k = 0; k < CHURN_ROUNDS; k++) {
		r = r * 1664525u + 1013904223u;
		unsigned slot = (r >> 8) % CHURN_LIVE;
		unsigned char *p = live[slot];
		unsigned char tag = (unsigned char)(slot + 1 + ((uintptr_t)p >> 4));
		for (size_t i = 0; p && i < len[slot]; i++)
			if (p[i] != tag) {
				atomic_xadd64(&c->bad, 1);
				break;
			}
		size_t n = (r >> 16) % 4 == 0 ? (r >> 12) % 40000 : (r >> 12) % 600;
		if ((r >> 20) & 1) {
			free(p);
			p = malloc(n);
		} else {
			p = realloc(p, n);	/* keeps the first min(old, n) bytes */
		}
		if (!p && n) {
			atomic_xadd64(&c->bad, 1);
			continue;
		}
		live[slot] = p;
		len[slot] = n;
		tag = (unsigned char)(slot + 1 + ((uintptr_t)p >> 4));
		if (n)
			memset(p, tag, n);
		atomic_xadd64(&c->allocs, 1);
		if (k % 16 == 0)
			gosched();
	}
	for (int s = 0; s < CHURN_LIVE; s++)
		free(live[s]);
	waitgroup_done(&c->wg);
}

TEST(libc_malloc_churn_in_many_goroutines_keeps_every_block_intact)
{
	struct churn c = { 0 };
	uint64_t old = sched_set_slice(100 * NSEC_PER_USEC);

	waitgroup_add(&c.wg, CHURN_GS);
	for (int g = 0; g < CHURN_GS; g++)
		go(churn_g, &c);
	waitgroup_wait(&c.wg);
	sched_set_slice(old);
	EXPECT_EQ(c.bad, 0);
	EXPECT_EQ(c.allocs, (uint64_t)CHURN_GS * CHURN_ROUNDS);
}
