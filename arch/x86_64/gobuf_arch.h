/*
 * x86-64's part of struct gobuf (kernel/gobuf.h). mcall pushes the
 * callee-saved registers of the SysV ABI: rbx, rbp, r12-r15.
 *
 * The MXCSR control bits and the x87 control word, callee-saved too, are
 * not kept per G: gmk runs every G and the scheduler with the power-on
 * defaults (X86_MXCSR_DEFAULT, X86_FPUCW_DEFAULT: cpu.c sets them at
 * boot; an interrupt sets them for its handler, preempt.S, and a
 * preempted G's own modes stay in its frame copy), so at every voluntary
 * switch they already hold the values the next G expects. As in Go,
 * whose gogo does not save them either: code that changes them must
 * restore them before anything that may switch (a channel operation, a
 * lock, gosched), as it must before it returns. This saves a ldmxcsr and
 * a fldcw, two slow instructions, per switch. Only through kernel/gobuf.h.
 */
#ifndef GMK_ARCH_X86_64_GOBUF_ARCH_H
#define GMK_ARCH_X86_64_GOBUF_ARCH_H

/* What mcall pushes below the return address: rbp, rbx, r12-r15, in
 * this order, so from the saved sp up: r15 r14 r13 r12 rbx rbp, then the
 * return address (tools/gmk-gdb.py reads them there). */
#define MCALL_FRAME_REGS 6
/* rbp and the return address above it are a frame record {fp, return
 * address}: the parked G's stack walk starts there (sched/traceback.c). */
#define MCALL_FP_RECORD	(8 * (MCALL_FRAME_REGS - 1))

/* newlib keeps its per-thread state in a struct _reent that __getreent
 * finds (newlib_stubs.c): a G's is allocated on its first use and freed
 * when it exits (kernel/glocal.h). */
#define GLOCAL_ARCH_LIBC 1

#ifndef __ASSEMBLY__
#include <stdint.h>

/* gogo by a jump (kernel/gobuf.h's gogo_jump): buf in rdi, as gogo takes
 * it; gogo uses nothing of the caller's frame. */
#define arch_gogo_jump(buf)						\
	do {								\
		asm volatile("jmp gogo" : : "D"(buf) : "memory");	\
		__builtin_unreachable();				\
	} while (0)

/* What gswitch writes below its caller's stack pointer: the return
 * address and MCALL_FRAME_REGS registers (sched/schedimpl.h's park_direct
 * checks the stack for it before the switch). */
#define GSWITCH_PUSH	(8 + 8 * MCALL_FRAME_REGS)

/* n bytes below the calling function's stack pointer (n a constant), in
 * one instruction. In a function body rsp stays where the prologue put
 * it: the SysV ABI passes gmk's arguments in registers. */
#define arch_sp_below(n)						\
	({								\
		uintptr_t sp_;						\
		asm volatile("lea -%c1(%%rsp), %0" : "=r"(sp_) : "i"(n)); \
		sp_;							\
	})

/* A fresh G's sp: rsp = 8 mod 16, as if `call` had pushed a return
 * address (the ABI). goentry zeroes rbp and stores a zero return address
 * there, so that backtraces end at gstart. */
static inline uintptr_t arch_gobuf_entry_sp(uintptr_t sp_top)
{
	return (sp_top & ~(uintptr_t)15) - 8;
}
#endif

#endif
