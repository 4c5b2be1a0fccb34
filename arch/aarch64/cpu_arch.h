/*
 * aarch64 CPU operations for kernel/cpu.h. Included only through it.
 *
 * Thread-pointer registers: who owns which, and why.
 *
 *   TPIDR_EL1    this core's struct cpu * (arch_this_cpu). Set once per
 *                core by arch_cpu_init; EL0 cannot see it.
 *   TPIDRRO_EL0  the running G (arch_getg / arch_setg): one mrs / msr.
 *   TPIDR_EL0    the C library's thread pointer. NOT ours to use.
 *
 * picolibc is built with local-exec TLS: errno and its other
 * _Thread_local variables are reached as `mrs xN, tpidr_el0` plus a
 * link-time offset (checked in libc.a: strtol, malloc, rand48 ... all do
 * this). If TPIDR_EL0 held the G pointer, a failing strtoul would write
 * errno into the middle of a struct g. So the G lives in TPIDRRO_EL0,
 * which is read-write at EL1 (read-only at EL0, where gmk never runs) and
 * costs the same single instruction; TPIDR_EL0 points at a TLS block laid
 * out the way picolibc expects (tls.c). Each core gets its own block at
 * boot, so errno is per core. A G that is preempted between a libc call
 * and its errno check could migrate and read another core's errno; code
 * that cares checks return values instead (as Go does).
 */
#ifndef GMK_ARCH_AARCH64_CPU_ARCH_H
#define GMK_ARCH_AARCH64_CPU_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu;

#define DAIF_IRQ	(1ul << 7)	/* PSTATE.I in the DAIF register view */

/* Read / write a system register by name or by encoding, which may be a
 * macro (sysreg_read(mpidr_el1), sysreg_write(ICC_PMR_EL1, v) with
 * ICC_PMR_EL1 defined as S3_0_C4_C6_0): the name is expanded before it
 * is pasted into the instruction. */
#define sysreg_read(reg)	sysreg_read_(reg)
#define sysreg_write(reg, val)	sysreg_write_(reg, val)
#define sysreg_read_(reg)                                                  \
	({                                                                 \
		uint64_t v_;                                               \
		asm volatile("mrs %0, " #reg : "=r"(v_));                  \
		v_;                                                        \
	})
#define sysreg_write_(reg, val)                                            \
	asm volatile("msr " #reg ", %x0" : : "rZ"((uint64_t)(val)) : "memory")

/* Barriers for system registers and devices (the drivers of kernel/irq):
 * isb(), and dsb(option) as in Linux: dsb(sy), dsb(ishst). */
static inline void isb(void) { asm volatile("isb" : : : "memory"); }
#define dsb(opt) asm volatile("dsb " #opt : : : "memory")

static inline struct cpu *arch_this_cpu(void)
{
	struct cpu *c;

	/* volatile: not cached across calls (cheap, and keeps it honest if
	 * a future caller migrates between reads). */
	asm volatile("mrs %0, tpidr_el1" : "=r"(c));
	return c;
}

static inline void arch_set_this_cpu(struct cpu *c)
{
	*(struct cpu **)c = c;		/* c->self, struct cpu's first field */
	asm volatile("msr tpidr_el1, %0" : : "r"(c) : "memory");
}

/* volatile: the value changes under the compiler's feet at every switch,
 * so each call must read it again. */
static inline void *arch_getg(void)
{
	void *g;

	asm volatile("mrs %0, tpidrro_el0" : "=r"(g));
	return g;
}

static inline void arch_setg(void *g)
{
	asm volatile("msr tpidrro_el0, %0" : : "r"(g) : "memory");
}

/* Masks IRQ and FIQ; returns the whole DAIF word for restore. */
static inline unsigned long arch_irq_save(void)
{
	unsigned long daif;

	asm volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(daif) : : "memory");
	return daif;
}

static inline void arch_irq_restore(unsigned long daif)
{
	asm volatile("msr daif, %0" : : "r"(daif) : "memory");
}

static inline void arch_irq_enable(void)
{
	asm volatile("msr daifclr, #3" : : : "memory");
}

static inline void arch_irq_disable(void)
{
	asm volatile("msr daifset, #3" : : : "memory");
}

static inline bool arch_irq_enabled(void)
{
	unsigned long daif;

	asm volatile("mrs %0, daif" : "=r"(daif));
	return (daif & DAIF_IRQ) == 0;
}

/* Write [p, p + len) back to the point of coherency, for a reader whose
 * MMU and caches are still off (a core leaving a spin table). */
static inline void arch_dcache_clean_poc(const void *p, unsigned long len)
{
	uint64_t ctr;

	asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
	unsigned long line = 4ul << ((ctr >> 16) & 0xf);	/* DminLine: log2 words */
	for (unsigned long a = (unsigned long)p & ~(line - 1);
	     a < (unsigned long)p + len; a += line)
		asm volatile("dc cvac, %0" : : "r"(a) : "memory");
	asm volatile("dsb sy" : : : "memory");
}

/* Wake every core waiting in wfe (a spin table's loop). */
static inline void arch_send_event(void)
{
	asm volatile("dsb sy\n\tsev" : : : "memory");
}

static inline void arch_cpu_relax(void)
{
	asm volatile("yield" : : : "memory");
}

/* Stop this core for good (a board's last act): masked, wfi for ever. */
static inline __attribute__((noreturn)) void arch_halt_forever(void)
{
	for (;;)
		asm volatile("msr daifset, #3\n\twfi" : : : "memory");
}

/*
 * wfi wakes on a pending interrupt even while PSTATE.I masks it, so an
 * interrupt that arrives after the caller masked and before wfi is not
 * lost: wfi returns at once. Unmasking then lets it be taken; the isb
 * makes sure it is taken before we mask again.
 */
static inline void arch_wait_for_interrupt(void)
{
	asm volatile("dsb sy\n\twfi\n\tmsr daifclr, #3\n\tisb\n\tmsr daifset, #3"
		     : : : "memory");
}

/*
 * The generic timer's virtual count. The isb keeps the read from being
 * taken early, before instructions that precede it, so a time stamp taken
 * after some work really is later than the work.
 */
static inline uint64_t arch_counter(void)
{
	uint64_t v;

	asm volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* Per-core bring-up (vectors, per-core registers, exception stack), on
 * that core with interrupts masked. Called by kernel/main.c. */
void arch_cpu_init(struct cpu *c);

#endif
