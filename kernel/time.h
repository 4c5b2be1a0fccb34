#ifndef GMK_KERNEL_TIME_H
#define GMK_KERNEL_TIME_H

#include <stdint.h>

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC  1000000000ull

/* Kernel tick: each core's timer interrupt rate while it has work. */
#define TICK_NS (1 * NSEC_PER_MSEC)

void time_init(uint64_t counter_hz);
uint64_t nanotime(void);			/* monotonic, since boot */
uint64_t ns_to_counter(uint64_t ns);
uint64_t counter_to_ns(uint64_t ticks);
void delay_ns(uint64_t ns);			/* busy wait */

/* Program this core's next timer interrupt `ns` from now. */
void timer_arm_after(uint64_t ns);

#endif
