/*
 * x86-64 atomic primitives for kernel/atomic.h, in inline assembly. Only
 * through kernel/atomic.h, which builds the whole API from them.
 *
 * x86 is TSO: every plain load already has acquire semantics and every
 * plain store release semantics, as far as the hardware goes; the only
 * reordering the CPU does is a later load passing an earlier store (to a
 * different address). So load/store are a mov plus a compiler barrier
 * ("memory" clobber) that keeps the compiler from moving other accesses
 * across them. Every `lock`-prefixed instruction and xchg with memory is a
 * full barrier, which gives cas/xadd/xchg/or/and sequential consistency,
 * and makes the generic casrel (cas) and storesc (xchg, as Go's
 * atomic.Store on amd64) what kernel/atomic.h promises. Only smp_mb needs
 * an instruction of its own.
 */
#ifndef GMK_ARCH_X86_64_ATOMIC_ARCH_H
#define GMK_ARCH_X86_64_ATOMIC_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "barrier.h"

/* width, C type, operand-size suffix of the instructions */
#define X86_ATOMIC_OPS(w, T, sfx)                                              \
	/* load-acquire: a plain mov (TSO) + compiler barrier */               \
	static inline T arch_atomic_load##w(const volatile T *p)              \
	{                                                                      \
		T v;                                                           \
		asm volatile("mov" sfx " %1, %0" : "=r"(v) : "m"(*p) : "memory"); \
		return v;                                                      \
	}                                                                      \
	/* store-release: a plain mov (TSO) + compiler barrier */              \
	static inline void arch_atomic_store##w(volatile T *p, T v)           \
	{                                                                      \
		asm volatile("mov" sfx " %1, %0" : "=m"(*p) : "er"(v) : "memory"); \
	}                                                                      \
	/* lock cmpxchg is a full barrier; ZF says success */                  \
	static inline bool arch_atomic_cas##w(volatile T *p, T old, T new_)   \
	{                                                                      \
		bool ok;                                                       \
		asm volatile("lock cmpxchg" sfx " %3, %1"                      \
			     : "=@ccz"(ok), "+m"(*p), "+a"(old)                \
			     : "r"(new_) : "memory");                          \
		return ok;                                                     \
	}                                                                      \
	/* xchg with memory is implicitly locked: a full barrier */            \
	static inline T arch_atomic_xchg##w(volatile T *p, T v)               \
	{                                                                      \
		asm volatile("xchg" sfx " %0, %1" : "+r"(v), "+m"(*p) : : "memory"); \
		return v;                                                      \
	}                                                                      \
	/* lock xadd, a full barrier; returns the NEW value */                 \
	static inline T arch_atomic_xadd##w(volatile T *p, T d)               \
	{                                                                      \
		T v = d;                                                       \
		asm volatile("lock xadd" sfx " %0, %1" : "+r"(v), "+m"(*p) : : "memory"); \
		return v + d;                                                  \
	}

X86_ATOMIC_OPS(32, uint32_t, "l")
X86_ATOMIC_OPS(64, uint64_t, "q")
#undef X86_ATOMIC_OPS

/* bit set / clear, full barrier (lock or / lock and); no result */
static inline void arch_atomic_or32(volatile uint32_t *p, uint32_t v)
{
	asm volatile("lock orl %1, %0" : "+m"(*p) : "ir"(v) : "memory");
}
#define arch_atomic_or32 arch_atomic_or32

static inline void arch_atomic_and32(volatile uint32_t *p, uint32_t v)
{
	asm volatile("lock andl %1, %0" : "+m"(*p) : "ir"(v) : "memory");
}
#define arch_atomic_and32 arch_atomic_and32

/*
 * Full fence: the one ordering TSO lacks is store->load. A locked add of 0
 * to the top of the stack orders every earlier load and store before every
 * later one, and is cheaper than mfence; mfence would only be needed for
 * non-temporal stores or write-combining memory, which the kernel does not
 * use. The location is the current stack top, which this core owns.
 */
static inline void arch_smp_mb(void)
{
	asm volatile("lock addl $0, (%%rsp)" : : : "memory", "cc");
}

/* TSO keeps loads in order with loads and stores with stores: only the
 * compiler has to be stopped. */
static inline void arch_smp_rmb(void)
{
	compiler_barrier();
}
#define arch_smp_rmb arch_smp_rmb

static inline void arch_smp_wmb(void)
{
	compiler_barrier();
}
#define arch_smp_wmb arch_smp_wmb

#endif
