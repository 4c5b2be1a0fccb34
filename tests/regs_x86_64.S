/*
 * The register-state test's assembly, x86-64 (tests/preempt_regs.c).
 *
 * regs_fill_spin_dump(seed, iters, out) puts a distinct value derived from
 * seed in every general register and every xmm register, sets non-default
 * MXCSR and x87 control word, spins `iters` times on a register-only loop
 * (no calls, no memory: only preemption at interrupt exit can switch the
 * G out here), then stores everything to out[] for the C side to check:
 *
 *   out[k]        seed + (k << 12): k = 0 rdi, 1 rax, 2 rbx, 3 rdx, 4 rsi,
 *                 5 rbp, 6..13 r8..r15
 *   out[14]       rcx, the loop counter: 0
 *   out[16+2i]    xmm_i low  = seed + 0x100 + i
 *   out[17+2i]    xmm_i high = ~low
 *   out[48]       MXCSR (REGS_MXCSR), out[49] x87 control word (REGS_FPUCW)
 *
 * spin_registers(n) is the bare loop: n iterations in one register.
 */
	.text
	.code64

	.global spin_registers
	.type spin_registers, @function
spin_registers:
	testq	%rdi, %rdi
	jz	2f
1:	decq	%rdi
	jnz	1b
2:	ret
	.size spin_registers, . - spin_registers

#define REGS_MXCSR	0x7FA0	/* round toward zero, all masked, PE flag */
#define REGS_FPUCW	0x0F7F	/* round toward zero, 64-bit precision */

	.global regs_fill_spin_dump
	.type regs_fill_spin_dump, @function
regs_fill_spin_dump:
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$40, %rsp		/* out, saved mxcsr/fpucw, 16 scratch */
	movq	%rdx, 0(%rsp)
	stmxcsr	8(%rsp)
	fnstcw	12(%rsp)
	movl	$REGS_MXCSR, 16(%rsp)
	ldmxcsr	16(%rsp)
	movw	$REGS_FPUCW, 16(%rsp)
	fldcw	16(%rsp)
	leaq	(0x100 + 0)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm0
	leaq	(0x100 + 1)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm1
	leaq	(0x100 + 2)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm2
	leaq	(0x100 + 3)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm3
	leaq	(0x100 + 4)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm4
	leaq	(0x100 + 5)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm5
	leaq	(0x100 + 6)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm6
	leaq	(0x100 + 7)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm7
	leaq	(0x100 + 8)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm8
	leaq	(0x100 + 9)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm9
	leaq	(0x100 + 10)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm10
	leaq	(0x100 + 11)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm11
	leaq	(0x100 + 12)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm12
	leaq	(0x100 + 13)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm13
	leaq	(0x100 + 14)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm14
	leaq	(0x100 + 15)(%rdi), %rax
	movq	%rax, 16(%rsp)
	notq	%rax
	movq	%rax, 24(%rsp)
	movdqu	16(%rsp), %xmm15
	movq	%rsi, %rcx		/* the loop counter */
	leaq	(1 << 12)(%rdi), %rax
	leaq	(2 << 12)(%rdi), %rbx
	leaq	(3 << 12)(%rdi), %rdx
	leaq	(4 << 12)(%rdi), %rsi
	leaq	(5 << 12)(%rdi), %rbp
	leaq	(6 << 12)(%rdi), %r8
	leaq	(7 << 12)(%rdi), %r9
	leaq	(8 << 12)(%rdi), %r10
	leaq	(9 << 12)(%rdi), %r11
	leaq	(10 << 12)(%rdi), %r12
	leaq	(11 << 12)(%rdi), %r13
	leaq	(12 << 12)(%rdi), %r14
	leaq	(13 << 12)(%rdi), %r15
1:	decq	%rcx
	jnz	1b
	pushq	%rax			/* spill rax, fetch out */
	movq	8(%rsp), %rax
	movq	%rdi, 0(%rax)
	movq	%rbx, 16(%rax)
	movq	%rdx, 24(%rax)
	movq	%rsi, 32(%rax)
	movq	%rbp, 40(%rax)
	movq	%r8, 48(%rax)
	movq	%r9, 56(%rax)
	movq	%r10, 64(%rax)
	movq	%r11, 72(%rax)
	movq	%r12, 80(%rax)
	movq	%r13, 88(%rax)
	movq	%r14, 96(%rax)
	movq	%r15, 104(%rax)
	movq	%rcx, 112(%rax)
	popq	%rbx
	movq	%rbx, 8(%rax)
	movdqu	%xmm0, 128(%rax)
	movdqu	%xmm1, 144(%rax)
	movdqu	%xmm2, 160(%rax)
	movdqu	%xmm3, 176(%rax)
	movdqu	%xmm4, 192(%rax)
	movdqu	%xmm5, 208(%rax)
	movdqu	%xmm6, 224(%rax)
	movdqu	%xmm7, 240(%rax)
	movdqu	%xmm8, 256(%rax)
	movdqu	%xmm9, 272(%rax)
	movdqu	%xmm10, 288(%rax)
	movdqu	%xmm11, 304(%rax)
	movdqu	%xmm12, 320(%rax)
	movdqu	%xmm13, 336(%rax)
	movdqu	%xmm14, 352(%rax)
	movdqu	%xmm15, 368(%rax)
	stmxcsr	16(%rsp)
	movl	16(%rsp), %ebx
	movq	%rbx, 384(%rax)
	fnstcw	16(%rsp)
	movzwl	16(%rsp), %ebx
	movq	%rbx, 392(%rax)
	ldmxcsr	8(%rsp)
	fldcw	12(%rsp)
	addq	$40, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	ret
	.size regs_fill_spin_dump, . - regs_fill_spin_dump

/*
 * callee_fill_call_check(seed, fn): puts seed + (k << 12) in the k-th
 * callee-saved register (k = 1 rbx, 2 rbp, 3 r12 .. 6 r15), calls fn()
 * (which switches the G out: tests/sched_park.c) and returns how many of
 * them did not come back. The voluntary switch keeps them on the G's own
 * stack (arch/x86_64/switch.S); a wrong order there shows here.
 */
	.global callee_fill_call_check
	.type callee_fill_call_check, @function
callee_fill_call_check:
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	pushq	%rdi			/* seed; rsp now 16-aligned */
	leaq	0x1000(%rdi), %rbx
	leaq	0x2000(%rdi), %rbp
	leaq	0x3000(%rdi), %r12
	leaq	0x4000(%rdi), %r13
	leaq	0x5000(%rdi), %r14
	leaq	0x6000(%rdi), %r15
	call	*%rsi
	popq	%rdi
	xorl	%eax, %eax
.macro CHECK_CALLEE reg, k
	leaq	(\k << 12)(%rdi), %rcx
	cmpq	%rcx, \reg
	je	1f
	incl	%eax
1:
.endm
	CHECK_CALLEE %rbx, 1
	CHECK_CALLEE %rbp, 2
	CHECK_CALLEE %r12, 3
	CHECK_CALLEE %r13, 4
	CHECK_CALLEE %r14, 5
	CHECK_CALLEE %r15, 6
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	ret
	.size callee_fill_call_check, . - callee_fill_call_check
