/*
 * Asynchronous preemption, aarch64 (kernel/preempt.h).
 *
 * Gs run at EL1t on SP_EL0; an interrupt is taken to EL1h and its frame
 * saved on this core's SP_EL1 stack. To switch the G out, the frame is
 * copied onto the G's own stack just below its SP (AAPCS64 has no red
 * zone: nothing below SP is live), where it stays while the G waits in a
 * run queue. arch_preempt_resume (preempt.S) restores it with an eret.
 */
#include <string.h>

#include "trap_arch.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/trap.h"

#define SPSR_MODE_MASK	0xfu
#define SPSR_MODE_EL1T	0x4u		/* EL1 with SP_EL0: thread code */
#define SPSR_I		(1u << 7)	/* IRQs were masked */

bool arch_frame_preemptible(const struct trapframe *tf)
{
	if ((tf->spsr & SPSR_MODE_MASK) != SPSR_MODE_EL1T)
		return false;		/* a nested exception, on SP_EL1 */
	if (tf->spsr & SPSR_I)
		return false;
	return !preempt_pc_in_switch_code(tf->elr);
}

uintptr_t arch_preempt_push_frame(const struct trapframe *tf, uintptr_t limit)
{
	uintptr_t sp = (tf->sp - sizeof *tf) & ~(uintptr_t)15;
	if (sp < limit || sp > tf->sp)
		return 0;
	memcpy((void *)sp, tf, sizeof *tf);
	return sp;
}

void arch_irq_leave_returned(void);
void arch_irq_leave_returned(void)
{
	panic("arch_irq_leave_to: the function returned");
}
