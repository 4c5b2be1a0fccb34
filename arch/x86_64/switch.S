/*
 * Voluntary context switches between Gs (see kernel/gobuf.h).
 * Only callee-saved state moves: a switch happens at a call, where the
 * SysV ABI lets the callee clobber everything else (the MXCSR control
 * bits and the x87 control word stay at their defaults: gobuf_arch.h says
 * why). As in Go, the gobuf keeps only sp, pc and g: mcall pushes rbx,
 * rbp and r12-r15 onto the G's own stack, where a parked G's frames are
 * anyway, so a G record does not carry them. The G pointer is %gs:8
 * (struct cpu's curg) and changes together with the stack.
 */
#include "kernel/gobuf.h"
#include "kernel/layout.h"

/* Where the running G lives: struct cpu's curg through GS in the kernel.
 * The hosted board assembles this file as it is with its own definition
 * (arch/x86_64-linux/switch_linux.S: a %fs-relative thread-local variable). */
#ifndef PERCPU_CURG
#define PERCPU_CURG %gs:8
#endif
/* struct cpu's preempt_off, dropped by one (kernel/layout.h); may use %rdx. */
#ifndef PERCPU_PREEMPT_DEC
#define PERCPU_PREEMPT_DEC decl %gs:CPU_PREEMPT_OFF
#endif

	.text
/* Everything from here to switch_text_end is switch code: the preemption
 * tick leaves a G alone while it is in here (kernel/preempt.h). */
	.global switch_text_start
switch_text_start:

/*
 * save_g G, TMP: the running G's context, as a parked G keeps it: its
 * callee-saved registers pushed on its stack (in MCALL_FRAME_REGS's
 * order), then sp and pc = mcall_resume in its gobuf. G holds the G;
 * TMP is clobbered.
 */
.macro save_g g, tmp
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, GOBUF_SP(\g)
	leaq	mcall_resume(%rip), \tmp
	movq	\tmp, GOBUF_PC(\g)
.endm

/*
 * to_g0: the G in %rsi, its context saved, switches to its M's g0 stack
 * and calls fn (%rdi) with it; panics if %rsi is g0 itself.
 */
.macro to_g0
	movq	G_M(%rsi), %rax
	movq	M_G0(%rax), %rax
	cmpq	%rax, %rsi
	je	1f
	movq	%rax, PERCPU_CURG
	movq	GOBUF_SP(%rax), %rsp	/* g0's stack top, 16-aligned */
	xorl	%ebp, %ebp		/* backtraces end here */
	movq	%rdi, %rax
	movq	%rsi, %rdi
	/* fn never returns: a jump with 2f pushed as its return address
	 * (for backtraces, and a misused fn that returns), not a call,
	 * which would push an entry on the return-address predictor that
	 * no ret takes (kernel/gobuf.h, gogo_jump). */
	leaq	2f(%rip), %rdx
	pushq	%rdx
	jmp	*%rax
2:	call	mcall_returned		/* panics */
1:	call	mcall_on_g0		/* panics */
.endm

/*
 * void gogo(struct gobuf *buf): resume buf; does not return. The context
 * at buf's pc restores the rest: mcall_resume for a G parked by mcall,
 * arch_preempt_resume for one preempted at an interrupt, goentry for a
 * fresh G.
 */
	.global gogo
	.type gogo, @function
gogo:
	movq	GOBUF_G(%rdi), %rax
	movq	%rax, PERCPU_CURG
	movq	GOBUF_SP(%rdi), %rsp
	jmp	*GOBUF_PC(%rdi)
	.size gogo, . - gogo

/*
 * void mcall(void (*fn)(struct g *)): save the running G's context (its
 * callee-saved registers on its stack, sp and pc in its gobuf, the first
 * field of struct g), switch to this M's g0 stack and call fn(g). fn
 * schedules another G and never returns; when this G is resumed,
 * mcall_resume returns to mcall's caller. gobuf.g needs no store: it is
 * the G itself, set by gobuf_init (g0's by mstart) and never changed.
 */
	.global mcall
	.type mcall, @function
mcall:
	movq	PERCPU_CURG, %rsi		/* gp */
	save_g	%rsi, %rax
	to_g0
	.size mcall, . - mcall

/* gogo lands here for a G that mcall parked: its registers are on its
 * stack, below mcall's return address. */
	.global mcall_resume
	.type mcall_resume, @function
mcall_resume:
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.size mcall_resume, . - mcall_resume

/*
 * void mcall_exit(void (*fn)(struct g *)) (kernel/gobuf.h): mcall for a G
 * that never runs again (goexit): its sp is kept, for the exit's stack
 * check (dropg), not its registers nor a pc to resume at.
 */
	.global mcall_exit
	.type mcall_exit, @function
mcall_exit:
	movq	PERCPU_CURG, %rsi		/* gp */
	movq	%rsp, GOBUF_SP(%rsi)
	to_g0
	.size mcall_exit, . - mcall_exit

/*
 * void gswitch(struct g *next, volatile uint32_t *lock) (kernel/gobuf.h):
 * mcall's save of the running G, then gogo's resume of next; the lock is
 * released and the core's preempt-off count dropped on next's stack, once
 * nothing here uses the parked G's. x86-64's plain store is a release.
 */
	.global gswitch
	.type gswitch, @function
gswitch:
	movq	PERCPU_CURG, %rax		/* gp */
	save_g	%rax, %rcx
	movq	%rdi, PERCPU_CURG
	movq	GOBUF_SP(%rdi), %rsp
	movl	$0, (%rsi)
	PERCPU_PREEMPT_DEC
	jmp	*GOBUF_PC(%rdi)
	.size gswitch, . - gswitch

/* gogo lands here for a fresh G (gobuf_init), rsp = 8 mod 16: a zero
 * fake return address and rbp = 0 end backtraces at gstart; nothing else
 * is owed to a function that nobody called. */
	.global goentry
	.type goentry, @function
goentry:
	xorl	%ebp, %ebp
	movq	$0, (%rsp)
	jmp	gstart
	.size goentry, . - goentry

	.global switch_text_end
switch_text_end:
