/*
 * Atomics, named after Go's internal/runtime/atomic so that proc.go reads
 * side by side with sched/.
 *
 * Orderings (as in Go):
 *   atomic_load*      load-acquire (Go's Load / LoadAcq)
 *   atomic_store*     store-release (Go's StoreRel); a later load to another
 *                     address may pass it on x86 (not on arm64: LDAR after
 *                     STLR is ordered)
 *   atomic_storesc*   sequentially consistent store (Go's Store): no later
 *                     load passes it (xchg on x86-64, STLR on arm64), for a
 *                     store followed by a load that must see the other
 *                     side's store (Dekker's pattern)
 *   atomic_cas*       sequentially consistent compare-and-swap; true on success
 *   atomic_casrel*    compare-and-swap with release ordering (Go's CasRel)
 *   atomic_xadd*      fetch-and-add, full barrier; returns the NEW value
 *   atomic_xchg*      exchange, full barrier; returns the OLD value
 *   atomic_or32/and32 full barrier, no result
 *   smp_mb/smp_rmb/smp_wmb   explicit fences
 *
 * Suffixes: 32 (uint32_t), 64 (uint64_t), p (void *), uintptr (uintptr_t).
 *
 * The arch supplies primitives on 32- and 64-bit words in its
 * atomic_arch.h (musl's a_cas, a_swap, ... with the orderings above):
 *
 *   arch_atomic_load{32,64}, _store, _cas, _xchg, _xadd, arch_smp_mb
 *
 * and, where it has something better than the fallback below, defines
 * (and #defines to its own name) any of
 *
 *   arch_atomic_storesc{32,64}   fallback: xchg, the result dropped
 *   arch_atomic_casrel{32,64}    fallback: cas (stronger than asked)
 *   arch_atomic_or32, _and32     fallback: a cas loop
 *   arch_smp_rmb, arch_smp_wmb   fallback: smp_mb
 *
 * This header builds the API from them: the pointer-sized forms are the
 * 64-bit ones (every arch gmk has is LP64), and every wrapper is inlined
 * away, so the code is the arch's instructions and nothing else.
 */
#ifndef GMK_KERNEL_ATOMIC_H
#define GMK_KERNEL_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/compiler.h"
#include "atomic_arch.h"
#include "barrier.h"

_Static_assert(sizeof(uintptr_t) == 8 && sizeof(void *) == 8,
	       "the pointer-sized atomics are the 64-bit ones");

#ifndef arch_atomic_storesc32
static __always_inline void arch_atomic_storesc32(volatile uint32_t *p, uint32_t v)
{
	(void)arch_atomic_xchg32(p, v);
}
#endif
#ifndef arch_atomic_storesc64
static __always_inline void arch_atomic_storesc64(volatile uint64_t *p, uint64_t v)
{
	(void)arch_atomic_xchg64(p, v);
}
#endif
#ifndef arch_atomic_casrel32
#define arch_atomic_casrel32 arch_atomic_cas32
#endif
#ifndef arch_atomic_casrel64
#define arch_atomic_casrel64 arch_atomic_cas64
#endif
#ifndef arch_atomic_or32
static __always_inline void arch_atomic_or32(volatile uint32_t *p, uint32_t v)
{
	uint32_t old;

	do
		old = arch_atomic_load32(p);
	while (!arch_atomic_cas32(p, old, old | v));
}
#endif
#ifndef arch_atomic_and32
static __always_inline void arch_atomic_and32(volatile uint32_t *p, uint32_t v)
{
	uint32_t old;

	do
		old = arch_atomic_load32(p);
	while (!arch_atomic_cas32(p, old, old & v));
}
#endif
#ifndef arch_smp_rmb
#define arch_smp_rmb arch_smp_mb
#endif
#ifndef arch_smp_wmb
#define arch_smp_wmb arch_smp_mb
#endif

/*
 * The API for type T on the w-bit primitives. Values go through uintptr_t,
 * the one integer type that both a pointer and a 64-bit word convert to
 * and from without loss or a warning.
 */
#define ATOMIC_OPS(sfx, T, w)                                                  \
	static __always_inline T atomic_load##sfx(const volatile T *p)        \
	{                                                                      \
		return (T)(uintptr_t)arch_atomic_load##w(                      \
			(const volatile uint##w##_t *)p);                      \
	}                                                                      \
	static __always_inline void atomic_store##sfx(volatile T *p, T v)     \
	{                                                                      \
		arch_atomic_store##w((volatile uint##w##_t *)p,                \
				     (uint##w##_t)(uintptr_t)v);               \
	}                                                                      \
	static __always_inline void atomic_storesc##sfx(volatile T *p, T v)   \
	{                                                                      \
		arch_atomic_storesc##w((volatile uint##w##_t *)p,              \
				       (uint##w##_t)(uintptr_t)v);             \
	}                                                                      \
	static __always_inline bool atomic_cas##sfx(volatile T *p, T old, T new_) \
	{                                                                      \
		return arch_atomic_cas##w((volatile uint##w##_t *)p,           \
					  (uint##w##_t)(uintptr_t)old,         \
					  (uint##w##_t)(uintptr_t)new_);       \
	}                                                                      \
	static __always_inline bool atomic_casrel##sfx(volatile T *p, T old, T new_) \
	{                                                                      \
		return arch_atomic_casrel##w((volatile uint##w##_t *)p,        \
					     (uint##w##_t)(uintptr_t)old,      \
					     (uint##w##_t)(uintptr_t)new_);    \
	}                                                                      \
	static __always_inline T atomic_xchg##sfx(volatile T *p, T v)         \
	{                                                                      \
		return (T)(uintptr_t)arch_atomic_xchg##w(                      \
			(volatile uint##w##_t *)p, (uint##w##_t)(uintptr_t)v); \
	}

ATOMIC_OPS(32, uint32_t, 32)
ATOMIC_OPS(64, uint64_t, 64)
ATOMIC_OPS(uintptr, uintptr_t, 64)
ATOMIC_OPS(p, void *, 64)
#undef ATOMIC_OPS

static __always_inline uint32_t atomic_xadd32(volatile uint32_t *p, int32_t d)
{
	return arch_atomic_xadd32(p, (uint32_t)d);
}

static __always_inline uint64_t atomic_xadd64(volatile uint64_t *p, int64_t d)
{
	return arch_atomic_xadd64(p, (uint64_t)d);
}

static __always_inline uintptr_t atomic_xadduintptr(volatile uintptr_t *p, intptr_t d)
{
	return arch_atomic_xadd64((volatile uint64_t *)p, (uint64_t)d);
}

static __always_inline void atomic_or32(volatile uint32_t *p, uint32_t v)
{
	arch_atomic_or32(p, v);
}

static __always_inline void atomic_and32(volatile uint32_t *p, uint32_t v)
{
	arch_atomic_and32(p, v);
}

static __always_inline void smp_mb(void)  { arch_smp_mb(); }
static __always_inline void smp_rmb(void) { arch_smp_rmb(); }
static __always_inline void smp_wmb(void) { arch_smp_wmb(); }

#endif
