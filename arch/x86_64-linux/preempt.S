/*
 * Asynchronous preemption on the hosted board (kernel/preempt.h,
 * cpu.c). The tick signal's handler builds a struct trapframe
 * (arch/x86_64/trap_arch.h) from the signal context; to switch the G out
 * it copies the frame onto the G's stack, as the kernel does, and rewrites
 * the signal context so that the return from the handler lands in
 * host_irq_leave_tramp on g0's stack. The G resumes later through
 * arch_preempt_resume, which restores every register from the copy with
 * the kernel's own sequence (iretq works between user-mode contexts).
 */
#include "trap_arch.h"
#include "x86.h"

	.text
	.global preempt_text_start
preempt_text_start:

/* gogo jumps here with %rsp at the frame copy, interrupts on (execute
 * does not mask them). A signal that lands in here is harmless: its
 * handler sees a pc in this text, does not preempt, and returns to the
 * very instruction it interrupted with every register as it was, so the
 * kernel's cli is not needed. */
	.global arch_preempt_resume
	.type arch_preempt_resume, @function
arch_preempt_resume:
	TRAPFRAME_RESTORE_IRETQ
	.size arch_preempt_resume, . - arch_preempt_resume

/*
 * The signal handler returns here after arch_irq_leave_to rewrote its
 * context: %rsp is g0's stack top (16-aligned), %rdi = fn, %rsi = arg,
 * the G pointer already g0. g0 gets the default FP modes; fn never returns.
 */
	.global host_irq_leave_tramp
	.type host_irq_leave_tramp, @function
host_irq_leave_tramp:
	xorl	%ebp, %ebp			/* backtraces end here */
	ldmxcsr	host_default_mxcsr(%rip)
	fldcw	host_default_fpucw(%rip)
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	call	arch_irq_leave_returned		/* panics */
	.size host_irq_leave_tramp, . - host_irq_leave_tramp

	.global preempt_text_end
preempt_text_end:

	.section .rodata
	.balign 4
host_default_mxcsr:	.long	X86_MXCSR_DEFAULT
host_default_fpucw:	.word	X86_FPUCW_DEFAULT
	.section .note.GNU-stack, "", @progbits
