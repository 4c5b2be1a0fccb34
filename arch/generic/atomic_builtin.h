/*
 * The atomic primitives of kernel/atomic.h on the compiler's __atomic
 * builtins, with the orderings it promises: for an arch without primitives
 * of its own, and for builds whose tools cannot see into inline assembly
 * (ThreadSanitizer: arch/x86_64-linux/atomic_arch.h). Only through an
 * arch's atomic_arch.h.
 */
#ifndef GMK_ARCH_GENERIC_ATOMIC_BUILTIN_H
#define GMK_ARCH_GENERIC_ATOMIC_BUILTIN_H

#include <stdbool.h>
#include <stdint.h>

#define BUILTIN_ATOMIC_OPS(w, T)                                               \
	static inline T arch_atomic_load##w(const volatile T *p)              \
	{ return __atomic_load_n(p, __ATOMIC_ACQUIRE); }                       \
	static inline void arch_atomic_store##w(volatile T *p, T v)           \
	{ __atomic_store_n(p, v, __ATOMIC_RELEASE); }                          \
	static inline void arch_atomic_storesc##w(volatile T *p, T v)         \
	{ __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }                          \
	static inline bool arch_atomic_cas##w(volatile T *p, T old, T new_)   \
	{ return __atomic_compare_exchange_n(p, &old, new_, false,             \
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }                         \
	static inline bool arch_atomic_casrel##w(volatile T *p, T old, T new_) \
	{ return __atomic_compare_exchange_n(p, &old, new_, false,             \
		__ATOMIC_RELEASE, __ATOMIC_RELAXED); }                         \
	static inline T arch_atomic_xchg##w(volatile T *p, T v)               \
	{ return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }                \
	static inline T arch_atomic_xadd##w(volatile T *p, T d)               \
	{ return __atomic_add_fetch(p, d, __ATOMIC_SEQ_CST); }

BUILTIN_ATOMIC_OPS(32, uint32_t)
BUILTIN_ATOMIC_OPS(64, uint64_t)
#undef BUILTIN_ATOMIC_OPS
#define arch_atomic_storesc32 arch_atomic_storesc32
#define arch_atomic_storesc64 arch_atomic_storesc64
#define arch_atomic_casrel32 arch_atomic_casrel32
#define arch_atomic_casrel64 arch_atomic_casrel64

static inline void arch_atomic_or32(volatile uint32_t *p, uint32_t v)
{ __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
static inline void arch_atomic_and32(volatile uint32_t *p, uint32_t v)
{ __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
#define arch_atomic_or32 arch_atomic_or32
#define arch_atomic_and32 arch_atomic_and32

static inline void arch_smp_mb(void)  { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void arch_smp_rmb(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void arch_smp_wmb(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
#define arch_smp_rmb arch_smp_rmb
#define arch_smp_wmb arch_smp_wmb

#endif
