/*
 * The register-state test's assembly, aarch64 (tests/preempt_regs.c).
 *
 * regs_fill_spin_dump(seed, iters, out) puts a distinct value derived from
 * seed in every general register and every q register, sets non-default
 * FPCR/FPSR, spins `iters` times on a register-only loop (no calls, no
 * memory: only preemption at interrupt exit can switch the G out here),
 * then stores everything to out[] for the C side to check:
 *
 *   out[i]        x_i = seed + (i << 12), i = 0..29
 *   out[30]       x30, the loop counter: 0
 *   out[32+2i]    q_i low  = seed + 0x100 + i
 *   out[33+2i]    q_i high = ~low
 *   out[96]       FPCR (RMode = round toward zero)
 *   out[97]       FPSR (REGS_FPSR)
 *
 * spin_registers(n) is the bare loop: n iterations in one register.
 */
	.text

	.global spin_registers
	.type spin_registers, %function
spin_registers:
	cbz	x0, 2f
1:	subs	x0, x0, #1
	b.ne	1b
2:	ret
	.size spin_registers, . - spin_registers

#define FPCR_RMODE_RZ	(3 << 22)
#define FRAME		192	/* x19-x30, d8-d15, out, fpcr, x0 spill */

	.global regs_fill_spin_dump
	.type regs_fill_spin_dump, %function
regs_fill_spin_dump:
	sub	sp, sp, #FRAME
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	str	x2, [sp, #160]		/* out */
	mrs	x3, fpcr
	str	x3, [sp, #168]
	orr	x3, x3, #FPCR_RMODE_RZ
	msr	fpcr, x3
	mov	x3, #0x0010		/* FPSR: IXC and QC, sticky flags */
	movk	x3, #0x0800, lsl #16
	msr	fpsr, x3
	mov	x16, x0			/* seed */
	add	x17, x16, #(0x100 + 0)
	fmov	d0, x17
	mvn	x17, x17
	ins	v0.d[1], x17
	add	x17, x16, #(0x100 + 1)
	fmov	d1, x17
	mvn	x17, x17
	ins	v1.d[1], x17
	add	x17, x16, #(0x100 + 2)
	fmov	d2, x17
	mvn	x17, x17
	ins	v2.d[1], x17
	add	x17, x16, #(0x100 + 3)
	fmov	d3, x17
	mvn	x17, x17
	ins	v3.d[1], x17
	add	x17, x16, #(0x100 + 4)
	fmov	d4, x17
	mvn	x17, x17
	ins	v4.d[1], x17
	add	x17, x16, #(0x100 + 5)
	fmov	d5, x17
	mvn	x17, x17
	ins	v5.d[1], x17
	add	x17, x16, #(0x100 + 6)
	fmov	d6, x17
	mvn	x17, x17
	ins	v6.d[1], x17
	add	x17, x16, #(0x100 + 7)
	fmov	d7, x17
	mvn	x17, x17
	ins	v7.d[1], x17
	add	x17, x16, #(0x100 + 8)
	fmov	d8, x17
	mvn	x17, x17
	ins	v8.d[1], x17
	add	x17, x16, #(0x100 + 9)
	fmov	d9, x17
	mvn	x17, x17
	ins	v9.d[1], x17
	add	x17, x16, #(0x100 + 10)
	fmov	d10, x17
	mvn	x17, x17
	ins	v10.d[1], x17
	add	x17, x16, #(0x100 + 11)
	fmov	d11, x17
	mvn	x17, x17
	ins	v11.d[1], x17
	add	x17, x16, #(0x100 + 12)
	fmov	d12, x17
	mvn	x17, x17
	ins	v12.d[1], x17
	add	x17, x16, #(0x100 + 13)
	fmov	d13, x17
	mvn	x17, x17
	ins	v13.d[1], x17
	add	x17, x16, #(0x100 + 14)
	fmov	d14, x17
	mvn	x17, x17
	ins	v14.d[1], x17
	add	x17, x16, #(0x100 + 15)
	fmov	d15, x17
	mvn	x17, x17
	ins	v15.d[1], x17
	add	x17, x16, #(0x100 + 16)
	fmov	d16, x17
	mvn	x17, x17
	ins	v16.d[1], x17
	add	x17, x16, #(0x100 + 17)
	fmov	d17, x17
	mvn	x17, x17
	ins	v17.d[1], x17
	add	x17, x16, #(0x100 + 18)
	fmov	d18, x17
	mvn	x17, x17
	ins	v18.d[1], x17
	add	x17, x16, #(0x100 + 19)
	fmov	d19, x17
	mvn	x17, x17
	ins	v19.d[1], x17
	add	x17, x16, #(0x100 + 20)
	fmov	d20, x17
	mvn	x17, x17
	ins	v20.d[1], x17
	add	x17, x16, #(0x100 + 21)
	fmov	d21, x17
	mvn	x17, x17
	ins	v21.d[1], x17
	add	x17, x16, #(0x100 + 22)
	fmov	d22, x17
	mvn	x17, x17
	ins	v22.d[1], x17
	add	x17, x16, #(0x100 + 23)
	fmov	d23, x17
	mvn	x17, x17
	ins	v23.d[1], x17
	add	x17, x16, #(0x100 + 24)
	fmov	d24, x17
	mvn	x17, x17
	ins	v24.d[1], x17
	add	x17, x16, #(0x100 + 25)
	fmov	d25, x17
	mvn	x17, x17
	ins	v25.d[1], x17
	add	x17, x16, #(0x100 + 26)
	fmov	d26, x17
	mvn	x17, x17
	ins	v26.d[1], x17
	add	x17, x16, #(0x100 + 27)
	fmov	d27, x17
	mvn	x17, x17
	ins	v27.d[1], x17
	add	x17, x16, #(0x100 + 28)
	fmov	d28, x17
	mvn	x17, x17
	ins	v28.d[1], x17
	add	x17, x16, #(0x100 + 29)
	fmov	d29, x17
	mvn	x17, x17
	ins	v29.d[1], x17
	add	x17, x16, #(0x100 + 30)
	fmov	d30, x17
	mvn	x17, x17
	ins	v30.d[1], x17
	add	x17, x16, #(0x100 + 31)
	fmov	d31, x17
	mvn	x17, x17
	ins	v31.d[1], x17
	mov	x30, x1			/* the loop counter */
	add	x1, x16, #1, lsl #12
	add	x2, x16, #2, lsl #12
	add	x3, x16, #3, lsl #12
	add	x4, x16, #4, lsl #12
	add	x5, x16, #5, lsl #12
	add	x6, x16, #6, lsl #12
	add	x7, x16, #7, lsl #12
	add	x8, x16, #8, lsl #12
	add	x9, x16, #9, lsl #12
	add	x10, x16, #10, lsl #12
	add	x11, x16, #11, lsl #12
	add	x12, x16, #12, lsl #12
	add	x13, x16, #13, lsl #12
	add	x14, x16, #14, lsl #12
	add	x15, x16, #15, lsl #12
	add	x18, x16, #18, lsl #12
	add	x19, x16, #19, lsl #12
	add	x20, x16, #20, lsl #12
	add	x21, x16, #21, lsl #12
	add	x22, x16, #22, lsl #12
	add	x23, x16, #23, lsl #12
	add	x24, x16, #24, lsl #12
	add	x25, x16, #25, lsl #12
	add	x26, x16, #26, lsl #12
	add	x27, x16, #27, lsl #12
	add	x28, x16, #28, lsl #12
	add	x29, x16, #29, lsl #12
	add	x17, x16, #17, lsl #12
	mov	x0, x16
	add	x16, x16, #16, lsl #12
1:	subs	x30, x30, #1
	b.ne	1b
	str	x0, [sp, #176]	/* spill x0, fetch out */
	ldr	x0, [sp, #160]
	str	x1, [x0, #8]
	str	x2, [x0, #16]
	str	x3, [x0, #24]
	str	x4, [x0, #32]
	str	x5, [x0, #40]
	str	x6, [x0, #48]
	str	x7, [x0, #56]
	str	x8, [x0, #64]
	str	x9, [x0, #72]
	str	x10, [x0, #80]
	str	x11, [x0, #88]
	str	x12, [x0, #96]
	str	x13, [x0, #104]
	str	x14, [x0, #112]
	str	x15, [x0, #120]
	str	x16, [x0, #128]
	str	x17, [x0, #136]
	str	x18, [x0, #144]
	str	x19, [x0, #152]
	str	x20, [x0, #160]
	str	x21, [x0, #168]
	str	x22, [x0, #176]
	str	x23, [x0, #184]
	str	x24, [x0, #192]
	str	x25, [x0, #200]
	str	x26, [x0, #208]
	str	x27, [x0, #216]
	str	x28, [x0, #224]
	str	x29, [x0, #232]
	str	x30, [x0, #240]
	ldr	x1, [sp, #176]
	str	x1, [x0, #0]
	add	x1, x0, #256
	stp	q0, q1, [x1, #0]
	stp	q2, q3, [x1, #32]
	stp	q4, q5, [x1, #64]
	stp	q6, q7, [x1, #96]
	stp	q8, q9, [x1, #128]
	stp	q10, q11, [x1, #160]
	stp	q12, q13, [x1, #192]
	stp	q14, q15, [x1, #224]
	stp	q16, q17, [x1, #256]
	stp	q18, q19, [x1, #288]
	stp	q20, q21, [x1, #320]
	stp	q22, q23, [x1, #352]
	stp	q24, q25, [x1, #384]
	stp	q26, q27, [x1, #416]
	stp	q28, q29, [x1, #448]
	stp	q30, q31, [x1, #480]
	mrs	x2, fpcr
	mrs	x3, fpsr
	str	x2, [x0, #768]
	str	x3, [x0, #776]
	ldr	x3, [sp, #168]
	msr	fpcr, x3
	msr	fpsr, xzr
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #FRAME
	ret
	.size regs_fill_spin_dump, . - regs_fill_spin_dump

/*
 * callee_fill_call_check(seed, fn): puts seed + (i << 12) in x19..x29
 * (i = 19..29) and seed + 0x100 + i in d8..d15 (i = 8..15), calls fn()
 * (which switches the G out: tests/sched_park.c) and returns how many of
 * them did not come back. The voluntary switch keeps them on the G's own
 * stack (arch/aarch64/switch.S); a wrong order there shows here. x29
 * holds a test value, not a frame record, during the call.
 */
	.global callee_fill_call_check
	.type callee_fill_call_check, %function
callee_fill_call_check:
	stp	x29, x30, [sp, #-176]!
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	stp	x25, x26, [sp, #64]
	stp	x27, x28, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	str	x0, [sp, #160]		/* seed */
	.irp i, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29
	add	x\i, x0, #\i, lsl #12
	.endr
	.irp i, 8, 9, 10, 11, 12, 13, 14, 15
	add	x9, x0, #(0x100 + \i)
	fmov	d\i, x9
	.endr
	blr	x1
	ldr	x9, [sp, #160]
	mov	x0, #0
	.irp i, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29
	add	x10, x9, #\i, lsl #12
	cmp	x\i, x10
	cinc	x0, x0, ne
	.endr
	.irp i, 8, 9, 10, 11, 12, 13, 14, 15
	add	x10, x9, #(0x100 + \i)
	fmov	x11, d\i
	cmp	x11, x10
	cinc	x0, x0, ne
	.endr
	ldp	x19, x20, [sp, #16]
	ldp	x21, x22, [sp, #32]
	ldp	x23, x24, [sp, #48]
	ldp	x25, x26, [sp, #64]
	ldp	x27, x28, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	ldp	x29, x30, [sp], #176
	ret
	.size callee_fill_call_check, . - callee_fill_call_check
