/*
 * compiler_barrier(): Linux's barrier(). The compiler moves no memory
 * access across it; the CPU may (smp_mb and friends order the CPU). An
 * empty asm with a memory clobber, the same on every arch: it emits no
 * instruction. Only through kernel/atomic.h.
 */
#ifndef GMK_ARCH_GENERIC_BARRIER_H
#define GMK_ARCH_GENERIC_BARRIER_H

#define compiler_barrier()	asm volatile("" : : : "memory")

#endif
