/*
 * Voluntary context switches between Gs (see kernel/gobuf.h).
 * Only callee-saved state moves: a switch happens at a call, where the
 * AAPCS64 lets the callee clobber everything else. The G pointer lives in
 * TPIDRRO_EL0 (arch/aarch64/cpu.h) and changes together with the stack.
 */
#include "kernel/gobuf.h"

.macro SAVE_CALLEE buf
	stp	x19, x20, [\buf, #GOBUF_X19 + 0]
	stp	x21, x22, [\buf, #GOBUF_X19 + 16]
	stp	x23, x24, [\buf, #GOBUF_X19 + 32]
	stp	x25, x26, [\buf, #GOBUF_X19 + 48]
	stp	x27, x28, [\buf, #GOBUF_X19 + 64]
	str	x29, [\buf, #GOBUF_X19 + 80]
	stp	d8, d9, [\buf, #GOBUF_D8 + 0]
	stp	d10, d11, [\buf, #GOBUF_D8 + 16]
	stp	d12, d13, [\buf, #GOBUF_D8 + 32]
	stp	d14, d15, [\buf, #GOBUF_D8 + 48]
	mov	x9, sp
	str	x9, [\buf, #GOBUF_SP]
	str	x30, [\buf, #GOBUF_PC]
.endm

	.text
/* Everything from here to switch_text_end is switch code: the preemption
 * tick leaves a G alone while it is in here (kernel/preempt.h). */
	.global switch_text_start
switch_text_start:

/* int gosave(struct gobuf *buf): 0 now, 1 when gogo resumes buf. */
	.global gosave
	.type gosave, %function
gosave:
	SAVE_CALLEE x0
	mrs	x9, tpidrro_el0
	str	x9, [x0, #GOBUF_G]
	mov	x0, #0
	ret
	.size gosave, . - gosave

/* void gogo(struct gobuf *buf): resume buf; does not return. */
	.global gogo
	.type gogo, %function
gogo:
	ldr	x9, [x0, #GOBUF_G]
	msr	tpidrro_el0, x9
	ldp	x19, x20, [x0, #GOBUF_X19 + 0]
	ldp	x21, x22, [x0, #GOBUF_X19 + 16]
	ldp	x23, x24, [x0, #GOBUF_X19 + 32]
	ldp	x25, x26, [x0, #GOBUF_X19 + 48]
	ldp	x27, x28, [x0, #GOBUF_X19 + 64]
	ldr	x29, [x0, #GOBUF_X19 + 80]
	ldp	d8, d9, [x0, #GOBUF_D8 + 0]
	ldp	d10, d11, [x0, #GOBUF_D8 + 16]
	ldp	d12, d13, [x0, #GOBUF_D8 + 32]
	ldp	d14, d15, [x0, #GOBUF_D8 + 48]
	ldr	x9, [x0, #GOBUF_SP]
	mov	sp, x9
	ldr	x30, [x0, #GOBUF_PC]
	mov	x0, #1			/* gosave's second return */
	ret
	.size gogo, . - gogo

/*
 * void mcall(void (*fn)(struct g *)): save the running G's context in its
 * gobuf (the first field of struct g), switch to this M's g0 stack and
 * call fn(g). fn schedules another G and never returns; when this G is
 * resumed, mcall returns to its caller.
 */
	.global mcall
	.type mcall, %function
mcall:
	mrs	x1, tpidrro_el0		/* gp */
	SAVE_CALLEE x1
	str	x1, [x1, #GOBUF_G]
	ldr	x2, [x1, #G_M]
	ldr	x2, [x2, #M_G0]
	cmp	x2, x1
	b.eq	1f
	msr	tpidrro_el0, x2
	ldr	x9, [x2, #GOBUF_SP]	/* g0's stack top: nothing live on it */
	mov	sp, x9
	mov	x29, #0			/* backtraces end here */
	mov	x9, x0
	mov	x0, x1
	blr	x9
	bl	mcall_returned		/* panics */
1:	bl	mcall_on_g0		/* panics */
	.size mcall, . - mcall

	.global switch_text_end
switch_text_end:
