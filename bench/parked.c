/*
 * parked: 100,000 Gs blocked on one channel. Figure: bytes of memory per
 * parked G, from the page allocator's own count (page_bytes_in_use): the
 * growth from before the first G starts to when all of them have reached
 * the channel, over their number.
 *
 * The Gs use a small stack (go_stack, PARKED_SMALL_STACK); the same
 * figure with the default stack (G_STACK_DEFAULT) is printed beside it,
 * measured with a tenth as many Gs so that it fits in the guest's memory
 * (the figure is per G; the count does not change it).
 *
 * Dead Gs keep their stacks in the free-G caches for reuse, and those
 * pages stay "in use"; each measurement first gives the cached stacks
 * back (gfree_release_stacks, as Go's GC does) so that the Gs get fresh
 * ones. Their records stay cached (as in Go, where allgs never shrinks),
 * so the page growth counts a record only in the first run; the figure
 * therefore takes the record pages out of the growth and adds one record
 * (g_record_bytes) per G: every run counts stack, record and what the
 * channel wait needs (the sudog lives on the G's stack).
 *
 * The main figure uses the smallest stack class (G_STACK_MIN, 1 KiB);
 * aux figures: Go's initial size (G_STACK_SMALL, 2 KiB), the default
 * stack, and the deepest any parked G's small stack went (its painting:
 * stack_small_used), which says whether 1 KiB is enough.
 */
#include "kernel/page.h"
#include "bench/bench.h"

#define PARKED_GS		100000u
#define PARKED_DEFAULT_DIV	10u	/* default-stack run: a tenth as many */
#define PARKED_SMALL_STACK	G_STACK_MIN	/* the smallest stack class */

struct parked {
	chan_t c;
	volatile uint64_t started, woke;
	struct waitgroup done;
};

static volatile uint64_t parked_deepest;	/* bytes, over every small stack */

static void parked_g(void *arg)
{
	struct parked *pk = arg;
	atomic_xadd64(&pk->started, 1);
	if (!chan_recv(pk->c, NULL))		/* false: closed, as expected */
		atomic_xadd64(&pk->woke, 1);
	waitgroup_done(&pk->done);
	/* The deepest this stack went: parking, waking, waitgroup_done. */
	uint64_t used = stack_small_used(getg());
	uint64_t old = atomic_load64(&parked_deepest);
	while (used > old && !atomic_cas64(&parked_deepest, old, used))
		old = atomic_load64(&parked_deepest);
}

/* Park n Gs with stack_bytes each; returns bytes per G. */
static double park_n(struct bench_ctx *c, uint32_t n, long stack_bytes)
{
	struct parked pk = { .c = NULL };

	gfree_release_stacks();
	uint64_t before = page_bytes_in_use();
	uint64_t rec_before = g_record_pages_bytes();
	pk.c = chan_make(0, 0);			/* Go's chan struct{} */
	waitgroup_add(&pk.done, (int32_t)n);
	for (uint32_t i = 0; i < n; i++)
		go_stack(parked_g, &pk, stack_bytes);
	/* Once a G has counted itself it allocates nothing more. */
	while (atomic_load64(&pk.started) < n)
		gosched();
	uint64_t during = page_bytes_in_use();
	uint64_t rec_during = g_record_pages_bytes();

	chan_close(pk.c);
	waitgroup_wait(&pk.done);
	chan_free(pk.c);
	uint64_t woke = atomic_load64(&pk.woke);
	if (woke != n)
		bench_fail(c, "%llu of %u Gs woke from the closed channel",
			   (unsigned long long)woke, n);
	double growth = (double)during - (double)before -
			((double)rec_during - (double)rec_before);
	return growth / n + (double)g_record_bytes();
}

double bench_parked(struct bench_ctx *c)
{
	uint32_t n = bench_count(c, PARKED_GS);
	uint32_t nd = n / PARKED_DEFAULT_DIV ? n / PARKED_DEFAULT_DIV : 1;

	c->aux[0] = park_n(c, nd, G_STACK_DEFAULT);
	c->aux[1] = park_n(c, nd, G_STACK_SMALL);
	atomic_store64(&parked_deepest, 0);
	double fig = park_n(c, n, PARKED_SMALL_STACK);
	c->aux[2] = (double)atomic_load64(&parked_deepest);
	return fig;
}
