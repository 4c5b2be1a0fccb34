/*
 * Asynchronous preemption, aarch64 (kernel/preempt.h).
 *
 * Gs run at EL1t on SP_EL0; an interrupt is taken to EL1h and its frame
 * saved on this core's SP_EL1 stack. To switch the G out, the frame is
 * copied onto the G's own stack just below its SP (arch/generic/preempt.c),
 * where it stays while the G waits in a run queue. arch_preempt_resume
 * (preempt.S) restores it with an eret.
 */
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
