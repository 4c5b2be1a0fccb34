/*
 * Stack overflows must be reported, naming the G that overflowed. Each
 * TEST_FATAL runs alone in its own boot; the expected message carries
 * the overflowing G's own goid (test_expect_fatal), so naming another G
 * fails the test.
 *   - a big local array on a default stack: without probing
 *     (-fstack-clash-protection) the frame jumps the single guard page and
 *     the G writes below it silently;
 *   - a small stack (no guard page of its own) overflowed by a G that
 *     then spins without switching: only the tick can see it;
 *   - a small stack overflowed without end, through the pool stacks
 *     below it, to the guard page below its run.
 *   - a 1 KiB pool stack overflowed into the one below it, whose owner
 *     sleeps meanwhile and, woken, is the first to find the damage.
 */
#include <string.h>

#include "kernel/compiler.h"
#include "kernel/cpu.h"
#include "kernel/glocal.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"
#include "tests/sched_testutil.h"

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
 * Is the running G's small stack the lowest piece of its pool run? Below
 * that piece lies the run's guard page, and an overflow faults there at
 * once: these tests are about the checks that catch an overflow that
 * faults nowhere. Below any other piece lies the next piece of the run:
 * pool memory, free or a parked G's stack. So on the lowest piece, hand
 * fn to a new G, which takes a piece above it, and park for good: an
 * overflow of that G writes over this one's stack, which must then never
 * run again.
 */
static void leave_the_lowest_piece_to(void (*fn)(void *))
{
	if (getg()->stack_lo % (STACK_POOL_RUN_PAGES * PAGE_SIZE) != PAGE_SIZE)
		return;
	go_stack(fn, NULL, G_STACK_SMALL);
	gopark(NULL, NULL, waitReasonTest);
}

/* ---- 64 KiB of locals on a 16 KiB stack -------------------------------- */

static __noinline int big_frame(int seed)
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

static __noinline void dig(int depth)
{
	volatile char frame[96];

	memset((char *)frame, depth, sizeof frame);
	if ((intptr_t)arch_frame_address() > (intptr_t)small_lo - dig_past) {
		dig(depth + 1);
		return;
	}
	/* Stopped above the bottom: overwrite the lowest word, as a frame
	 * one call deeper would (the frames alone reach it or not by the
	 * frame layout). */
	if (dig_past < 0)
		*(volatile uint64_t *)small_lo = (uint64_t)depth;
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
	dig_past = -128;		/* stop 128 bytes above the bottom */
	go_stack(overflow_and_spin_unpreemptible, NULL, G_STACK_SMALL);
	for (;;)
		gosched();
}

/* ---- small stacks: deep recursion while the parent waits ----------------- */

/* stack_eat (tests/sched_testutil.h): recursion that no compiler can turn
 * into a loop (each frame keeps a buffer that the next call reads). The
 * limit is never reached (a G's stack is far smaller); it only tells the
 * compiler that it could be. */
static volatile uint64_t stack_eat_limit = UINT64_MAX;

__noinline uint64_t stack_eat(volatile uint8_t *prev, uint64_t n)
{
	volatile uint8_t buf[512];

	buf[0] = prev ? prev[0] + 1 : 0;
	if (n >= stack_eat_limit)
		return buf[0];
	return stack_eat(buf, n + 1) + buf[0];
}

static chan_t recurse_start, recurse_done;
static volatile uintptr_t recurse_lo;	/* atomic */

static void recurse_deeply(void *arg)
{
	(void)arg;
	atomic_storeuintptr(&recurse_lo, getg()->stack_lo);
	chan_recv(recurse_start, NULL);
	stack_eat(NULL, 0);
	chan_send(recurse_done, NULL);
}

/*
 * A G on a 2 KiB pool stack recurses without end while the G that
 * started it waits for it. Nothing stops it at its own stack (a pool
 * stack has no guard page of its own): it must be stopped before it
 * writes over memory that is not pool stacks (a G record it overwrote
 * would name the G wrong), and the report must name it, not the owner
 * of whatever guard page it ran into. Small-stack bystanders park first,
 * so that it runs through their stacks before anything stops it. The
 * parent sets the expected message before it lets the G go: glibc's
 * vsnprintf (the hosted board) needs more than 2 KiB, and on the lowest
 * piece of a run it would fault before the recursion began.
 */
TEST_FATAL(sched_small_stack_deep_recursion_names_the_g_that_overflowed,
	   ": stack overflow (small stack 0x")
{
	start_bystanders();
	recurse_start = chan_make(0, 0);
	recurse_done = chan_make(0, 0);
	uint64_t id = go_stack(recurse_deeply, NULL, G_STACK_SMALL);
	test_expect_fatal("goroutine %llu: stack overflow (small stack 0x",
			  (unsigned long long)id);
	uintptr_t lo;
	while ((lo = atomic_loaduintptr(&recurse_lo)) == 0)
		gosched();
	printf("# goroutine %llu: small stack at 0x%lx, %lu bytes above its pool run's "
	       "guard page\n", (unsigned long long)id, (unsigned long)lo,
	       (unsigned long)(lo % (STACK_POOL_RUN_PAGES * PAGE_SIZE) - PAGE_SIZE));
	chan_send(recurse_start, NULL);
	chan_recv(recurse_done, NULL);	/* reached only if nothing stopped it */
}

/* ---- small stacks: a park whose switch would write past the end ------- */

/*
 * A G on a small pool stack parks at a channel with its stack pointer
 * within 48 bytes of its stack's end (x86-64; the park's writes reach
 * the canary word on both arches): the G that runs next is one that
 * sleeps on another channel, so the park switches straight to it
 * (park_direct), which writes the G's registers below its stack pointer.
 * The overflow must be named at that park, not at the G's next switch
 * (after it has run on a broken stack). One park at a safe depth first
 * measures where the park writes: its lowest byte is the parked G's
 * saved sp, which the partner reads. Then the G parks again with its
 * frame moved down so that that byte falls in the canary word or below.
 * If it comes back from that park, the expected message becomes one no
 * report has, and the later one fails the test. The messages are set by
 * the test's G: formatting one (glibc's, on the hosted board) takes more
 * than a small stack.
 */
#define EDGE_MEASURES	4

static chan_t edge_wake, edge_go, edge_published, edge_proceed, edge_never;
static struct g *volatile edge_g;
static volatile uintptr_t edge_low, edge_buf, edge_lo, edge_hi;
static volatile uint64_t edge_goid;

static void edge_partner(void *arg)
{
	(void)arg;
	for (;;) {
		chan_recv(edge_go, NULL);
		/* We run on the edge G's park (it readied us into runnext). */
		atomic_storeuintptr(&edge_low, edge_g->sched.sp);
		chan_send(edge_wake, NULL);
	}
}

/* Park at edge_wake with pad bytes more of frame: a variable-length
 * array moves the stack pointer down by pad (a multiple of 16). */
static __noinline void edge_park(size_t pad)
{
	volatile char buf[pad];

	buf[0] = 0;
	atomic_storeuintptr(&edge_buf, (uintptr_t)buf);
	chan_recv(edge_wake, NULL);
}

static void edge_g_main(void *arg)
{
	(void)arg;
	/* The lowest piece of a run has the guard page below: hand over to
	 * a G on another piece, and exit, leaving a free piece behind. */
	if (getg()->stack_lo % (STACK_POOL_RUN_PAGES * PAGE_SIZE) == PAGE_SIZE) {
		go_stack(edge_g_main, NULL, G_STACK_SMALL);
		return;
	}
	struct g *gp = getg();
	uintptr_t lo = gp->stack_lo;
	const size_t pad0 = 16;

	edge_g = gp;
	/* The switch straight to the partner writes less far down than a
	 * park through g0 (mcall, in chan_recv's slower path), which a due
	 * timer or a used-up slice chooses: the highest of a few parks, each
	 * at the start of a slice, is the straight switch's. */
	uintptr_t low = 0;
	for (int i = 0; i < EDGE_MEASURES; i++) {
		gosched();
		chan_send(edge_go, NULL);	/* the partner to runnext */
		edge_park(pad0);
		if (atomic_loaduintptr(&edge_low) > low)
			low = atomic_loaduintptr(&edge_low);
	}
	atomic_storeuintptr(&edge_low, low);
	edge_goid = gp->goid;
	atomic_storeuintptr(&edge_hi, gp->stack_hi);
	atomic_storeuintptr(&edge_lo, lo);
	chan_send(edge_published, NULL);	/* the test's G sets the message */
	chan_recv(edge_proceed, NULL);
	/* The highest lowest-byte under lo + 8 (the canary word's end) that
	 * moving the frame by 16s reaches. */
	size_t more = (low - (lo + 8)) / 16 * 16 + 16;
	gosched();
	chan_send(edge_go, NULL);
	edge_park(pad0 + more);
	test_expect_fatal("goroutine %llu was not named at its park",
			  (unsigned long long)gp->goid);
	for (;;)
		gosched();
}

TEST_FATAL(sched_small_stack_park_past_the_end_is_named_at_that_park,
	   ": stack overflow (small stack 0x")
{
	edge_wake = chan_make(0, 0);
	edge_go = chan_make(0, 0);
	edge_proceed = chan_make(0, 0);
	edge_published = chan_make(0, 0);
	edge_never = chan_make(0, 0);
	go(edge_partner, NULL);		/* a stack of pages: no pool neighbour */
	go_stack(edge_g_main, NULL, G_STACK_SMALL);
	/* No timer of ours meanwhile (a sleep's): a due one would turn the
	 * parks away from the straight switch. */
	chan_recv(edge_published, NULL);
	uintptr_t lo = atomic_loaduintptr(&edge_lo);
	uintptr_t low = atomic_loaduintptr(&edge_low);
	printf("# the park at a safe depth wrote down to 0x%lx, its stack 0x%lx-0x%lx\n",
	       (unsigned long)low, (unsigned long)lo, (unsigned long)edge_hi);
	ASSERT(low >= lo + 8 + 16 && low < edge_hi);
	test_expect_fatal("goroutine %llu: stack overflow (small stack 0x%lx-0x%lx",
			  (unsigned long long)edge_goid, (unsigned long)lo,
			  (unsigned long)edge_hi);
	chan_send(edge_proceed, NULL);
	chan_recv(edge_never, NULL);
}

/* ---- a G-local area written over by the overflow above it -------------- */

#define UNMAPPED_ADDR 0xdead0008ul

/* What a G finds at the top of its pool stack after the G whose stack
 * lies above it overflowed with a big local array (a 3,000-byte one on a
 * 2 KiB stack, filled): its G-local area (kernel/glocal.h), the first
 * thing below that stack, is the array's bytes. Then it faults on its own
 * (here on an unmapped address, as on its line pointer, had it printed).
 * The report must come out whole, naming the fault: the panic path
 * formats and finishes the G's partial line, and must not follow the
 * area's pointers without checking them (it faulted again on them, and
 * died without a word). */
static void written_over_then_fault(void *arg)
{
	(void)arg;
	memset(glocal_of(getg()->stack_hi), 0x5a, sizeof(struct glocal));
	*(volatile uint32_t *)UNMAPPED_ADDR = 1;
}

TEST_FATAL(sched_small_stack_area_written_over_does_not_break_the_report,
	   "at address 0xdead0008")
{
	start_bystanders();
	go_stack(written_over_then_fault, NULL, G_STACK_SMALL);
	for (;;)
		gosched();
}

/* ---- a 1 KiB pool stack overflowed into its sleeping neighbour --------- */

static struct g *volatile below_g;	/* the neighbour, on the piece below */
static chan_t below_wake;

/* Parked while the G above overflows into its stack, then woken: it
 * leaves its core at once (gosched), where its own check finds its
 * canary broken. It did nothing wrong. */
static void sleeping_neighbour(void *arg)
{
	(void)arg;
	below_g = getg();
	chan_recv(below_wake, NULL);
	for (;;)
		gosched();
}

/* A frame far bigger than the stack, written in part (a buffer filled
 * only at its low end, as a read into it would): its lowest bytes land
 * on the neighbour's canary, more on its own, and the neighbour's saved
 * context between them is left alone, so the neighbour runs on. */
static __noinline void overflow_with_holes(uintptr_t lo, uintptr_t nlo)
{
	volatile char buf[2304];

	for (size_t i = 0; i < sizeof buf; i++) {
		uintptr_t a = (uintptr_t)&buf[i];
		if ((a >= nlo && a < nlo + 64) || (a >= lo && a < lo + 64))
			buf[i] = 0x5a;
	}
}

static void overflow_into_neighbour(void *arg)
{
	(void)arg;
	struct g *n = below_g;
	if (n->stack_hi != getg()->stack_lo)
		fatal("test: the sleeping neighbour's stack 0x%lx-0x%lx is not right below "
		      "0x%lx", (unsigned long)n->stack_lo, (unsigned long)n->stack_hi,
		      (unsigned long)getg()->stack_lo);
	uintptr_t buf_lo = getg()->stack_lo - G_STACK_MIN;
	overflow_with_holes(getg()->stack_lo, buf_lo);
	chan_send(below_wake, NULL);	/* buffered: this G does not park */
	/* Spin on without a switch: the neighbour, on another core, leaves
	 * its core first (or this G's tick finds its own canary broken). */
	for (;;)
		arch_cpu_relax();
}

/*
 * Two 1 KiB pool stacks, one right above the other in their run (above
 * a third, its lowest piece): the G
 * on the upper one overflows it, through its own canary down to its
 * neighbour's, which sleeps meanwhile. Woken, the neighbour is the first
 * to leave its core and finds its own canary broken; the report must
 * name the G that overflowed (its stack's canary is broken too, and lies
 * right above), not the neighbour.
 */
TEST_FATAL(sched_small_stack_overflow_into_sleeping_neighbour_names_the_g,
	   "stack overflow (small stack 0x")
{
	below_wake = chan_make(0, 1);
	/* The run's lowest piece, to a G that parks for good: the frame
	 * that reaches the neighbour's canary goes on below it, and lands
	 * there, not on the run's guard page (an interrupt's frame pushed
	 * on it would fault at once, naming the G right away). */
	never = chan_make(0, 0);
	go_stack(parker, (void *)0, G_STACK_MIN);
	while (!bystander[0] || readgstatus(bystander[0]) != _Gwaiting)
		gosched();
	go_stack(sleeping_neighbour, NULL, G_STACK_MIN);
	while (!below_g || readgstatus(below_g) != _Gwaiting)
		gosched();
	uint64_t id = go_stack(overflow_into_neighbour, NULL, G_STACK_MIN);
	test_expect_fatal("goroutine %llu: stack overflow (small stack 0x",
			  (unsigned long long)id);
	for (;;)		/* parked: its P is free to run the neighbour */
		sleep_ns(NSEC_PER_SEC);
}
