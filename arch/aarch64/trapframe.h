/*
 * The aarch64 trap frame: the whole register state of the interrupted
 * context, saved by vectors.S on the core's exception stack (SP_EL1).
 *
 * Every exception is taken to EL1h, so the frame lives on SP_EL1 whatever
 * the interrupted code was using. `sp` is the interrupted stack pointer:
 * SP_EL0 for normal kernel code (EL1t), or the SP_EL1 value before the
 * frame was pushed for a nested exception (EL1h). On return vectors.S
 * reloads SP_EL0 from `sp` for EL1t frames only, which is what lets
 * arch_frame_redirect move a preempted G onto another stack.
 *
 * FP/SIMD is saved too (q0-q31, fpcr, fpsr): C code and the C library may
 * use the vector registers anywhere. TF_* are the byte offsets vectors.S
 * uses; trap.c checks them against the struct.
 */
#ifndef GMK_ARCH_AARCH64_TRAPFRAME_H
#define GMK_ARCH_AARCH64_TRAPFRAME_H

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

#ifndef __ASSEMBLY__
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
#endif

#endif
