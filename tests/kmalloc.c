/*
 * kmalloc: zeroed, 16-byte aligned blocks of every size class and page
 * runs; freeing returns the bytes; many Gs on every core at once.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/test.h"
#include "sched/gmk.h"

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
