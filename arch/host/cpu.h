/*
 * Hosted CPU operations: the kernel/cpu.h inlines for a Linux process in
 * which each "core" is a thread (tests/host and the hosted board). The
 * per-core struct cpu is thread-local; "interrupts" are a per-thread flag
 * since a thread cannot be interrupted by the kernel's devices.
 * Only included through kernel/cpu.h.
 */
#ifndef GMK_ARCH_HOST_CPU_H
#define GMK_ARCH_HOST_CPU_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct cpu;

/* Defined by the hosted runtime (tests/host/host.c): this thread's core,
 * its running G and its interrupt mask. */
extern __thread struct cpu *host_this_cpu;
extern __thread void *host_curg;
extern __thread bool host_irq_masked;

static inline struct cpu *arch_this_cpu(void) { return host_this_cpu; }
static inline void arch_set_this_cpu(struct cpu *c) { host_this_cpu = c; }
static inline void *arch_getg(void) { return host_curg; }
static inline void arch_setg(void *g) { host_curg = g; }

static inline unsigned long arch_irq_save(void)
{
	unsigned long old = host_irq_masked;
	host_irq_masked = true;
	return old;
}
static inline void arch_irq_restore(unsigned long flags) { host_irq_masked = flags; }
static inline void arch_irq_enable(void) { host_irq_masked = false; }
static inline void arch_irq_disable(void) { host_irq_masked = true; }
static inline bool arch_irq_enabled(void) { return !host_irq_masked; }

static inline void arch_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* Nothing interrupts a thread: give the host core away instead. */
static inline void arch_wait_for_interrupt(void) { sched_yield(); }

/* Nanoseconds of CLOCK_MONOTONIC: a counter of 1 GHz. */
static inline uint64_t arch_counter(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#endif
