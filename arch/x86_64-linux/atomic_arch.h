/*
 * Atomics of x86-64 code in a Linux process. The default build runs
 * x86_64's own (the next atomic_arch.h on the include path: inline
 * assembly, user-mode code like any other), so that the hosted figures
 * are the kernel's. GMK_HOST_BUILTIN_ATOMICS
 * (the ThreadSanitizer builds: TSan cannot see into inline assembly) puts
 * the same API on the compiler's __atomic builtins, with the orderings
 * kernel/atomic.h promises. Only included through kernel/atomic.h.
 */
#ifndef GMK_ARCH_X86_64_LINUX_ATOMIC_ARCH_H
#define GMK_ARCH_X86_64_LINUX_ATOMIC_ARCH_H

#ifndef GMK_HOST_BUILTIN_ATOMICS
#include_next "atomic_arch.h"
#else

#include <stdbool.h>
#include <stdint.h>

#define GMK_HOST_ATOMIC_OPS(sfx, T)                                            \
	static inline T atomic_load##sfx(const volatile T *p)                 \
	{ return (T)__atomic_load_n(p, __ATOMIC_ACQUIRE); }                    \
	static inline void atomic_store##sfx(volatile T *p, T v)              \
	{ __atomic_store_n(p, v, __ATOMIC_RELEASE); }                          \
	static inline void atomic_storesc##sfx(volatile T *p, T v)            \
	{ __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }                          \
	static inline bool atomic_cas##sfx(volatile T *p, T old, T new_)      \
	{ return __atomic_compare_exchange_n(p, &old, new_, false,             \
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }                         \
	static inline bool atomic_casrel##sfx(volatile T *p, T old, T new_)   \
	{ return __atomic_compare_exchange_n(p, &old, new_, false,             \
		__ATOMIC_RELEASE, __ATOMIC_RELAXED); }                         \
	static inline T atomic_xchg##sfx(volatile T *p, T v)                  \
	{ return (T)__atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }

GMK_HOST_ATOMIC_OPS(32, uint32_t)
GMK_HOST_ATOMIC_OPS(64, uint64_t)
GMK_HOST_ATOMIC_OPS(uintptr, uintptr_t)
GMK_HOST_ATOMIC_OPS(p, void *)
#undef GMK_HOST_ATOMIC_OPS

static inline uint32_t atomic_xadd32(volatile uint32_t *p, int32_t d)
{ return __atomic_add_fetch(p, (uint32_t)d, __ATOMIC_SEQ_CST); }
static inline uint64_t atomic_xadd64(volatile uint64_t *p, int64_t d)
{ return __atomic_add_fetch(p, (uint64_t)d, __ATOMIC_SEQ_CST); }
static inline uintptr_t atomic_xadduintptr(volatile uintptr_t *p, intptr_t d)
{ return __atomic_add_fetch(p, (uintptr_t)d, __ATOMIC_SEQ_CST); }
static inline void atomic_or32(volatile uint32_t *p, uint32_t v)
{ __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
static inline void atomic_and32(volatile uint32_t *p, uint32_t v)
{ __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }

static inline void smp_mb(void)  { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void smp_rmb(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void smp_wmb(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }

#endif /* GMK_HOST_BUILTIN_ATOMICS */
#endif
