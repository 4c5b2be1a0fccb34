/*
 * Stack overflows must be reported, naming the G that overflowed. Each
 * TEST_FATAL runs alone in its own boot; the overflowing
 * G first sets the expected message to carry its own goid
 * (test_expect_fatal), so naming another G fails the test.
 *   - a big local array on a default stack: without probing
 *     (-fstack-clash-protection) the frame jumps the single guard page and
 *     the G writes below it silently;
 *   - a small stack (no guard page) overflowed by a G that then spins
 *     without switching: only the tick can see it.
 */
#include <string.h>

#include "kernel/cpu.h"
#include "kernel/page.h"
#include "kernel/preempt.h"
#include "kernel/test.h"
#include "sched/gmk.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"

/* Gs that park for good, so that the overflowing G is not the only one
 * and not goroutine 1 or 2. */
#define NBYSTANDERS 6
static chan_t never;
static struct g *volatile bystander[NBYSTANDERS];

static void parker(void *arg)
{
	bystander[(uintptr_t)arg] = getg();
	chan_recv(never, NULL);
}

/* Start them and wait until every one is parked: a small stack's
 * overflow writes over whatever lies below it, and a bystander still on
 * its way to the channel must not trip over that before the overflow is
 * reported. */
static void start_bystanders(void)
{
	never = chan_make(0, 0);
	for (uintptr_t i = 0; i < NBYSTANDERS; i += 2) {
		go(parker, (void *)i);
		go_stack(parker, (void *)(i + 1), G_STACK_SMALL);
	}
	for (int i = 0; i < NBYSTANDERS; i++)
		while (!bystander[i] || readgstatus(bystander[i]) != _Gwaiting)
			gosched();
}

/*
 * Is the running G's small stack the lowest piece of its pool page? Below
 * that piece lies another allocation's memory (a channel, a G record...),
 * and what an overflow does there depends on the page allocator's layout.
 * Below any other piece lies the next piece of the same page, which the
 * pool hands out after it (highest first): pool memory, free or a
 * parked bystander's stack top. So on the lowest piece, hand fn to a
 * new G, which takes the next piece, and stay out of the way for good.
 */
static void leave_the_lowest_piece_to(void (*fn)(void *))
{
	if (getg()->stack_lo % PAGE_SIZE != 0)
		return;
	go_stack(fn, NULL, G_STACK_SMALL);
	for (;;)
		gosched();
}

/* ---- 64 KiB of locals on a 16 KiB stack -------------------------------- */

static __attribute__((noinline)) int big_frame(int seed)
{
	volatile char buf[64 * 1024];

	/* Only the ends are touched: the frame's lowest byte lies ~48 KiB
	 * below the guard page. */
	buf[0] = (char)seed;
	buf[sizeof buf - 1] = (char)seed;
	return buf[0] + buf[sizeof buf - 1];
}

static volatile int big_result;

static void big_local_array(void *done)
{
	test_expect_fatal("goroutine %llu: stack overflow (stack 0x",
			  (unsigned long long)goid());
	big_result = big_frame(7);
	chan_send(done, NULL);
}

/* With the stack caches emptied first, the bystanders and then the
 * overflowing G take fresh slots of one default-size batch: the guard hit
 * is not the batch's first page but one unmapped inside the run. */
TEST_FATAL(sched_64k_local_array_hits_the_guard_page, ": stack overflow (stack 0x")
{
	chan_t done = chan_make(0, 0);

	gfree_release_stacks();
	start_bystanders();
	go(big_local_array, done);
	chan_recv(done, NULL);		/* reached only if the guard was jumped */
}

/* ---- small stacks: overflow, then spin --------------------------------- */

static uintptr_t small_lo;
static intptr_t dig_past;		/* how far below small_lo to go */
static bool spin_at_bottom;

static __attribute__((noinline)) void dig(int depth)
{
	volatile char frame[96];

	memset((char *)frame, depth, sizeof frame);
	if ((intptr_t)arch_frame_address() > (intptr_t)small_lo - dig_past)
		dig(depth + 1);
	else
		while (spin_at_bottom)
			arch_cpu_relax();
}

/* Overflow, then spin down there with preemption on: the G's stack
 * pointer is below its stack, so the tick cannot push its frame copy to
 * preempt it, and it never reaches a switch by itself. */
static void overflow_and_spin(void *arg)
{
	(void)arg;
	leave_the_lowest_piece_to(overflow_and_spin);
	test_expect_fatal("goroutine %llu: stack overflow (small stack 0x",
			  (unsigned long long)goid());
	small_lo = getg()->stack_lo;
	dig(0);
	for (;;)
		arch_cpu_relax();
}

TEST_FATAL(sched_small_stack_overflow_then_spin_names_the_g,
	   "stack overflow (small stack 0x")
{
	start_bystanders();
	dig_past = 256;
	spin_at_bottom = true;
	go_stack(overflow_and_spin, NULL, G_STACK_SMALL);
	for (;;)
		gosched();
}

/* Break the canary (frames reach just past the bottom word) and spin
 * with preemption off: no switch ever comes; the tick's check must. */
static void overflow_and_spin_unpreemptible(void *arg)
{
	(void)arg;
	leave_the_lowest_piece_to(overflow_and_spin_unpreemptible);
	test_expect_fatal("goroutine %llu: stack overflow (small stack 0x",
			  (unsigned long long)goid());
	small_lo = getg()->stack_lo;
	dig(0);
	preempt_disable();
	for (;;)
		arch_cpu_relax();
}

TEST_FATAL(sched_small_stack_canary_checked_at_the_tick,
	   "stack overflow (small stack 0x")
{
	start_bystanders();
	dig_past = -64;			/* stop 64 bytes above the bottom */
	go_stack(overflow_and_spin_unpreemptible, NULL, G_STACK_SMALL);
	for (;;)
		gosched();
}
