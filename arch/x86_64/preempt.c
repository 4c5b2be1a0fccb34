/*
 * Asynchronous preemption, x86-64 (kernel/preempt.h).
 *
 * Device interrupts arrive on IST1, this core's interrupt stack, where
 * isr.S saves the whole frame (FXSAVE area included). To switch the G
 * out, the frame is copied onto the G's own stack below its RSP and red
 * zone (arch/generic/preempt.c), where it stays while the G waits in a run
 * queue; arch_preempt_resume (preempt.S) restores it and returns to the
 * interrupted instruction with iretq, which in 64-bit mode also restores
 * RSP and RFLAGS (IF included) in one step.
 */
#include "x86.h"
#include "kernel/preempt.h"
#include "kernel/trap.h"

bool arch_frame_preemptible(const struct trapframe *tf)
{
	if (tf->cs != SEL_KCODE || !(tf->rflags & RFLAGS_IF))
		return false;
	return !preempt_pc_in_switch_code(tf->rip);
}
