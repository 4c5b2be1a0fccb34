/*
 * Interrupt and exception entry. Every one of the 256 vectors has a stub
 * that makes the stack look the same (an error code, 0 where the CPU pushes
 * none, then the vector number) and jumps to isr_common, which saves the
 * rest of struct trapframe (trapframe.h), calls trap_dispatch(tf) and
 * returns with iretq through whatever the frame holds then (the kernel may
 * have redirected it).
 *
 * The kernel runs only in ring 0 and GS never changes, so there is no
 * swapgs. Which stack the frame lands on is chosen by the IDT (idt.c):
 * IST1 for device interrupts, IST2-4 for #DF/NMI/#MC, the current stack for
 * the other exceptions so that they can nest inside an interrupt handler.
 */
#include "trap_arch.h"

	.altmacro

/* Vectors for which the CPU pushes an error code: #DF, #TS, #NP, #SS, #GP,
 * #PF, #AC, #CP, #VC, #SX. */
.macro isr_stub vec
	.balign 16
isr_stub_\vec:
	.if (\vec == 8) || ((\vec >= 10) && (\vec <= 14)) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30)
	.else
	pushq	$0
	.endif
	pushq	$\vec
	jmp	isr_common
.endm

.macro isr_addr vec
	.quad	isr_stub_\vec
.endm

	.section .text.isr, "ax"
	.code64

	.set	vec, 0
	.rept	256
	isr_stub %vec
	.set	vec, vec + 1
	.endr

isr_common:
	cld			/* the C ABI wants DF clear */
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	/* CR2 only means something for #PF and #DF; reading it costs a VM
	 * exit on some hypervisors, so skip it for everything else. */
	xorl	%eax, %eax
	movq	15*8(%rsp), %rbx		/* the vector */
	cmpq	$14, %rbx
	je	1f
	cmpq	$8, %rbx
	jne	2f
1:	movq	%cr2, %rax
2:	pushq	%rax				/* cr2 */
	subq	$(TF_CR2 - TF_FX), %rsp		/* pad + FXSAVE area */
	fxsave64 (%rsp)
	movq	%rsp, %rdi			/* 16-byte aligned: see trapframe.h */
	call	trap_dispatch
/* trap_return: %rsp at a struct trapframe, interrupts off. Also where a
 * preempted G resumes (arch_preempt_resume in preempt.S). */
	.globl	trap_return
trap_return:
	TRAPFRAME_RESTORE_IRETQ

/* Stub addresses, indexed by vector, for idt.c. */
	.section .rodata.isr, "a"
	.balign 8
	.globl	isr_stub_table
isr_stub_table:
	.set	vec, 0
	.rept	256
	isr_addr %vec
	.set	vec, vec + 1
	.endr
