/*
 * Voluntary context switches between Gs (see kernel/gobuf.h).
 * Only callee-saved state moves: a switch happens at a call, where the
 * SysV ABI lets the callee clobber everything else except the MXCSR
 * control bits and the x87 control word. The G pointer is %gs:8 (struct
 * cpu's curg) and changes together with the stack.
 */
#include "kernel/gobuf.h"

/* Where the running G lives: struct cpu's curg through GS in the kernel.
 * The hosted board assembles this file as it is with its own definition
 * (arch/host/switch.S: a %fs-relative thread-local variable). */
#ifndef PERCPU_CURG
#define PERCPU_CURG %gs:8
#endif

/* Save the caller's context in the gobuf at \buf; the caller's sp is just
 * above our return address, and its pc is that return address. */
.macro SAVE_CALLEE buf
	movq	(%rsp), %rax
	movq	%rax, GOBUF_PC(\buf)
	leaq	8(%rsp), %rax
	movq	%rax, GOBUF_SP(\buf)
	movq	%rbx, GOBUF_RBX(\buf)
	movq	%rbp, GOBUF_RBP(\buf)
	movq	%r12, GOBUF_R12(\buf)
	movq	%r13, GOBUF_R13(\buf)
	movq	%r14, GOBUF_R14(\buf)
	movq	%r15, GOBUF_R15(\buf)
	stmxcsr	GOBUF_MXCSR(\buf)
	fnstcw	GOBUF_FPUCW(\buf)
.endm

	.text
/* Everything from here to switch_text_end is switch code: the preemption
 * tick leaves a G alone while it is in here (kernel/preempt.h). */
	.global switch_text_start
switch_text_start:

/* int gosave(struct gobuf *buf): 0 now, 1 when gogo resumes buf. */
	.global gosave
	.type gosave, @function
gosave:
	SAVE_CALLEE %rdi
	movq	PERCPU_CURG, %rax
	movq	%rax, GOBUF_G(%rdi)
	xorl	%eax, %eax
	ret
	.size gosave, . - gosave

/* void gogo(struct gobuf *buf): resume buf; does not return. */
	.global gogo
	.type gogo, @function
gogo:
	movq	GOBUF_G(%rdi), %rax
	movq	%rax, PERCPU_CURG
	movq	GOBUF_RBX(%rdi), %rbx
	movq	GOBUF_RBP(%rdi), %rbp
	movq	GOBUF_R12(%rdi), %r12
	movq	GOBUF_R13(%rdi), %r13
	movq	GOBUF_R14(%rdi), %r14
	movq	GOBUF_R15(%rdi), %r15
	ldmxcsr	GOBUF_MXCSR(%rdi)
	fldcw	GOBUF_FPUCW(%rdi)
	movq	GOBUF_SP(%rdi), %rsp
	movl	$1, %eax		/* gosave's second return */
	jmp	*GOBUF_PC(%rdi)
	.size gogo, . - gogo

/*
 * void mcall(void (*fn)(struct g *)): save the running G's context in its
 * gobuf (the first field of struct g), switch to this M's g0 stack and
 * call fn(g). fn schedules another G and never returns; when this G is
 * resumed, mcall returns to its caller.
 */
	.global mcall
	.type mcall, @function
mcall:
	movq	PERCPU_CURG, %rsi		/* gp */
	SAVE_CALLEE %rsi
	movq	%rsi, GOBUF_G(%rsi)
	movq	G_M(%rsi), %rax
	movq	M_G0(%rax), %rax
	cmpq	%rax, %rsi
	je	1f
	movq	%rax, PERCPU_CURG
	movq	GOBUF_SP(%rax), %rsp	/* g0's stack top, 16-aligned */
	xorl	%ebp, %ebp		/* backtraces end here */
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	call	mcall_returned		/* panics */
1:	call	mcall_on_g0		/* panics */
	.size mcall, . - mcall

	.global switch_text_end
switch_text_end:
