/*
 * x86-64 gobuf: where a G that is not running resumes. As in Go, only
 * sp, pc and g: a voluntary switch (mcall, switch.S) pushes the
 * callee-saved registers of the SysV ABI (rbx, rbp, r12-r15) onto the G's
 * own stack, below its return address, and leaves pc = mcall_resume,
 * which pops them and returns. So gogo resumes three kinds of context the
 * same way (sp, then jump to pc): a parked G (pc = mcall_resume), a G
 * preempted at an interrupt (pc = arch_preempt_resume, sp = its frame
 * copy) and a fresh G (pc = its first function). Only through
 * kernel/gobuf.h.
 *
 * The MXCSR control bits and the x87 control word, callee-saved too, are
 * not kept per G: gmk runs every G and the scheduler with the power-on
 * defaults (cpu.c sets them at boot; an interrupt sets them for its
 * handler, arch/x86_64/preempt.S, and a preempted G's own modes stay in
 * its frame copy), so at every voluntary switch they already hold the
 * values the next G expects. As in Go, whose gogo does not save them
 * either: code that changes them must restore them before anything that
 * may switch (a channel operation, a lock, gosched), as it must before
 * it returns. This saves a ldmxcsr and a fldcw, two slow instructions,
 * per switch.
 */
#ifndef GMK_ARCH_X86_64_GOBUF_ARCH_H
#define GMK_ARCH_X86_64_GOBUF_ARCH_H

/* Byte offsets, shared with switch.S. */
#define GOBUF_SP	0
#define GOBUF_PC	8
#define GOBUF_G		16	/* the G this context belongs to (%gs:8) */
#define GOBUF_SIZE	24

/* What mcall pushes below the return address: rbp, rbx, r12-r15, in
 * this order, so from the saved sp up: r15 r14 r13 r12 rbx rbp, then the
 * return address (tools/gmk-gdb.py reads them there). */
#define MCALL_FRAME_REGS 6

#ifndef __ASSEMBLY__
#include <stdint.h>

struct gobuf {
	uintptr_t sp;
	uintptr_t pc;
	void *g;
};
_Static_assert(__builtin_offsetof(struct gobuf, g) == GOBUF_G, "gobuf");
_Static_assert(sizeof(struct gobuf) == GOBUF_SIZE, "gobuf");

/* Power-on defaults (Intel SDM vol. 1, 10.2.3.1 and 8.1.5): all exceptions
 * masked, round to nearest; x87 double-extended precision. */
#define GOBUF_MXCSR_DEFAULT 0x1F80u
#define GOBUF_FPUCW_DEFAULT 0x037Fu

/* switch.S: a fresh G's first instruction (below). */
void goentry(void);

/*
 * A fresh context for the G g: gogo lands on goentry, which zeroes rbp
 * (frame-pointer backtraces end at the G's first function), stores a zero
 * fake return address at sp and jumps to gstart, every G's first
 * function, with rsp = 8 mod 16 as if `call` had pushed it (the ABI). sp
 * stays 0 until the G has a stack (gobuf_set_stack): a G gets its stack
 * when it first runs (sched/gproc.c, gstack_attach). Go's newproc1 writes
 * the return address (goexit) onto the new stack; gmk leaves it to the G,
 * so that starting a G touches its record only.
 */
static inline void gobuf_init(struct gobuf *b, void *g)
{
	b->sp = 0;
	b->pc = (uintptr_t)goentry;
	b->g = g;
}

/* The fresh context b starts on the stack whose top is sp_top. */
static inline void gobuf_set_stack(struct gobuf *b, uintptr_t sp_top)
{
	b->sp = (sp_top & ~(uintptr_t)15) - 8;
}
#endif

#endif
