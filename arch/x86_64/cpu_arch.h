/*
 * x86-64 CPU operations for kernel/cpu.h. Included only through it.
 *
 * Per-core data: the GS base register (MSR 0xC0000101) holds the core's
 * struct cpu *. struct cpu begins with `self` (+0) and `curg` (+8), so
 * this_cpu() is one load from %gs:0 and getg() one load from %gs:8. The
 * kernel runs in ring 0 only and never executes swapgs, so GS is fixed for
 * the life of the core.
 */
#ifndef GMK_ARCH_X86_64_CPU_ARCH_H
#define GMK_ARCH_X86_64_CPU_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/x86.h"

struct cpu;

static inline struct cpu *arch_this_cpu(void)
{
	struct cpu *c;

	asm volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* Points GS at c; c->self must be c (struct cpu's first field). */
static inline void arch_set_this_cpu(struct cpu *c)
{
	*(struct cpu **)c = c;
	wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)c);
}

/* volatile: the value changes under the compiler's feet at every switch,
 * so each call must read it again. */
static inline void *arch_getg(void)
{
	void *g;

	asm volatile("movq %%gs:8, %0" : "=r"(g));
	return g;
}

static inline void arch_setg(void *g)
{
	asm volatile("movq %0, %%gs:8" : : "r"(g) : "memory");
}

/*
 * One 32-bit field of this core's struct cpu, at byte offset off: a
 * single %gs-relative instruction, with no load of the struct's address
 * first (kernel/percpu.h's THIS_CPU_READ32). The increment and the
 * decrement are one instruction each, which no interrupt can split, so a
 * G preempted around them never counts on the wrong core (kernel/preempt.h).
 * Macros: off must be a constant ("i").
 */
#define arch_this_cpu_read32(off) ({					\
	uint32_t v_;							\
	asm volatile("movl %%gs:%c1, %0" : "=r"(v_) : "i"(off) : "memory"); \
	v_; })
#define arch_this_cpu_write32(off, val)					\
	asm volatile("movl %1, %%gs:%c0"				\
		     : : "i"(off), "ri"((uint32_t)(val)) : "memory")
#define arch_this_cpu_inc32(off)					\
	asm volatile("incl %%gs:%c0" : : "i"(off) : "memory", "cc")
/* true when the field reached zero */
#define arch_this_cpu_dec32_and_test(off) ({				\
	bool z_;							\
	asm volatile("decl %%gs:%c1" : "=@ccz"(z_) : "i"(off) : "memory"); \
	z_; })

static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;

	asm volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
	if (flags & RFLAGS_IF)
		asm volatile("sti" : : : "memory");
}

static inline void arch_irq_enable(void)
{
	asm volatile("sti" : : : "memory");
}

static inline void arch_irq_disable(void)
{
	asm volatile("cli" : : : "memory");
}

static inline bool arch_irq_enabled(void)
{
	unsigned long flags;

	asm volatile("pushfq; popq %0" : "=r"(flags));
	return (flags & RFLAGS_IF) != 0;
}

static inline void arch_cpu_relax(void)
{
	asm volatile("pause" : : : "memory");
}

/* Stop this core for good (a board's last act): cli; hlt for ever. */
static inline __attribute__((noreturn)) void arch_halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt" : : : "memory");
}

/*
 * sti takes effect only after the next instruction, so no interrupt can
 * slip in between sti and hlt and be missed: either it arrives before the
 * caller masked interrupts (and is pending now, ending hlt at once) or it
 * wakes hlt. The handler runs, and cli masks again before returning.
 */
static inline void arch_wait_for_interrupt(void)
{
	asm volatile("sti; hlt; cli" : : : "memory");
}

/* The TSC, ordered after earlier work (x86.h). */
static inline uint64_t arch_counter(void)
{
	return x86_rdtsc_ordered();
}

/*
 * Per core, on that core: GDT and TSS (IST stacks), IDT, GS base -> c,
 * SSE on, write protection and NX on. kernel/main.c calls it first thing in
 * cpu_start and on the boot core before board_init.
 */
void arch_cpu_init(struct cpu *c);

#endif
