/*
 * What the kernel needs from a CPU, whatever the architecture. Each arch
 * supplies these as static inlines in its cpu_arch.h (arch/<arch>/, on
 * the include path: the Makefile's ARCH_DIRS); nothing above arch/ uses
 * inline assembly.
 *
 *   struct cpu *arch_this_cpu(void)      per-core data (TPIDR_EL1 / GS base)
 *   void arch_set_this_cpu(struct cpu *) once per core, at bring-up
 *   void *arch_getg(void)                the running G, one instruction, so it
 *   void arch_setg(void *g)              is safe even where the G can migrate
 *                                        (aarch64: TPIDRRO_EL0; x86-64: %gs:8)
 *   unsigned long arch_irq_save(void)    mask interrupts, return the old state
 *   void arch_irq_restore(unsigned long)
 *   void arch_irq_enable(void), arch_irq_disable(void)
 *   bool arch_irq_enabled(void)
 *   void arch_cpu_relax(void)            spin-wait hint (yield / pause)
 *   void arch_wait_for_interrupt(void)   called with interrupts masked:
 *                                        sleeps until an interrupt is pending,
 *                                        lets it be taken, returns masked
 *   uint64_t arch_counter(void)          free-running cycle counter
 *   void arch_cpu_init(struct cpu *)     per-core bring-up, on that core
 *
 * and, where the arch has them:
 *
 *   arch_halt_forever()                  stop this core for good (the
 *                                        bare-metal arches, for boards)
 *   arch_this_cpu_read32/write32/inc32/dec32_and_test(off)
 *                                        one field of this core's struct
 *                                        cpu in one instruction
 *                                        (kernel/percpu.h, kernel/preempt.h)
 *   arch_async_preempt_enabled()         false where a build switches Gs at
 *                                        safe points only (kernel/preempt.h)
 *
 * This header adds what every arch does alike: arch_frame_address, this
 * function's frame pointer.
 */
#ifndef GMK_KERNEL_CPU_H
#define GMK_KERNEL_CPU_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

#include "cpu_arch.h"

/* Every arch keeps frame pointers (-fno-omit-frame-pointer). */
static inline uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#define CACHE_LINE 64
#define __cacheline_aligned __attribute__((aligned(CACHE_LINE)))

#endif
