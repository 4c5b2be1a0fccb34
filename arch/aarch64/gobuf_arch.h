/*
 * aarch64's part of struct gobuf (kernel/gobuf.h). mcall pushes the
 * callee-saved registers of the AAPCS64: x19-x28, the frame pointer x29,
 * the link register x30 and the low 64 bits of v8-v15 (d8-d15).
 * FPCR/FPSR are not callee-saved, and gmk never changes them. Only
 * through kernel/gobuf.h.
 */
#ifndef GMK_ARCH_AARCH64_GOBUF_ARCH_H
#define GMK_ARCH_AARCH64_GOBUF_ARCH_H

/*
 * The block mcall pushes, from the saved sp up (tools/gmk-gdb.py reads
 * it): the frame record x29, x30 first, so that sp is a frame pointer of
 * the parked G; then x19..x28, then d8..d15. 16-aligned.
 */
#define MCALL_X29	0
#define MCALL_X19	16
#define MCALL_D8	96
#define MCALL_FRAME	160
/* Where in that block a frame record {fp, return address} lies: the
 * parked G's stack walk starts there (sched/traceback.c). */
#define MCALL_FP_RECORD	MCALL_X29

/* Each G's picolibc TLS block (tls.c): a 16-byte thread control block and
 * the TLS image, in the G-local area at the top of its stack
 * (kernel/glocal.h). gogo points TPIDR_EL0 at it. linker/aarch64.ld
 * checks that the image fits. */
#define GLOCAL_ARCH_TLS	64

#ifndef __ASSEMBLY__
#include <stdint.h>

/* What gswitch writes below its caller's stack pointer: mcall's block
 * (bl pushes nothing; sched/schedimpl.h's park_direct checks the stack
 * for it before the switch). */
#define GSWITCH_PUSH	MCALL_FRAME

/* n bytes below the calling function's stack pointer (n a constant under
 * 4096), in one instruction. In a function body sp stays where the
 * prologue put it (gmk passes no arguments on the stack). */
#define arch_sp_below(n)						\
	({								\
		uintptr_t sp_;						\
		asm volatile("sub %0, sp, %1" : "=r"(sp_) : "I"(n));	\
		sp_;							\
	})

/* gogo by a branch (kernel/gobuf.h's gogo_jump): buf in x0, as gogo
 * takes it; gogo uses nothing of the caller's frame. */
#define arch_gogo_jump(buf)						\
	do {								\
		register void *x0_ asm("x0") = (buf);			\
		asm volatile("b gogo" : : "r"(x0_) : "memory");	\
		__builtin_unreachable();				\
	} while (0)

/* A fresh G's sp: the stack's top, 16-aligned as AAPCS64 wants. goentry
 * branches to gstart with x29 = x30 = 0. */
static inline uintptr_t arch_gobuf_entry_sp(uintptr_t sp_top)
{
	return sp_top & ~(uintptr_t)15;
}

/* The block's thread control block, before the TLS image (tls.c; the
 * linker script checks that picolibc's agrees). */
#define TLS_TCB_SIZE	16

/* tls.c: whether the TLS image is all .tbss (picolibc's errno and
 * friends: no thread-local variable with an initial value), set at
 * boot; and the general case, the image copied into a block. */
extern _Bool arch_tls_all_bss;
void arch_glocal_tls_init_image(void *block);

/* A G's TLS block as a new thread's (kernel/glocal.h): inline on the path
 * of every go(). An all-.tbss image is six stores, where picolibc's
 * _init_tls would copy an empty .tdata and clear the rest through memcpy
 * and memset. */
static inline void arch_glocal_tls_init(void *block)
{
	if (__builtin_expect(arch_tls_all_bss, 1)) {
		/* Stores written out: gcc would make a loop a memset call. */
		_Static_assert(GLOCAL_ARCH_TLS - TLS_TCB_SIZE == 6 * 8, "the stores below");
		uint64_t *w = (uint64_t *)((uint8_t *)block + TLS_TCB_SIZE);
		w[0] = 0; w[1] = 0; w[2] = 0; w[3] = 0; w[4] = 0; w[5] = 0;
		return;
	}
	arch_glocal_tls_init_image(block);
}
#define arch_glocal_tls_init arch_glocal_tls_init
#endif

#endif
