/*
 * The page allocator: a run of n pages costs n pages, not the power of
 * two above n (a default G's stack and guard are 5 pages, not 8), and
 * frees back to the same count, the tails merging with their buddies.
 */
#include <string.h>

#include "kernel/page.h"
#include "kernel/test.h"

static const size_t runs[] = { 1, 3, 5, 6, 7, 9, 33, 100 };
#define NRUNS (sizeof runs / sizeof runs[0])

TEST(page_runs_cost_exactly_their_pages)
{
	uint64_t before = page_bytes_in_use();
	uint8_t *p[NRUNS];

	for (unsigned i = 0; i < NRUNS; i++) {
		uint64_t b = page_bytes_in_use();
		p[i] = page_alloc(runs[i]);
		EXPECT_EQ(page_bytes_in_use() - b, runs[i] * PAGE_SIZE);
		for (size_t k = 0; k < runs[i] * PAGE_SIZE; k++)
			ASSERT_EQ(p[i][k], 0);
		memset(p[i], 0xa5, runs[i] * PAGE_SIZE);
	}
	for (unsigned i = 0; i < NRUNS; i++)	/* no run overlaps another */
		for (size_t k = 0; k < runs[i] * PAGE_SIZE; k += 512)
			ASSERT_EQ(p[i][k], 0xa5);
	for (unsigned i = 0; i < NRUNS; i++)
		page_free(p[i], runs[i]);
	ASSERT_EQ(page_bytes_in_use(), before);
}

/* Many 5-page runs, freed in an order that makes the tails merge back:
 * the count returns to where it was and a large block is whole again. */
TEST(page_odd_runs_merge_back)
{
	enum { N = 64 };
	static uint8_t *p[N];
	uint64_t before = page_bytes_in_use();

	for (int i = 0; i < N; i++)
		p[i] = page_alloc(5);
	EXPECT_EQ(page_bytes_in_use() - before, (uint64_t)N * 5 * PAGE_SIZE);
	for (int i = 0; i < N; i += 2)
		page_free(p[i], 5);
	for (int i = 1; i < N; i += 2)
		page_free(p[i], 5);
	ASSERT_EQ(page_bytes_in_use(), before);
	uint8_t *big = page_alloc(1024);	/* the largest block */
	page_free(big, 1024);
	ASSERT_EQ(page_bytes_in_use(), before);
}

/* A run taken without zeroing (what the default-size stack batches are)
 * costs its pages like any other, and goes back piece by piece in any
 * order: 16 stacks of 5 pages, freed alternately, leave the count where it
 * was and the largest block whole. */
TEST(page_nozero_run_goes_back_in_stack_sized_pieces)
{
	enum { SLOTS = 16, SLOT = 5 };
	uint64_t before = page_bytes_in_use();

	uint8_t *run = page_alloc_nozero_try(SLOTS * SLOT);
	ASSERT_NE((uintptr_t)run, 0);
	EXPECT_EQ(page_bytes_in_use() - before, (uint64_t)SLOTS * SLOT * PAGE_SIZE);
	for (int i = 0; i < SLOTS; i += 2)
		page_free(run + (size_t)i * SLOT * PAGE_SIZE, SLOT);
	EXPECT_EQ(page_bytes_in_use() - before, (uint64_t)SLOTS / 2 * SLOT * PAGE_SIZE);
	for (int i = SLOTS - 1; i > 0; i -= 2)
		page_free(run + (size_t)i * SLOT * PAGE_SIZE, SLOT);
	ASSERT_EQ(page_bytes_in_use(), before);
	uint8_t *big = page_alloc(1024);	/* the largest block */
	page_free(big, 1024);
	ASSERT_EQ(page_bytes_in_use(), before);
}

/*
 * Runs over the largest buddy block (4 MiB, 1,024 pages) are free
 * largest blocks side by side: they cost exactly their pages and free
 * back. A recorded run (page_alloc_run_try, kmalloc's headerless blocks)
 * states its length at its first page only, and no more once freed.
 */
TEST(page_runs_over_4mib_and_recorded_runs)
{
	static const size_t big[] = { 1025, 2048, 3000, 8192 };
	uint64_t before = page_bytes_in_use();
	for (unsigned i = 0; i < sizeof big / sizeof big[0]; i++) {
		uint8_t *p = page_alloc(big[i]);
		EXPECT_EQ(page_bytes_in_use() - before, big[i] * PAGE_SIZE);
		p[0] = 1;
		p[big[i] * PAGE_SIZE - 1] = 1;
		EXPECT_EQ(page_run_pages(p), 0);	/* not a recorded run */
		page_free(p, big[i]);
		EXPECT_EQ(page_bytes_in_use(), before);
	}
	static const size_t rec[] = { 4, 5, 64, 1024, 1025, 5000 };
	for (unsigned i = 0; i < sizeof rec / sizeof rec[0]; i++) {
		uint8_t *p = page_alloc_run_try(rec[i]);
		ASSERT(p != NULL);
		EXPECT_EQ(page_run_pages(p), rec[i]);
		EXPECT_EQ(page_run_pages(p + PAGE_SIZE), 0);
		EXPECT_EQ(page_run_pages(p + 16), 0);
		page_free(p, rec[i]);
		EXPECT_EQ(page_run_pages(p), 0);
		EXPECT_EQ(page_bytes_in_use(), before);
	}
}
