/*
 * The exception vector table (VBAR_EL1) and the trap frame save/restore.
 *
 * Every exception is taken to EL1h, so it lands on SP_EL1, this core's
 * exception stack: a G whose own stack (SP_EL0) overflowed into its guard
 * page still gets its fault reported. Two ways in:
 *   - from EL1t (normal kernel code on SP_EL0): the usual path;
 *   - from EL1h (a fault or an interrupt while already handling one): the
 *     frame is pushed below the current one on SP_EL1.
 * Each slot pushes x0/x1, loads its vector number and jumps to the save
 * code for its stack; aarch64_trap(tf, vec) in trap.c does the rest.
 */
#include "trap_arch.h"

.macro vslot vec, save
	.balign 0x80
	sub	sp, sp, #TF_SIZE
	stp	x0, x1, [sp, #TF_X0]
	mov	x0, #\vec
	b	\save
.endm

/*
 * Save the rest of the frame (x0 holds the vector number) and call
 * aarch64_trap(tf, vec). The interrupted SP is SP_EL0 for an EL1t frame,
 * or SP_EL1 just above this frame for an EL1h one.
 */
.macro save_frame el1h
	stp	x2, x3, [sp, #16 * 1]
	stp	x4, x5, [sp, #16 * 2]
	stp	x6, x7, [sp, #16 * 3]
	stp	x8, x9, [sp, #16 * 4]
	stp	x10, x11, [sp, #16 * 5]
	stp	x12, x13, [sp, #16 * 6]
	stp	x14, x15, [sp, #16 * 7]
	stp	x16, x17, [sp, #16 * 8]
	stp	x18, x19, [sp, #16 * 9]
	stp	x20, x21, [sp, #16 * 10]
	stp	x22, x23, [sp, #16 * 11]
	stp	x24, x25, [sp, #16 * 12]
	stp	x26, x27, [sp, #16 * 13]
	stp	x28, x29, [sp, #16 * 14]
	.if \el1h
	add	x1, sp, #TF_SIZE
	.else
	mrs	x1, sp_el0
	.endif
	stp	x30, x1, [sp, #TF_X30]
	mrs	x1, elr_el1
	mrs	x2, spsr_el1
	stp	x1, x2, [sp, #TF_ELR]
	mrs	x1, esr_el1
	mrs	x2, far_el1
	stp	x1, x2, [sp, #TF_ESR]
	mrs	x1, fpcr
	mrs	x2, fpsr
	str	w1, [sp, #TF_FPCR]
	str	w2, [sp, #TF_FPSR]
	add	x1, sp, #TF_Q0
	stp	q0, q1, [x1, #32 * 0]
	stp	q2, q3, [x1, #32 * 1]
	stp	q4, q5, [x1, #32 * 2]
	stp	q6, q7, [x1, #32 * 3]
	stp	q8, q9, [x1, #32 * 4]
	stp	q10, q11, [x1, #32 * 5]
	stp	q12, q13, [x1, #32 * 6]
	stp	q14, q15, [x1, #32 * 7]
	stp	q16, q17, [x1, #32 * 8]
	stp	q18, q19, [x1, #32 * 9]
	stp	q20, q21, [x1, #32 * 10]
	stp	q22, q23, [x1, #32 * 11]
	stp	q24, q25, [x1, #32 * 12]
	stp	q26, q27, [x1, #32 * 13]
	stp	q28, q29, [x1, #32 * 14]
	stp	q30, q31, [x1, #32 * 15]
	mov	x1, x0
	mov	x0, sp
	bl	aarch64_trap
.endm

/*
 * Restore everything and return. For an EL1t frame SP_EL0 comes back from
 * tf->sp; an EL1h frame's SP is SP_EL1 itself and is simply popped.
 */
.macro restore_frame el1h
	tf_restore_fp_elr sp
	.if \el1h == 0
	ldr	x1, [sp, #TF_SP]
	msr	sp_el0, x1
	.endif
	ldp	x0, x1, [sp, #16 * 0]
	tf_restore_x2_x30 sp
	add	sp, sp, #TF_SIZE
	eret
.endm

	.section .text.vectors, "ax"
	.balign 2048			/* VBAR_EL1 bits [10:0] are zero */
	.global vectors
vectors:
	/* current EL, SP_EL0 (EL1t): normal kernel code */
	vslot	0, save_el1t		/* synchronous */
	vslot	1, save_el1t		/* IRQ */
	vslot	2, save_el1t		/* FIQ */
	vslot	3, save_el1t		/* SError */
	/* current EL, SP_EL1 (EL1h): nested in a handler */
	vslot	4, save_el1h
	vslot	5, save_el1h
	vslot	6, save_el1h
	vslot	7, save_el1h
	/* lower EL, AArch64 and AArch32: gmk never runs there */
	vslot	8, save_el1t
	vslot	9, save_el1t
	vslot	10, save_el1t
	vslot	11, save_el1t
	vslot	12, save_el1t
	vslot	13, save_el1t
	vslot	14, save_el1t
	vslot	15, save_el1t

	.balign 0x80
save_el1t:
	save_frame 0
	restore_frame 0

save_el1h:
	save_frame 1
	restore_frame 1
