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
	ldp	x2, x3, [x0, #16 * 1]
	ldp	x4, x5, [x0, #16 * 2]
	ldp	x6, x7, [x0, #16 * 3]
	ldp	x8, x9, [x0, #16 * 4]
	ldp	x10, x11, [x0, #16 * 5]
	ldp	x12, x13, [x0, #16 * 6]
	ldp	x14, x15, [x0, #16 * 7]
	ldp	x16, x17, [x0, #16 * 8]
	ldp	x18, x19, [x0, #16 * 9]
	ldp	x20, x21, [x0, #16 * 10]
	ldp	x22, x23, [x0, #16 * 11]
	ldp	x24, x25, [x0, #16 * 12]
	ldp	x26, x27, [x0, #16 * 13]
	ldp	x28, x29, [x0, #16 * 14]
	ldr	x30, [x0, #TF_X30]
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
