/*
 * Time from the CPU's free-running counter (cntvct_el0 / the calibrated
 * TSC). Conversions use a 32.32 fixed-point factor so that nanotime() is
 * one multiply, with no division on the hot path.
 */
#include "kernel/board.h"
#include "kernel/cpu.h"
#include "kernel/kernel.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/time.h"

static uint64_t counter_hz;
static uint64_t boot_counter;
static uint64_t ns_per_tick_32;		/* ns per counter tick, << 32 */
static uint64_t ticks_per_ns_32;	/* counter ticks per ns, << 32 */

void (*sched_tick_hook)(struct trapframe *tf);

void time_init(uint64_t hz)
{
	if (hz == 0)
		panic("time_init: the board reports a 0 Hz counter");
	counter_hz = hz;
	ns_per_tick_32 = (uint64_t)(((__uint128_t)NSEC_PER_SEC << 32) / hz);
	ticks_per_ns_32 = (uint64_t)(((__uint128_t)hz << 32) / NSEC_PER_SEC);
	boot_counter = arch_counter();
}

uint64_t counter_to_ns(uint64_t ticks)
{
	return (uint64_t)(((__uint128_t)ticks * ns_per_tick_32) >> 32);
}

uint64_t ns_to_counter(uint64_t ns)
{
	return (uint64_t)(((__uint128_t)ns * ticks_per_ns_32) >> 32);
}

uint64_t nanotime(void)
{
	return counter_to_ns(arch_counter() - boot_counter);
}

void delay_ns(uint64_t ns)
{
	uint64_t end = arch_counter() + ns_to_counter(ns);

	while (arch_counter() < end)
		arch_cpu_relax();
}

void timer_arm_after(uint64_t ns)
{
	board_timer_arm(arch_counter() + ns_to_counter(ns));
}

/* Every core's timer interrupt: count it, let the scheduler look at its P,
 * and arm the next tick. */
void kernel_timer_interrupt(struct trapframe *tf)
{
	this_cpu()->timer_irqs++;
	timer_arm_after(TICK_NS);
	if (sched_tick_hook)
		sched_tick_hook(tf);
}
