/*
 * The preempt-off count (Go's m.locks): while it is raised, the code
 * running on this core is not switched out by the preemption tick. The
 * tick then only marks the G (g->preempt, cpu->resched), and the switch
 * happens at the next safe point: when the count drops back to zero.
 *
 * Why the count lives in struct cpu (that is, per M: one M per core):
 * a G that holds a spinlock can park, and the lock is then released on
 * g0 by gopark's unlock function (park_m). That is the same core, so a
 * per-M count balances, where a per-G one would not. The catch is that
 * "find my core, then increment its count" is two steps, and a G
 * preempted between them would resume elsewhere and bump the old core's
 * count. So preempt_disable makes those two steps one that no tick can
 * split (one instruction on x86-64, masked interrupts on aarch64: see
 * preempt_count_inc). Once the count is raised the G cannot migrate, so
 * preempt_enable needs no mask.
 *
 * Interrupt handlers may take spinlocks too: they raise and drop the
 * interrupted code's count in pairs, and never act on the safe point
 * (interrupts are masked there).
 */
#ifndef GMK_KERNEL_PREEMPT_H
#define GMK_KERNEL_PREEMPT_H

#include <stddef.h>

#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"

/*
 * Raising the count. Where the arch can increment a field of this core's
 * struct cpu in one instruction (arch_this_cpu_inc32: x86-64's
 * `incl %gs:off`), an interrupt lands before or after it, never between
 * "find my core" and "increment", so no mask is needed (the masked version
 * costs pushf/pop/cli/sti on every lock). Elsewhere (aarch64: the struct
 * cpu address comes from TPIDR_EL1 in one instruction, but the increment
 * is a separate load, add and store) a preemption between the two would
 * bump the old core's count from the new one: the mask stays.
 */
#ifdef arch_this_cpu_inc32
static inline void preempt_count_inc(void)
{
	arch_this_cpu_inc32(offsetof(struct cpu, preempt_off));
}

/* Drop the count; true if it reached zero. */
static inline bool preempt_count_dec(void)
{
	return arch_this_cpu_dec32_and_test(offsetof(struct cpu, preempt_off));
}
#else
static inline void preempt_count_inc(void)
{
	unsigned long flags = arch_irq_save();
	this_cpu()->preempt_off++;
	arch_irq_restore(flags);
}

/* Once the count is raised the G cannot migrate: no mask is needed. */
static inline bool preempt_count_dec(void)
{
	return --this_cpu()->preempt_off == 0;
}
#endif

static inline void preempt_disable(void)
{
	preempt_count_inc();
	/* The count is raised before anything the caller does next. */
	compiler_barrier();
}

static inline void preempt_enable(void)
{
	compiler_barrier();
	if (preempt_count_dec() && THIS_CPU_READ32(resched) && arch_irq_enabled())
		sched_preempt_safepoint();
}

/* Drop the count without acting on a pending request (the scheduler,
 * which is about to switch anyway). */
static inline void preempt_enable_no_resched(void)
{
	compiler_barrier();
	(void)preempt_count_dec();
}

static inline uint32_t preempt_count(void)
{
	return this_cpu()->preempt_off;
}

/*
 * Asynchronous preemption, the arch half (arch/<arch>/preempt.c and
 * preempt.S; the frame copy is arch/generic/preempt.c).
 * The scheduler's tick, in the timer interrupt, decides; the arch moves
 * the interrupted context off the core's interrupt stack:
 *
 *   arch_frame_preemptible(tf)     the interrupted context is thread code
 *                                  (not a nested handler, interrupts were
 *                                  on) and not inside the switch code
 *                                  (gogo/mcall or the resume stub below)
 *   arch_preempt_push_frame(tf, limit)
 *                                  copy the whole frame (FP/SIMD included)
 *                                  onto the interrupted stack, below its
 *                                  SP and not below limit; returns the
 *                                  copy's address, or 0 if it does not fit
 *   arch_preempt_resume            the pc of a gobuf whose sp is such a
 *                                  copy: restores every register from it
 *                                  and returns to the interrupted
 *                                  instruction (gogo jumps there)
 *   arch_irq_leave_to(sp, g, fn, arg)
 *                                  abandon the interrupt (its frame is
 *                                  dead: copied, and the interrupt
 *                                  acknowledged), reset the interrupt
 *                                  stack, run fn(arg) on stack sp as G g
 *                                  with interrupts on; fn never returns
 */
struct trapframe;
bool arch_frame_preemptible(const struct trapframe *tf);
/* Whether the arch switches Gs out at interrupt exit at all (an arch may
 * leave it to the safe points in some builds); a test that needs it
 * skips otherwise. */
#ifndef arch_async_preempt_enabled
#define arch_async_preempt_enabled() true
#endif
/* How soon the tick looks again at a G it found where it cannot be
 * switched out (tf: where the interrupt came), if the G has not switched
 * itself at a safe point meanwhile. A millisecond: a G normally reaches
 * one long before. An arch whose Gs run code that is neither preemptible
 * nor has safe points, and may run it in a loop (the hosted board: the C
 * library and the vDSO), looks sooner there. */
#ifndef arch_preempt_retry_ns
#define arch_preempt_retry_ns(tf) ((void)(tf), 1000000ull)
#endif
uintptr_t arch_preempt_push_frame(const struct trapframe *tf, uintptr_t limit);
void arch_preempt_resume(void);
/* Leave the interrupt for fn(arg) on sp as g, which is its core's g0
 * (the C library's state there is the core's: kernel/glocal.h). */
__attribute__((noreturn)) void arch_irq_leave_to(uintptr_t sp, void *g,
						 void (*fn)(void *), void *arg);
/* Called by arch_irq_leave_to when fn returns: panics. */
void arch_irq_leave_returned(void);

/* Bounds of the code that must not be preempted (switch.S, preempt.S). */
extern char switch_text_start[], switch_text_end[];
extern char preempt_text_start[], preempt_text_end[];

static inline bool preempt_pc_in_switch_code(uintptr_t pc)
{
	return (pc >= (uintptr_t)switch_text_start && pc < (uintptr_t)switch_text_end) ||
	       (pc >= (uintptr_t)preempt_text_start && pc < (uintptr_t)preempt_text_end);
}

#endif
