/*
 * Small stacks (go_stack with at most G_STACK_SMALL bytes): half a page
 * each from the stack pool, pages returned when both halves are free, and
 * an overflow reported by the canary at the G's next switch.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/page.h"
#include "kernel/preempt.h"
#include "kernel/test.h"
#include "sched/gmk.h"
#include "sched/sched.h"

#define SMALL_GS 2000u

struct small_park {
	chan_t c;
	volatile uint32_t started;
	struct waitgroup done;
};

static void small_waiter(void *arg)
{
	struct small_park *sp = arg;
	volatile char scratch[512];	/* use a real part of the stack */

	memset((char *)scratch, 0x5a, sizeof scratch);
	atomic_xadd32(&sp->started, 1);
	chan_recv(sp->c, NULL);
	if (scratch[0] == 0x5a && scratch[sizeof scratch - 1] == 0x5a)
		waitgroup_done(&sp->done);
}

TEST(sched_small_stack_gs_cost_half_a_page_and_give_it_back)
{
	test_needs_small_stacks();
	static struct small_park sp;

	gfree_release_stacks();
	uint64_t before = page_bytes_in_use();
	sp = (struct small_park){ .c = chan_make(0, 0) };
	waitgroup_add(&sp.done, SMALL_GS);
	for (uint32_t i = 0; i < SMALL_GS; i++)
		go_stack(small_waiter, &sp, G_STACK_SMALL);
	while (atomic_load32(&sp.started) < SMALL_GS)
		gosched();
	uint64_t during = page_bytes_in_use();
	chan_close(sp.c);
	waitgroup_wait(&sp.done);		/* every G saw its scratch intact */
	chan_free(sp.c);
	gfree_release_stacks();
	uint64_t after = page_bytes_in_use();

	uint64_t per_g = (during - before) / SMALL_GS;
	printf("# %u parked small-stack Gs: %llu bytes each (stack %u, record and "
	       "allocator pages included); %lld bytes still in use after\n", SMALL_GS,
	       (unsigned long long)per_g, G_STACK_SMALL, (long long)(after - before));
	/* The stack is half a page; the rest is the G record. */
	EXPECT_LE(per_g, G_STACK_SMALL + 1024);
	EXPECT_GE(per_g, G_STACK_SMALL / 2);
	/* Stacks of dead Gs went back: what stays is the cached records, and
	 * the Gs other Ps still cache (at most 64 each, with their stacks). */
	EXPECT_LT(after - before, (during - before) / 2);
}

/* The smallest class: a quarter page for a G that parks a few calls
 * deep; its deepest use (the stack's painting) must leave room. */
static volatile uint64_t min_deepest;

static void min_waiter(void *arg)
{
	struct small_park *sp = arg;
	volatile char scratch[128];

	memset((char *)scratch, 0x5a, sizeof scratch);
	atomic_xadd32(&sp->started, 1);
	chan_recv(sp->c, NULL);
	/* Only a 1 KiB stack says what 1 KiB must hold: gfget may give this
	 * G a dead G's bigger pool stack (2 KiB), unpainted, with the marks
	 * of its earlier user (on arm64 a tick's 816-byte register frame). */
	struct g *gp = getg();
	uint64_t used = gp->stack_hi - gp->stack_lo == G_STACK_MIN ? stack_small_used(gp) : 0;
	uint64_t old = atomic_load64(&min_deepest);
	while (used > old && !atomic_cas64(&min_deepest, old, used))
		old = atomic_load64(&min_deepest);
	if (scratch[0] == 0x5a && scratch[sizeof scratch - 1] == 0x5a)
		waitgroup_done(&sp->done);
}

TEST(sched_min_stack_gs_cost_a_quarter_page_and_give_it_back)
{
	test_needs_small_stacks();
	static struct small_park sp;

	gfree_release_stacks();
	uint64_t before = page_bytes_in_use();
	sp = (struct small_park){ .c = chan_make(0, 0) };
	atomic_store64(&min_deepest, 0);
	waitgroup_add(&sp.done, SMALL_GS);
	for (uint32_t i = 0; i < SMALL_GS; i++)
		go_stack(min_waiter, &sp, G_STACK_MIN);
	while (atomic_load32(&sp.started) < SMALL_GS)
		gosched();
	uint64_t during = page_bytes_in_use();
	chan_close(sp.c);
	waitgroup_wait(&sp.done);
	chan_free(sp.c);
	gfree_release_stacks();
	uint64_t after = page_bytes_in_use();

	uint64_t per_g = (during - before) / SMALL_GS;
	uint64_t deepest = atomic_load64(&min_deepest);
	printf("# %u parked Gs on %u-byte stacks: %llu bytes each (record %zu "
	       "included when new); deepest use %llu bytes\n", SMALL_GS, G_STACK_MIN,
	       (unsigned long long)per_g, g_record_bytes(),
	       (unsigned long long)deepest);
	EXPECT_LE(per_g, G_STACK_MIN + g_record_bytes() + 64);
	/* Other Ps' dead Gs may give pages back meanwhile: a loose floor. */
	EXPECT_GE(per_g, G_STACK_MIN / 2);
	EXPECT_GT(deepest, 128);		/* the painting saw the scratch */
	/* With room to spare, even where a tick pushed a whole register
	 * frame (FP/SIMD included) onto a stack: ~800 bytes on arm64. */
	EXPECT_LT(deepest, G_STACK_MIN - 64);
	EXPECT_LT(after - before, (during - before) / 2);
}

/* Recurse until the frames reach the bottom of the small stack and write
 * a little past it, then switch: the canary must be found broken. */
static uintptr_t small_lo;

static __attribute__((noinline)) void dig(int depth)
{
	volatile char frame[96];

	memset((char *)frame, depth, sizeof frame);
	if (arch_frame_address() > small_lo + 64)
		dig(depth + 1);
}

static void small_overflow(void *arg)
{
	(void)arg;
	small_lo = getg()->stack_lo;
	dig(0);
	gosched();
}

TEST_FATAL(sched_small_stack_overflow_is_reported, "stack overflow (small stack 0x")
{
	go_stack(small_overflow, NULL, G_STACK_SMALL);
	for (;;)
		gosched();
}

/* ---- default stacks: allocated in batches, given back ---------------- */

static struct {
	chan_t c;
	struct waitgroup done;
} batch_park;

static void batch_parker(void *arg)
{
	(void)arg;
	chan_recv(batch_park.c, NULL);
	waitgroup_done(&batch_park.done);
}

/* Bytes in use less the G record pages (records are never given back). */
static uint64_t stack_bytes_in_use(void)
{
	return page_bytes_in_use() - g_record_pages_bytes();
}

/*
 * The first default-size G after gfree_release_stacks takes a whole batch
 * of G_STACK_BATCH stacks; the next G_STACK_BATCH - 1 take theirs from it
 * and cost nothing more; the one after takes a new batch; and
 * gfree_release_stacks gives the unused rest back. (Without batches each
 * G would cost its own 5 pages and the first checks fail.) Dead Gs cached
 * on other Ps may hold stacks, so only this P's allocations are counted,
 * with the Gs parked until the end.
 */
TEST(sched_default_stacks_come_in_batches_and_go_back)
{
	const uint64_t slot = (G_STACK_DEFAULT / PAGE_SIZE + 1) * PAGE_SIZE;
	const uint64_t batch = G_STACK_BATCH * slot;
	batch_park.c = chan_make(0, 0);
	waitgroup_add(&batch_park.done, G_STACK_BATCH + 1);
	preempt_disable();	/* one P: gfget's cache and the batch are this P's */
	gfree_release_stacks();
	uint64_t b0 = stack_bytes_in_use();
	go(batch_parker, NULL);
	uint64_t b1 = stack_bytes_in_use();
	for (int i = 1; i < G_STACK_BATCH; i++)
		go(batch_parker, NULL);
	uint64_t b2 = stack_bytes_in_use();
	go(batch_parker, NULL);
	uint64_t b3 = stack_bytes_in_use();
	gfree_release_stacks();
	uint64_t b4 = stack_bytes_in_use();
	preempt_enable();

	printf("# first G: %llu bytes; next %d: %llu; one more: %llu; given back: %llu "
	       "(a batch is %llu)\n", (unsigned long long)(b1 - b0), G_STACK_BATCH - 1,
	       (unsigned long long)(b2 - b1), (unsigned long long)(b3 - b2),
	       (unsigned long long)(b3 - b4), (unsigned long long)batch);
	EXPECT_EQ(b1 - b0, batch);
	EXPECT_EQ(b2 - b1, 0);
	EXPECT_EQ(b3 - b2, batch);
	EXPECT_EQ(b3 - b4, batch - slot);	/* all but the one taken */

	chan_close(batch_park.c);
	waitgroup_wait(&batch_park.done);
	chan_free(batch_park.c);
}
