/*
 * Scheduler errors that must stop the machine with a clear message. Each
 * runs alone in its own boot (TEST_FATAL).
 */
#include "kernel/compiler.h"
#include "kernel/test.h"
#include "tests/sched_testutil.h"

static void park_forever(void *arg)
{
	(void)arg;
	gopark(NULL, NULL, waitReasonTest);
}

TEST_FATAL(sched_deadlock_is_detected, "all goroutines are asleep - deadlock!")
{
	go(park_forever, NULL);
	go(park_forever, NULL);
	gopark(NULL, NULL, waitReasonTest);	/* and nobody is left */
}

/* Recursion that no compiler can turn into a loop: each frame keeps a
 * buffer that the next call reads. The depth limit is never reached
 * (the stack is far smaller); it only tells the compiler it ends. */
static volatile uint64_t depth_limit = UINT64_MAX;

__noinline static uint64_t recurse(volatile uint8_t *prev, uint64_t n)
{
	volatile uint8_t buf[512];
	buf[0] = prev ? prev[0] + 1 : 0;
	if (n >= depth_limit)
		return buf[0];
	return recurse(buf, n + 1) + buf[0];
}

static void overflow(void *arg)
{
	(void)arg;
	recurse(NULL, 0);
}

TEST_FATAL(sched_stack_overflow_names_the_goroutine, ": stack overflow (stack 0x")
{
	go_stack(overflow, NULL, 16 * 1024);
	for (;;)
		gosched();
}

TEST_FATAL(sched_goready_of_a_running_g_panics, "goready: goroutine")
{
	goready(getg());
}

TEST_FATAL(sched_zero_stack_size_panics, "stack size 0 is not positive")
{
	go_stack(park_forever, NULL, 0);
}
