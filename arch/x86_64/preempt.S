/*
 * Asynchronous preemption, x86-64: leaving an interrupt for another stack,
 * and resuming a preempted G from the frame on its stack
 * (kernel/preempt.h, arch/x86_64/preempt.c).
 */
#include "trap_arch.h"
#include "x86.h"

	.text
	.code64
	.global preempt_text_start
preempt_text_start:

/*
 * arch_preempt_resume: gogo jumps here with %rsp at a struct trapframe.
 * isr.S's own exit (trap_return): every register back, then iretq pops
 * RIP, CS, RFLAGS, RSP and SS. Interrupts are off until iretq restores
 * RFLAGS, so no interrupt lands on a half-restored context.
 */
	.global arch_preempt_resume
	.type arch_preempt_resume, @function
arch_preempt_resume:
	cli
	jmp	trap_return
	.size arch_preempt_resume, . - arch_preempt_resume

/*
 * void arch_irq_leave_to(uintptr_t sp, void *g, void (*fn)(void *), void *arg)
 * From an interrupt handler on IST1 whose frame has been copied away (and
 * the APIC acknowledged). The IST pointer in the TSS is fixed, so the next
 * interrupt starts at the top of IST1 again: nothing to reset. fn(arg)
 * runs on sp as G g, with interrupts on.
 */
	.global arch_irq_leave_to
	.type arch_irq_leave_to, @function
arch_irq_leave_to:
	cli
	movq	%rdi, %rsp
	movq	%rsi, %gs:8
	xorl	%ebp, %ebp			/* backtraces end here */
	/* The G's FP modes stay with its frame: g0 gets the defaults
	 * (x86.h, gobuf_arch.h says why). */
	ldmxcsr	default_mxcsr(%rip)
	fldcw	default_fpucw(%rip)
	movq	%rcx, %rdi
	sti
	call	*%rdx
	call	arch_irq_leave_returned		/* panics */
	.size arch_irq_leave_to, . - arch_irq_leave_to

	.global preempt_text_end
preempt_text_end:

	.section .rodata
	.balign 4
default_mxcsr:	.long	X86_MXCSR_DEFAULT
default_fpucw:	.word	X86_FPUCW_DEFAULT
