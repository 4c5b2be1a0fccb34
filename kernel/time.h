#ifndef GMK_KERNEL_TIME_H
#define GMK_KERNEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/compiler.h"
#include "kernel/cpu.h"

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC  1000000000ull

/*
 * The end of time (Go's maxWhen): a deadline at or past it never comes. A
 * duration whose deadline would lie past it means "never" (time_when), and
 * every API that takes a deadline treats one past it as this one. It is
 * 2^63 - 1 ns (292 years of uptime), not UINT64_MAX, so that a deadline
 * plus a slice or a grace period (tick_deadline, the idle time-keeper's
 * TIMER_OVERDUE_NS) cannot wrap round to the past.
 */
#define TIME_NEVER ((uint64_t)INT64_MAX)

/* Kernel tick before the scheduler runs (it then sets deadlines itself). */
#define TICK_NS (1 * NSEC_PER_MSEC)

void time_init(uint64_t counter_hz);
uint64_t ns_to_counter(uint64_t ns);

/* Set once by time_init (kernel/time.c). */
extern uint64_t time_boot_counter;
extern uint64_t time_ns_per_tick_32;	/* ns per counter tick, << 32 */

static __always_inline uint64_t counter_to_ns(uint64_t ticks)
{
	return (uint64_t)(((__uint128_t)ticks * time_ns_per_tick_32) >> 32);
}

/* Monotonic, since boot. Inline: the tick and the timers read it often. */
static __always_inline uint64_t nanotime(void)
{
	return counter_to_ns(arch_counter() - time_boot_counter);
}

/* The deadline ns from now (Go's when(d)): TIME_NEVER if it would be at or
 * past the end of time, however large ns is. */
static inline uint64_t time_when(uint64_t ns)
{
	uint64_t now = nanotime();
	return ns < TIME_NEVER - now ? now + ns : TIME_NEVER;
}

void delay_ns(uint64_t ns);			/* busy wait */

/* Halt this core until an interrupt (interrupts masked by the caller),
 * accounted in its struct cpu's idle_ns; cpu_idle_ns includes a halt in
 * progress. */
struct cpu;
void cpu_halt(void);

/* The latest of core c's last few timer interrupts (kernel/percpu.h's
 * tick_hist) that was armed for a deadline in [armed_lo, armed_hi] and
 * came in [at_lo, at_hi]: when it came and what it was armed for. False
 * when none is remembered. Any core may ask about any core. */
bool timer_tick_find(const struct cpu *c, uint64_t armed_lo, uint64_t armed_hi,
		     uint64_t at_lo, uint64_t at_hi, uint64_t *at, uint64_t *armed);
uint64_t cpu_idle_ns(struct cpu *c);

/* Program this core's next timer interrupt `ns` from now. */
void timer_arm_after(uint64_t ns);
/* This core's next timer interrupt at nanotime() == deadline_ns; 0 = none
 * (tickless). Preemption off or interrupts masked. */
void timer_set_deadline(uint64_t deadline_ns);
/* Tests: a fixed periodic rate on this core (0 = back to deadlines). */
void timer_force_period(uint64_t period_ns);

#endif
