/*
 * The aarch64 trap frame: the whole register state of the interrupted
 * context, saved by vectors.S on the core's exception stack (SP_EL1).
 *
 * Every exception is taken to EL1h, so the frame lives on SP_EL1 whatever
 * the interrupted code was using. `sp` is the interrupted stack pointer:
 * SP_EL0 for normal kernel code (EL1t), or the SP_EL1 value before the
 * frame was pushed for a nested exception (EL1h). On return vectors.S
 * reloads SP_EL0 from `sp` for EL1t frames only.
 *
 * FP/SIMD is saved too (q0-q31, fpcr, fpsr): C code and the C library may
 * use the vector registers anywhere. TF_* are the byte offsets vectors.S
 * uses; trap.c checks them against the struct.
 */
#ifndef GMK_ARCH_AARCH64_TRAP_ARCH_H
#define GMK_ARCH_AARCH64_TRAP_ARCH_H

#define TF_X0		0	/* x0..x30, 8 bytes each */
#define TF_X30		240
#define TF_SP		248
#define TF_ELR		256
#define TF_SPSR		264
#define TF_ESR		272
#define TF_FAR		280
#define TF_FPCR		288
#define TF_FPSR		292
#define TF_Q0		304	/* q0..q31, 16 bytes each, 16-aligned */
#define TF_SIZE		816	/* a multiple of 16: SP stays aligned */

#ifdef __ASSEMBLY__
/*
 * Reload the vector and FP state, ELR_EL1 and SPSR_EL1 from the frame at
 * \base (sp or a general register); clobbers x1 and x2. Shared by the
 * exception return (vectors.S) and the resumption of a preempted G
 * (preempt.S), whose frames have the same layout.
 */
.macro tf_restore_fp_elr base
	add	x1, \base, #TF_Q0
	ldp	q0, q1, [x1, #32 * 0]
	ldp	q2, q3, [x1, #32 * 1]
	ldp	q4, q5, [x1, #32 * 2]
	ldp	q6, q7, [x1, #32 * 3]
	ldp	q8, q9, [x1, #32 * 4]
	ldp	q10, q11, [x1, #32 * 5]
	ldp	q12, q13, [x1, #32 * 6]
	ldp	q14, q15, [x1, #32 * 7]
	ldp	q16, q17, [x1, #32 * 8]
	ldp	q18, q19, [x1, #32 * 9]
	ldp	q20, q21, [x1, #32 * 10]
	ldp	q22, q23, [x1, #32 * 11]
	ldp	q24, q25, [x1, #32 * 12]
	ldp	q26, q27, [x1, #32 * 13]
	ldp	q28, q29, [x1, #32 * 14]
	ldp	q30, q31, [x1, #32 * 15]
	ldr	w1, [\base, #TF_FPCR]
	ldr	w2, [\base, #TF_FPSR]
	msr	fpcr, x1
	msr	fpsr, x2
	ldp	x1, x2, [\base, #TF_ELR]
	msr	elr_el1, x1
	msr	spsr_el1, x2
.endm

/* Reload x2..x30 from the frame at \base (x0 and x1 are the caller's to
 * reload: \base may be one of them). */
.macro tf_restore_x2_x30 base
	ldp	x2, x3, [\base, #16 * 1]
	ldp	x4, x5, [\base, #16 * 2]
	ldp	x6, x7, [\base, #16 * 3]
	ldp	x8, x9, [\base, #16 * 4]
	ldp	x10, x11, [\base, #16 * 5]
	ldp	x12, x13, [\base, #16 * 6]
	ldp	x14, x15, [\base, #16 * 7]
	ldp	x16, x17, [\base, #16 * 8]
	ldp	x18, x19, [\base, #16 * 9]
	ldp	x20, x21, [\base, #16 * 10]
	ldp	x22, x23, [\base, #16 * 11]
	ldp	x24, x25, [\base, #16 * 12]
	ldp	x26, x27, [\base, #16 * 13]
	ldp	x28, x29, [\base, #16 * 14]
	ldr	x30, [\base, #TF_X30]
.endm
#else
#include <stdbool.h>
#include <stdint.h>

struct trapframe {
	uint64_t x[31];			/* x29 = frame pointer, x30 = link register */
	uint64_t sp;			/* interrupted SP (see above) */
	uint64_t elr;			/* where execution resumes */
	uint64_t spsr;			/* interrupted PSTATE */
	uint64_t esr;			/* syndrome (meaningful for synchronous exceptions) */
	uint64_t far;			/* fault address (aborts, alignment, watchpoints) */
	uint32_t fpcr, fpsr;
	uint64_t pad;
	__uint128_t q[32];
} __attribute__((aligned(16)));

/* kernel/trap.h's accessors. */
static inline uintptr_t arch_frame_pc(const struct trapframe *tf) { return tf->elr; }
static inline uintptr_t arch_frame_fp(const struct trapframe *tf) { return tf->x[29]; }
static inline uintptr_t arch_frame_sp(const struct trapframe *tf) { return tf->sp; }
/* The link register: a leaf function's return address, which it keeps
 * there without a frame record. */
static inline uintptr_t arch_frame_lr(const struct trapframe *tf) { return tf->x[30]; }

/* Is ret a return address of a call to callee: a BL to it, or a BLR (whose
 * target a register held), just before ret? ret lies in the kernel's text
 * (the caller checked), so reading the word before it cannot fault. */
static inline bool arch_returns_from_call(uintptr_t ret, uintptr_t callee)
{
	uint32_t insn = *(const uint32_t *)(ret - 4);

	if ((insn & 0xfc000000u) == 0x94000000u) {		/* BL imm26 */
		int64_t off = (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36;
		return ret - 4 + (uintptr_t)off == callee;
	}
	return (insn & 0xfffffc1fu) == 0xd63f0000u;		/* BLR Xn */
}
#endif

/* AAPCS64 has no red zone: nothing below SP is live. */
#define ARCH_STACK_RED_ZONE	0

#endif
