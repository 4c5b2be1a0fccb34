/*
 * Voluntary context switches between Gs (see kernel/gobuf.h).
 * Only callee-saved state moves: a switch happens at a call, where the
 * AAPCS64 lets the callee clobber everything else. As in Go, the gobuf
 * keeps only sp, pc and g: mcall pushes x19-x30 and d8-d15 onto the G's
 * own stack (gobuf_arch.h has the layout), where a parked G's
 * frames are anyway, so a G record does not carry them. The G pointer
 * lives in TPIDRRO_EL0 (cpu_arch.h) and changes together with the
 * stack; so does the C library's thread pointer, TPIDR_EL0: a G's TLS
 * block is at the top of its stack (kernel/glocal.h), g0's is its core's
 * (struct cpu's libc_tls).
 */
#include "kernel/glocal.h"
#include "kernel/gobuf.h"
#include "kernel/layout.h"

	.text
/* Everything from here to switch_text_end is switch code: the preemption
 * tick leaves a G alone while it is in here (kernel/preempt.h). */
	.global switch_text_start
switch_text_start:

/*
 * void gogo(struct gobuf *buf): resume buf; does not return. The context
 * at buf's pc restores the rest: mcall_resume for a G parked by mcall,
 * arch_preempt_resume for one preempted at an interrupt, goentry for a
 * fresh G.
 */
	.global gogo
	.type gogo, %function
gogo:
	ldp	x9, x10, [x0, #GOBUF_SP]	/* sp, pc */
	ldr	x11, [x0, #GOBUF_G]
	msr	tpidrro_el0, x11
	ldr	x12, [x11, #G_STACK_HI]
	sub	x12, x12, #GLOCAL_SIZE
	msr	tpidr_el0, x12
	mov	sp, x9
	br	x10
	.size gogo, . - gogo

/*
 * void mcall(void (*fn)(struct g *)): save the running G's context (its
 * callee-saved registers on its stack, sp and pc in its gobuf, the first
 * field of struct g), switch to this M's g0 stack and call fn(g). fn
 * schedules another G and never returns; when this G is resumed,
 * mcall_resume returns to mcall's caller. gobuf.g needs no store: it is
 * the G itself, set by gobuf_init (g0's by mstart) and never changed.
 */
/*
 * save_g G: the running G's context, as a parked G keeps it: x29, x30,
 * the callee-saved registers (MCALL_FRAME's layout) on its stack, then
 * sp and pc = mcall_resume in its gobuf. G holds the G; x9 and x10 are
 * clobbered.
 */
.macro save_g g
	stp	x29, x30, [sp, #-MCALL_FRAME]!
	mcall_regs stp
	mov	x9, sp
	adr	x10, mcall_resume
	stp	x9, x10, [\g, #GOBUF_SP]	/* sp, pc */
.endm

/*
 * to_g0: the G in x1, its context saved, switches to its M's g0 stack
 * (and the core's TLS block) and calls fn (x0) with it; panics if x1 is
 * g0 itself.
 */
.macro to_g0
	ldr	x2, [x1, #G_M]
	ldr	x2, [x2, #M_G0]
	cmp	x2, x1
	b.eq	1f
	msr	tpidrro_el0, x2
	mrs	x3, tpidr_el1
	ldr	x3, [x3, #CPU_LIBC_TLS]
	msr	tpidr_el0, x3
	ldr	x9, [x2, #GOBUF_SP]	/* g0's stack top: nothing live on it */
	mov	sp, x9
	mov	x29, #0			/* backtraces end here */
	mov	x9, x0
	mov	x0, x1
	/* fn never returns: a branch with x30 = 2f (for backtraces, and a
	 * misused fn that returns), not blr, which would push an entry on
	 * the return-address predictor that no ret takes (kernel/gobuf.h,
	 * gogo_jump). */
	adr	x30, 2f
	br	x9
2:	bl	mcall_returned		/* panics */
1:	bl	mcall_on_g0		/* panics */
.endm

/* x19-x28 and d8-d15 to (op = stp) or from (op = ldp) the block at sp
 * that mcall pushes (gobuf_arch.h's MCALL_*); x29, x30 come separately. */
.macro mcall_regs op
	\op	x19, x20, [sp, #MCALL_X19 + 0]
	\op	x21, x22, [sp, #MCALL_X19 + 16]
	\op	x23, x24, [sp, #MCALL_X19 + 32]
	\op	x25, x26, [sp, #MCALL_X19 + 48]
	\op	x27, x28, [sp, #MCALL_X19 + 64]
	\op	d8, d9, [sp, #MCALL_D8 + 0]
	\op	d10, d11, [sp, #MCALL_D8 + 16]
	\op	d12, d13, [sp, #MCALL_D8 + 32]
	\op	d14, d15, [sp, #MCALL_D8 + 48]
.endm

	.global mcall
	.type mcall, %function
mcall:
	mrs	x1, tpidrro_el0		/* gp */
	save_g	x1
	to_g0
	.size mcall, . - mcall

/* gogo lands here for a G that mcall parked: its registers are on its
 * stack; x30 is mcall's return address. */
	.global mcall_resume
	.type mcall_resume, %function
mcall_resume:
	mcall_regs ldp
	ldp	x29, x30, [sp], #MCALL_FRAME
	ret
	.size mcall_resume, . - mcall_resume

/*
 * void mcall_exit(void (*fn)(struct g *)) (kernel/gobuf.h): mcall for a G
 * that never runs again (goexit): its sp is kept, for the exit's stack
 * check (dropg), not its registers nor a pc to resume at.
 */
	.global mcall_exit
	.type mcall_exit, %function
mcall_exit:
	mrs	x1, tpidrro_el0		/* gp */
	mov	x9, sp
	str	x9, [x1, #GOBUF_SP]
	to_g0
	.size mcall_exit, . - mcall_exit

/*
 * void gswitch(struct g *next, volatile uint32_t *lock) (kernel/gobuf.h):
 * mcall's save of the running G, then gogo's resume of next; the lock is
 * released (stlr: after the saved context) and the core's preempt-off
 * count dropped on next's stack. The count's load and
 * store need no masked interrupts: a handler between them leaves it as
 * it found it, and the count (1 until the store) keeps the tick from
 * switching this core.
 */
	.global gswitch
	.type gswitch, %function
gswitch:
	mrs	x3, tpidrro_el0		/* gp */
	save_g	x3
	ldp	x9, x10, [x0, #GOBUF_SP]	/* next's sp, pc: gogo */
	msr	tpidrro_el0, x0
	ldr	x12, [x0, #G_STACK_HI]
	sub	x12, x12, #GLOCAL_SIZE
	msr	tpidr_el0, x12
	mov	sp, x9
	stlr	wzr, [x1]
	mrs	x2, tpidr_el1		/* this core's struct cpu */
	ldr	w11, [x2, #CPU_PREEMPT_OFF]
	sub	w11, w11, #1
	str	w11, [x2, #CPU_PREEMPT_OFF]
	br	x10
	.size gswitch, . - gswitch

/* gogo lands here for a fresh G (gobuf_init). x29 = x30 = 0 ends
 * backtraces at gstart; nothing else is owed to a function that nobody
 * called. */
	.global goentry
	.type goentry, %function
goentry:
	mov	x29, #0
	mov	x30, #0
	b	gstart
	.size goentry, . - goentry

	.global switch_text_end
switch_text_end:
