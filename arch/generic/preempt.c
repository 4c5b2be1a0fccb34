/*
 * The parts of asynchronous preemption (kernel/preempt.h) that every arch
 * does alike, on its trap frame's accessors (kernel/trap.h).
 */
#include <string.h>

#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/trap.h"

/*
 * The copy goes below the interrupted stack pointer and its red zone,
 * 16-aligned (x86-64's fxrstor wants the frame's start, its FXSAVE area,
 * aligned; AAPCS64 wants sp so). A frame that would cross limit, or an sp
 * so low that the subtraction wrapped, does not fit.
 */
uintptr_t arch_preempt_push_frame(const struct trapframe *tf, uintptr_t limit)
{
	uintptr_t top = arch_frame_sp(tf);
	uintptr_t sp = (top - ARCH_STACK_RED_ZONE - sizeof *tf) & ~(uintptr_t)15;

	if (sp < limit || sp > top)
		return 0;
	memcpy((void *)sp, tf, sizeof *tf);
	return sp;
}

void arch_irq_leave_returned(void)
{
	panic("arch_irq_leave_to: the function returned");
}
