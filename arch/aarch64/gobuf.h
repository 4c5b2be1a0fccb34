/*
 * aarch64 gobuf: what gogo/mcall/gosave (switch.S) keep across a voluntary
 * switch. Under AAPCS64 the callee-saved state is x19-x28, the frame
 * pointer x29, the link register x30 (kept as pc) and the low 64 bits of
 * v8-v15 (d8-d15); everything else is dead at a call. Only through
 * kernel/gobuf.h.
 */
#ifndef GMK_ARCH_AARCH64_GOBUF_H
#define GMK_ARCH_AARCH64_GOBUF_H

/* Byte offsets, shared with switch.S. */
#define GOBUF_SP	0
#define GOBUF_PC	8
#define GOBUF_G		16	/* the G this context belongs to (arch_setg) */
#define GOBUF_X19	24	/* x19..x28, x29: 11 registers */
#define GOBUF_D8	112	/* d8..d15: 8 registers */
#define GOBUF_SIZE	176	/* multiple of 16 */

#ifndef __ASSEMBLY__
#include <stdint.h>

struct gobuf {
	uintptr_t sp;
	uintptr_t pc;
	void *g;
	uint64_t x19_x29[11];
	uint64_t d8_d15[8];
};
_Static_assert(__builtin_offsetof(struct gobuf, x19_x29) == GOBUF_X19, "gobuf");
_Static_assert(__builtin_offsetof(struct gobuf, d8_d15) == GOBUF_D8, "gobuf");
_Static_assert(sizeof(struct gobuf) == GOBUF_SIZE, "gobuf");

/*
 * A fresh context that starts fn on the stack whose top is sp_top, with the
 * G pointer g. x29 = 0 ends backtraces there; FPCR stays as the core has
 * it (FPCR/FPSR are not callee-saved, and gmk never changes them).
 */
static inline void gobuf_init(struct gobuf *b, uintptr_t sp_top,
			      void (*fn)(void), void *g)
{
	*b = (struct gobuf){ 0 };
	b->sp = sp_top & ~(uintptr_t)15;	/* AAPCS64: sp 16-aligned */
	b->pc = (uintptr_t)fn;
	b->g = g;
}
#endif

#endif
