/*
 * Scheduler errors that must stop the machine with a clear message. Each
 * runs alone in its own boot (TEST_FATAL).
 */
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

/* The count in the message is English: one goroutine, not "1
 * goroutines". */
TEST_FATAL(sched_deadlock_of_one_goroutine_counts_it_in_the_singular,
	   "all goroutines are asleep - deadlock! (1 goroutine waiting)")
{
	gopark(NULL, NULL, waitReasonTest);	/* the only G */
}

static void overflow(void *arg)
{
	(void)arg;
	stack_eat(NULL, 0);
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

/* A g0 function that returns: mcall reaches it by a jump, with a return
 * address that reports the misuse (arch/<arch>/switch.S). */
static void g0_fn_returns(struct g *gp)
{
	(void)gp;
}

TEST_FATAL(sched_mcall_function_that_returns_panics, "mcall: the function returned")
{
	mcall(g0_fn_returns);
}
