/*
 * kmalloc: zeroed, 16-byte aligned blocks of every size class and page
 * runs; freeing returns the bytes; many Gs on every core at once.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/page.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"

static const size_t sizes[] = { 0, 1, 15, 16, 17, 100, 1000, 2032, 2033, 4096, 20000 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

TEST(kmalloc_sizes_zeroed_aligned_and_returned)
{
	uint64_t before = kmalloc_bytes_in_use();
	uint8_t *p[NSIZES];

	for (unsigned i = 0; i < NSIZES; i++) {
		p[i] = kmalloc(sizes[i]);
		ASSERT_EQ((uintptr_t)p[i] % 16, 0);
		for (size_t k = 0; k < sizes[i]; k++)
			ASSERT_EQ(p[i][k], 0);
		memset(p[i], 0xa5, sizes[i]);	/* must not hit a neighbour */
	}
	for (unsigned i = 0; i < NSIZES; i++)
		for (size_t k = 0; k < sizes[i]; k++)
			ASSERT_EQ(p[i][k], 0xa5);
	ASSERT_GT(kmalloc_bytes_in_use(), before);
	for (unsigned i = 0; i < NSIZES; i++)
		kfree(p[i]);
	ASSERT_EQ(kmalloc_bytes_in_use(), before);
	/* A freed slot comes back zeroed. */
	uint8_t *q = kmalloc(100);
	for (int k = 0; k < 100; k++)
		ASSERT_EQ(q[k], 0);
	kfree(q);
	kfree(NULL);
}

#define KM_GS		64
#define KM_ROUNDS	200
#define KM_G_RECORD_MAX	1024	/* bytes: a struct g, rounded to its slot */

static void km_churn(void *arg)
{
	struct waitgroup *wg = arg;
	uint32_t *keep[8] = { 0 };

	for (uint32_t r = 0; r < KM_ROUNDS; r++) {
		uint32_t slot = r % 8;
		if (keep[slot]) {
			if (keep[slot][0] != (uint32_t)(uintptr_t)keep[slot])
				test_fail(__FILE__, __LINE__, "block %p overwritten",
					  (void *)keep[slot]);
			kfree(keep[slot]);
		}
		keep[slot] = kmalloc(16 + (r * 37) % 3000);
		keep[slot][0] = (uint32_t)(uintptr_t)keep[slot];
		if (r % 32 == 0)
			gosched();
	}
	for (int i = 0; i < 8; i++)
		kfree(keep[i]);
	waitgroup_done(wg);
}

TEST(kmalloc_concurrent_churn)
{
	static struct waitgroup wg;
	uint64_t before = kmalloc_bytes_in_use();

	waitgroup_add(&wg, KM_GS);
	for (int i = 0; i < KM_GS; i++)
		go(km_churn, &wg);
	waitgroup_wait(&wg);
	/*
	 * Every block the churn took is back. The scheduler's G records also
	 * come from kmalloc and are kept for reuse, so up to one new record
	 * per G may remain; a leak of the churn's own blocks would be ~1000x
	 * that (KM_GS * KM_ROUNDS blocks of up to 3 KiB).
	 */
	uint64_t grown = kmalloc_bytes_in_use() - before;
	printf("# kmalloc in use grew by %llu bytes\n", (unsigned long long)grown);
	ASSERT_LE(grown, KM_GS * KM_G_RECORD_MAX);
}

/*
 * Blocks over the buddy allocator's largest (4 MiB) are runs of its
 * largest blocks side by side: zeroed, usable to the last byte, and freed
 * back. They were "out of memory" with the memory nearly empty.
 */
static const size_t big_sizes[] = { 4u << 20, (4u << 20) + 1, 5000000, 9u << 20, 33u << 20 };

TEST(kmalloc_over_4mib_is_a_zeroed_run_of_pages)
{
	uint64_t before = kmalloc_bytes_in_use();
	for (unsigned i = 0; i < sizeof big_sizes / sizeof big_sizes[0]; i++) {
		size_t n = big_sizes[i];
		uint8_t *p = kmalloc(n);
		ASSERT_EQ((uintptr_t)p % 16, 0);
		ASSERT_GE(kmalloc_usable_size(p), n);
		uint32_t nonzero = 0;
		for (size_t k = 0; k < n; k += 512)
			nonzero += p[k] != 0;
		nonzero += p[n - 1] != 0;
		EXPECT_EQ(nonzero, 0);
		memset(p, 0x5a, n);
		kfree(p);
		ASSERT_EQ(kmalloc_bytes_in_use(), before);
	}
	/* Aligned, over 4 MiB too. */
	uint8_t *a = kmalloc_aligned_try(6u << 20, 4096);
	ASSERT(a != NULL);
	ASSERT_EQ((uintptr_t)a % 4096, 0);
	memset(a, 1, 6u << 20);
	kfree(a);
	ASSERT_EQ(kmalloc_bytes_in_use(), before);
	/* Past the limit: NULL from the _try form, not a panic. */
	ASSERT(kmalloc_try(KMALLOC_MAX + 1) == NULL);
}

/* go_copy of an argument over 4 MiB, and a channel whose buffer is. */
#define BIG_ARG	(5u << 20)

static volatile uint32_t big_arg_result;	/* 1 + the bytes that differ */

static void big_arg_check(void *p)
{
	const uint8_t *a = p;
	uint32_t bad = 0;
	for (size_t k = 0; k < BIG_ARG; k++)
		bad += a[k] != (uint8_t)(k * 7);
	atomic_store32(&big_arg_result, bad + 1);
}

TEST(kmalloc_over_4mib_for_go_copy_and_chan_make)
{
	uint8_t *arg = kmalloc(BIG_ARG);
	for (size_t k = 0; k < BIG_ARG; k++)
		arg[k] = (uint8_t)(k * 7);
	atomic_store32(&big_arg_result, 0);
	go_copy(big_arg_check, arg, BIG_ARG);
	memset(arg, 0, BIG_ARG);		/* the G has its own copy */
	while (!atomic_load32(&big_arg_result))
		gosched();
	EXPECT_EQ(atomic_load32(&big_arg_result), 1);
	kfree(arg);

	chan_t c = chan_make(1, 5u << 20);
	for (uint32_t i = 0; i < (5u << 20); i += 4096) {
		uint8_t v = (uint8_t)(i >> 12);
		ASSERT(chan_trysend(c, &v));
	}
	EXPECT_EQ(chan_len(c), (5u << 20) / 4096);
	chan_free(c);
}

/*
 * Blocks of a power of two fill the free memory: a 1 MiB kmalloc takes
 * 256 pages, not 257 (a header pushed it into a 2 MiB buddy block whose
 * other half only smaller requests could use: 505 blocks of 1 MiB in
 * 1 GiB). Allocated until memory runs out, they cover at least 90% of
 * what was free.
 */
TEST(kmalloc_of_1mib_blocks_fills_the_free_memory)
{
	uint64_t free0 = page_bytes_total() - page_bytes_in_use();
	void *head = NULL;
	uint64_t n = 0;
	void *p;
	while ((p = kmalloc_try(1u << 20))) {
		*(void **)p = head;
		head = p;
		n++;
	}
	while (head) {
		p = head;
		head = *(void **)p;
		kfree(p);
	}
	printf("# %llu blocks of 1 MiB in %llu MiB free\n", (unsigned long long)n,
	       (unsigned long long)(free0 >> 20));
	EXPECT_GE(n * 10, (free0 >> 20) * 9);
}
