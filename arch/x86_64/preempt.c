/*
 * Asynchronous preemption, x86-64 (kernel/preempt.h).
 *
 * Device interrupts arrive on IST1, this core's interrupt stack, where
 * isr.S saves the whole frame (FXSAVE area included). To switch the G
 * out, the frame is copied onto the G's own stack below its RSP, where it
 * stays while the G waits in a run queue; arch_preempt_resume (preempt.S)
 * restores it and returns to the interrupted instruction with iretq, which
 * in 64-bit mode also restores RSP and RFLAGS (IF included) in one step.
 */
#include <string.h>

#include "trap_arch.h"
#include "arch/x86_64/x86.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/trap.h"

#define RFLAGS_IF_BIT	(1ul << 9)
/* gmk is built with -mno-red-zone; skip the SysV red zone anyway, in case
 * some assembly below the C ABI uses it. */
#define RED_ZONE	128

bool arch_frame_preemptible(const struct trapframe *tf)
{
	if (tf->cs != SEL_KCODE || !(tf->rflags & RFLAGS_IF_BIT))
		return false;
	return !preempt_pc_in_switch_code(tf->rip);
}

uintptr_t arch_preempt_push_frame(const struct trapframe *tf, uintptr_t limit)
{
	/* 16-aligned: fxrstor wants its area (the frame's start) aligned. */
	uintptr_t sp = (tf->rsp - RED_ZONE - sizeof *tf) & ~(uintptr_t)15;
	if (sp < limit || sp > tf->rsp)
		return 0;
	memcpy((void *)sp, tf, sizeof *tf);
	return sp;
}

void arch_irq_leave_returned(void);
void arch_irq_leave_returned(void)
{
	panic("arch_irq_leave_to: the function returned");
}
