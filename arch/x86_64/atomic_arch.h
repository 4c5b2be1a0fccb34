/*
 * x86-64 atomics for kernel/atomic.h, in inline assembly.
 *
 * x86 is TSO: every plain load already has acquire semantics and every
 * plain store release semantics, as far as the hardware goes; the only
 * reordering the CPU does is a later load passing an earlier store (to a
 * different address). So load/store are a mov plus a compiler barrier
 * ("memory" clobber) that keeps the compiler from moving other accesses
 * across them. Every `lock`-prefixed instruction and xchg with memory is a
 * full barrier, which gives cas/xadd/xchg/or/and sequential consistency.
 * Only smp_mb and atomic_storesc need an instruction for it (store->load
 * ordering: xchg for the store, as Go's atomic.Store on amd64).
 */
#ifndef GMK_ARCH_X86_64_ATOMIC_ARCH_H
#define GMK_ARCH_X86_64_ATOMIC_ARCH_H

#include <stdbool.h>
#include <stdint.h>

/* sfx, C type, operand-size suffix of the instructions */
#define GMK_X86_ATOMIC_OPS(sfx, T, w)                                          \
	/* load-acquire: a plain mov (TSO) + compiler barrier */               \
	static inline T atomic_load##sfx(const volatile T *p)                 \
	{                                                                      \
		T v;                                                           \
		asm volatile("mov" w " %1, %0" : "=r"(v) : "m"(*p) : "memory"); \
		return v;                                                      \
	}                                                                      \
	/* store-release: a plain mov (TSO) + compiler barrier */              \
	static inline void atomic_store##sfx(volatile T *p, T v)              \
	{                                                                      \
		asm volatile("mov" w " %1, %0" : "=m"(*p) : "er"(v) : "memory"); \
	}                                                                      \
	/* seq-cst CAS: lock cmpxchg is a full barrier; ZF says success */     \
	static inline bool atomic_cas##sfx(volatile T *p, T old, T new_)      \
	{                                                                      \
		bool ok;                                                       \
		asm volatile("lock cmpxchg" w " %3, %1"                        \
			     : "=@ccz"(ok), "+m"(*p), "+a"(old)                \
			     : "r"(new_) : "memory");                          \
		return ok;                                                     \
	}                                                                      \
	/* CAS-release: the same lock cmpxchg (stronger than asked) */         \
	static inline bool atomic_casrel##sfx(volatile T *p, T old, T new_)   \
	{                                                                      \
		return atomic_cas##sfx(p, old, new_);                          \
	}                                                                      \
	/* exchange, full barrier: xchg with memory is implicitly locked */    \
	static inline T atomic_xchg##sfx(volatile T *p, T v)                  \
	{                                                                      \
		asm volatile("xchg" w " %0, %1" : "+r"(v), "+m"(*p) : : "memory"); \
		return v;                                                      \
	}                                                                      \
	/* seq-cst store (Go's Store): xchg, as Go's on amd64, so that no     \
	 * later load passes it (a mov may wait in the store buffer) */        \
	static inline void atomic_storesc##sfx(volatile T *p, T v)            \
	{                                                                      \
		asm volatile("xchg" w " %0, %1" : "+r"(v), "+m"(*p) : : "memory"); \
	}

GMK_X86_ATOMIC_OPS(32, uint32_t, "l")
GMK_X86_ATOMIC_OPS(64, uint64_t, "q")
GMK_X86_ATOMIC_OPS(uintptr, uintptr_t, "q")
GMK_X86_ATOMIC_OPS(p, void *, "q")
#undef GMK_X86_ATOMIC_OPS

/* fetch-and-add, full barrier (lock xadd); returns the NEW value */
static inline uint32_t atomic_xadd32(volatile uint32_t *p, int32_t d)
{
	uint32_t v = (uint32_t)d;

	asm volatile("lock xaddl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v + (uint32_t)d;
}

static inline uint64_t atomic_xadd64(volatile uint64_t *p, int64_t d)
{
	uint64_t v = (uint64_t)d;

	asm volatile("lock xaddq %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v + (uint64_t)d;
}

static inline uintptr_t atomic_xadduintptr(volatile uintptr_t *p, intptr_t d)
{
	return (uintptr_t)atomic_xadd64((volatile uint64_t *)p, d);
}

/* bit set / clear, full barrier (lock or / lock and); no result */
static inline void atomic_or32(volatile uint32_t *p, uint32_t v)
{
	asm volatile("lock orl %1, %0" : "+m"(*p) : "ir"(v) : "memory");
}

static inline void atomic_and32(volatile uint32_t *p, uint32_t v)
{
	asm volatile("lock andl %1, %0" : "+m"(*p) : "ir"(v) : "memory");
}

/*
 * Full fence: the one ordering TSO lacks is store->load. A locked add of 0
 * to the top of the stack orders every earlier load and store before every
 * later one, and is cheaper than mfence; mfence would only be needed for
 * non-temporal stores or write-combining memory, which the kernel does not
 * use. The location is the current stack top, which this core owns.
 */
static inline void smp_mb(void)
{
	asm volatile("lock addl $0, (%%rsp)" : : : "memory", "cc");
}

/* TSO keeps loads in order with loads and stores with stores: only the
 * compiler has to be stopped. */
static inline void smp_rmb(void)
{
	asm volatile("" : : : "memory");
}

static inline void smp_wmb(void)
{
	asm volatile("" : : : "memory");
}

#endif
