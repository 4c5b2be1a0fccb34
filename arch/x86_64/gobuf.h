/*
 * x86-64 gobuf: what gogo/mcall/gosave (switch.S) keep across a voluntary
 * switch. Under the SysV ABI the callee-saved state is rbx, rbp, r12-r15,
 * the MXCSR control bits and the x87 control word; the SSE registers are
 * all caller-saved. Only through kernel/gobuf.h.
 */
#ifndef GMK_ARCH_X86_64_GOBUF_H
#define GMK_ARCH_X86_64_GOBUF_H

/* Byte offsets, shared with switch.S. */
#define GOBUF_SP	0
#define GOBUF_PC	8
#define GOBUF_G		16	/* the G this context belongs to (%gs:8) */
#define GOBUF_RBX	24
#define GOBUF_RBP	32
#define GOBUF_R12	40
#define GOBUF_R13	48
#define GOBUF_R14	56
#define GOBUF_R15	64
#define GOBUF_MXCSR	72	/* 4 bytes */
#define GOBUF_FPUCW	76	/* 2 bytes */
#define GOBUF_SIZE	80

#ifndef __ASSEMBLY__
#include <stdint.h>

struct gobuf {
	uintptr_t sp;
	uintptr_t pc;
	void *g;
	uint64_t rbx, rbp, r12, r13, r14, r15;
	uint32_t mxcsr;
	uint16_t fpucw;
	uint16_t pad;
};
_Static_assert(__builtin_offsetof(struct gobuf, rbx) == GOBUF_RBX, "gobuf");
_Static_assert(__builtin_offsetof(struct gobuf, mxcsr) == GOBUF_MXCSR, "gobuf");
_Static_assert(__builtin_offsetof(struct gobuf, fpucw) == GOBUF_FPUCW, "gobuf");
_Static_assert(sizeof(struct gobuf) == GOBUF_SIZE, "gobuf");

/* Power-on defaults (Intel SDM vol. 1, 10.2.3.1 and 8.1.5): all exceptions
 * masked, round to nearest; x87 double-extended precision. */
#define GOBUF_MXCSR_DEFAULT 0x1F80u
#define GOBUF_FPUCW_DEFAULT 0x037Fu

/*
 * A fresh context that starts fn on the stack whose top is sp_top, with the
 * G pointer g. The ABI wants rsp = 8 mod 16 at a function's first
 * instruction (as if `call` had pushed a return address), so a zero fake
 * return address is pushed; rbp = 0 ends backtraces there.
 */
static inline void gobuf_init(struct gobuf *b, uintptr_t sp_top,
			      void (*fn)(void), void *g)
{
	*b = (struct gobuf){ 0 };
	uintptr_t sp = (sp_top & ~(uintptr_t)15) - 8;
	*(uintptr_t *)sp = 0;
	b->sp = sp;
	b->pc = (uintptr_t)fn;
	b->g = g;
	b->mxcsr = GOBUF_MXCSR_DEFAULT;
	b->fpucw = GOBUF_FPUCW_DEFAULT;
}
#endif

#endif
