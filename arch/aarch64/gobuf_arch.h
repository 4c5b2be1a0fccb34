/*
 * aarch64 gobuf: where a G that is not running resumes. As in Go, only
 * sp, pc and g: a voluntary switch (mcall, switch.S) pushes the
 * callee-saved registers of the AAPCS64 (x19-x28, the frame pointer x29,
 * the link register x30 and the low 64 bits of v8-v15, d8-d15) onto the
 * G's own stack and leaves pc = mcall_resume, which pops them and returns
 * to mcall's caller. So gogo resumes three kinds of context the same way
 * (sp, then jump to pc): a parked G (pc = mcall_resume), a G preempted at
 * an interrupt (pc = arch_preempt_resume, sp = its frame copy) and a
 * fresh G (pc = goentry). FPCR/FPSR are not callee-saved, and gmk never
 * changes them. Only through kernel/gobuf.h.
 */
#ifndef GMK_ARCH_AARCH64_GOBUF_ARCH_H
#define GMK_ARCH_AARCH64_GOBUF_ARCH_H

/* Byte offsets, shared with switch.S. */
#define GOBUF_SP	0
#define GOBUF_PC	8
#define GOBUF_G		16	/* the G this context belongs to (arch_setg) */
#define GOBUF_SIZE	24

/*
 * The block mcall pushes, from the saved sp up (tools/gmk-gdb.py reads
 * it): the frame record x29, x30 first, so that sp is a frame pointer of
 * the parked G; then x19..x28, then d8..d15. 16-aligned.
 */
#define MCALL_X29	0
#define MCALL_X19	16
#define MCALL_D8	96
#define MCALL_FRAME	160

#ifndef __ASSEMBLY__
#include <stdint.h>

struct gobuf {
	uintptr_t sp;
	uintptr_t pc;
	void *g;
};
_Static_assert(__builtin_offsetof(struct gobuf, g) == GOBUF_G, "gobuf");
_Static_assert(sizeof(struct gobuf) == GOBUF_SIZE, "gobuf");

/* switch.S: a fresh G's first instruction (below). */
void goentry(void);

/*
 * A fresh context for the G g: gogo lands on goentry, which branches to
 * gstart, every G's first function, with x29 = x30 = 0 (backtraces end
 * there). sp stays 0 until the G has a stack (gobuf_set_stack, at its
 * first run); nothing is written to the stack (see arch/x86_64/gobuf_arch.h).
 */
static inline void gobuf_init(struct gobuf *b, void *g)
{
	b->sp = 0;
	b->pc = (uintptr_t)goentry;
	b->g = g;
}

/* The fresh context b starts on the stack whose top is sp_top, 16-aligned
 * as AAPCS64 wants. */
static inline void gobuf_set_stack(struct gobuf *b, uintptr_t sp_top)
{
	b->sp = sp_top & ~(uintptr_t)15;
}
#endif

#endif
