/*
 * Asynchronous preemption, aarch64: leaving an interrupt for another
 * stack, and resuming a preempted G from the frame on its stack
 * (kernel/preempt.h, arch/aarch64/preempt.c).
 */
#include "trap_arch.h"
#include "kernel/layout.h"

	.text
	.global preempt_text_start
preempt_text_start:

/*
 * arch_preempt_resume: gogo lands here with SP_EL0 pointing at a struct
 * trapframe. Every register comes back from it, and eret returns to the
 * interrupted instruction with the interrupted PSTATE (interrupt mask,
 * flags, EL1t). Interrupts stay masked from the start: an exception taken
 * in between would overwrite ELR_EL1/SPSR_EL1. SP_EL0 can be written by
 * msr only from SP_EL1, and the core's SP_EL1 stack is free here (no
 * handler runs on it while a G runs), so the last steps use SPSel=1; eret
 * switches back to SP_EL0 because the saved mode is EL1t.
 */
	.global arch_preempt_resume
	.type arch_preempt_resume, %function
arch_preempt_resume:
	msr	daifset, #0xf
	mov	x0, sp
	tf_restore_fp_elr x0
	tf_restore_x2_x30 x0
	msr	spsel, #1
	ldr	x1, [x0, #TF_SP]
	msr	sp_el0, x1
	ldp	x0, x1, [x0, #TF_X0]
	eret
	.size arch_preempt_resume, . - arch_preempt_resume

/*
 * void arch_irq_leave_to(uintptr_t sp, void *g, void (*fn)(void *), void *arg)
 * Called from an IRQ handler (EL1h, SP_EL1, interrupts masked) whose frame
 * has been copied away. SP_EL1 goes back to the top of this core's
 * exception stack, so the next exception starts clean; then fn(arg) runs
 * at EL1t on sp as G g, with interrupts on.
 */
	.global arch_irq_leave_to
	.type arch_irq_leave_to, %function
arch_irq_leave_to:
	msr	daifset, #3
	mrs	x4, tpidr_el1
	ldr	x5, [x4, #CPU_IRQ_STACK_TOP]
	mov	sp, x5
	msr	spsel, #0
	mov	sp, x0
	msr	tpidrro_el0, x1
	ldr	x5, [x4, #CPU_LIBC_TLS]	/* g's C library state: its core's */
	msr	tpidr_el0, x5
	mov	x29, #0			/* backtraces end here */
	mov	x30, #0
	msr	fpcr, xzr		/* the G's FP modes stay with its frame */
	mov	x0, x3
	msr	daifclr, #3
	blr	x2
	bl	arch_irq_leave_returned	/* panics */
	.size arch_irq_leave_to, . - arch_irq_leave_to

	.global preempt_text_end
preempt_text_end:
