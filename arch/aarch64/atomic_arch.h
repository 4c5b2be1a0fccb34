/*
 * aarch64 atomic primitives for kernel/atomic.h, in hand-written inline
 * assembly. Only through kernel/atomic.h, which builds the whole API from
 * them.
 *
 * Plain ARMv8.0 (the build's -march=armv8-a has no LSE): loads are LDAR,
 * stores STLR, read-modify-writes are load-exclusive / store-exclusive
 * loops. The exclusives only work on Normal cacheable memory, i.e. after
 * the MMU is on (start.S turns it on before any C code that could use
 * them). LSE (CAS, LDADD, SWP) would shorten contended loops on big
 * machines, but needs a runtime check of ID_AA64ISAR0_EL1.Atomic and two
 * code paths; on the targets gmk runs on the loops are correct and cheap,
 * so there is one path.
 *
 * Orderings, matching Go's internal/runtime/atomic on arm64:
 *   load   LDAR: acquire. Later accesses cannot move before it.
 *   store  STLR: release. Earlier accesses cannot move after it. An STLR
 *          followed by an LDAR is not reordered either (RCsc), which makes
 *          loads/stores/RMWs sequentially consistent among themselves:
 *          storesc (Go's Store) is the same STLR.
 *   cas, xadd, xchg, or32, and32
 *          LDAXR/STLXR loop then DMB ISH: a full barrier, for plain
 *          accesses on both sides too (the acquire/release pair alone lets
 *          a plain load after the RMW pass a plain store before it). A
 *          failed cas has acquire ordering only (LDAXR), like Go's.
 *   casrel LDXR/STLXR: release only (Go's CasRel, used by runq consumers
 *          to commit a head after reading slots).
 */
#ifndef GMK_ARCH_AARCH64_ATOMIC_ARCH_H
#define GMK_ARCH_AARCH64_ATOMIC_ARCH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Compare-and-swap: ld, the exclusive load (its acquire or none), and
 * fence, what follows a successful store (a full barrier or none); the
 * store is STLXR (release) either way. A failed compare skips the fence.
 */
#define A64_ATOMIC_CAS(name, T, W, ld, fence)                                \
	static inline bool name(volatile T *p, T old, T new_)                \
	{                                                                     \
		T cur;                                                        \
		uint32_t fail;                                                \
		asm volatile("1:	" ld "	%" W "0, %2\n"                \
			     "	cmp	%" W "0, %" W "3\n"                   \
			     "	b.ne	2f\n"                                 \
			     "	stlxr	%w1, %" W "4, %2\n"                   \
			     "	cbnz	%w1, 1b" fence "\n"                   \
			     "2:"                                             \
			     : "=&r"(cur), "=&r"(fail), "+Q"(*p)              \
			     : "r"(old), "r"(new_)                            \
			     : "cc", "memory");                               \
		return cur == old;                                            \
	}

/*
 * One set of functions per width. W is the register-name modifier ("w"
 * for 32-bit, "x" for 64-bit); cmp takes the same width. "Q" is a memory
 * operand addressed by a single base register, as the exclusives need.
 */
#define A64_ATOMIC_OPS(w, T, W)                                               \
	/* load-acquire */                                                    \
	static inline T arch_atomic_load##w(const volatile T *p)             \
	{                                                                     \
		T v;                                                          \
		asm volatile("ldar %" W "0, %1"                               \
			     : "=r"(v) : "Q"(*p) : "memory");                 \
		return v;                                                     \
	}                                                                     \
	/* store-release */                                                   \
	static inline void arch_atomic_store##w(volatile T *p, T v)          \
	{                                                                     \
		asm volatile("stlr %" W "1, %0"                               \
			     : "=Q"(*p) : "r"(v) : "memory");                 \
	}                                                                     \
	/* seq-cst store (Go's Store): STLR already, as Go's on arm64: a     \
	 * later LDAR does not pass it (RCsc) */                              \
	static inline void arch_atomic_storesc##w(volatile T *p, T v)        \
	{                                                                     \
		arch_atomic_store##w(p, v);                                   \
	}                                                                     \
	/* seq-cst on success (full barrier), acquire on failure */           \
	A64_ATOMIC_CAS(arch_atomic_cas##w, T, W, "ldaxr", "\n\tdmb ish")     \
	/* release only: earlier accesses happen before the new value is     \
	 * visible; later ones may move before it (Go's CasRel) */            \
	A64_ATOMIC_CAS(arch_atomic_casrel##w, T, W, "ldxr", "")               \
	/* full barrier; returns the OLD value */                             \
	static inline T arch_atomic_xchg##w(volatile T *p, T v)              \
	{                                                                     \
		T old;                                                        \
		uint32_t fail;                                                \
		asm volatile("1:	ldaxr	%" W "0, %2\n"                \
			     "	stlxr	%w1, %" W "3, %2\n"                   \
			     "	cbnz	%w1, 1b\n"                            \
			     "	dmb	ish"                                  \
			     : "=&r"(old), "=&r"(fail), "+Q"(*p)              \
			     : "r"(v)                                         \
			     : "memory");                                     \
		return old;                                                   \
	}

/* Fetch-and-op, full barrier: *p = *p op d; returns the NEW value. */
#define A64_ATOMIC_RMW(name, T, W, op)                                        \
	static inline T name(volatile T *p, T d)                             \
	{                                                                     \
		T v;                                                          \
		uint32_t fail;                                                \
		asm volatile("1:	ldaxr	%" W "0, %2\n"                \
			     "	" op "	%" W "0, %" W "0, %" W "3\n"          \
			     "	stlxr	%w1, %" W "0, %2\n"                   \
			     "	cbnz	%w1, 1b\n"                            \
			     "	dmb	ish"                                  \
			     : "=&r"(v), "=&r"(fail), "+Q"(*p)                \
			     : "r"(d)                                         \
			     : "memory");                                     \
		return v;                                                     \
	}

A64_ATOMIC_OPS(32, uint32_t, "w")
A64_ATOMIC_OPS(64, uint64_t, "x")
A64_ATOMIC_RMW(arch_atomic_xadd32, uint32_t, "w", "add")
A64_ATOMIC_RMW(arch_atomic_xadd64, uint64_t, "x", "add")
A64_ATOMIC_RMW(a64_atomic_orr32, uint32_t, "w", "orr")
A64_ATOMIC_RMW(a64_atomic_and32, uint32_t, "w", "and")
#undef A64_ATOMIC_OPS
#undef A64_ATOMIC_CAS
#undef A64_ATOMIC_RMW
#define arch_atomic_storesc32 arch_atomic_storesc32
#define arch_atomic_storesc64 arch_atomic_storesc64
#define arch_atomic_casrel32 arch_atomic_casrel32
#define arch_atomic_casrel64 arch_atomic_casrel64

/* Full barrier (as the x86 `lock or`): used to post IPI reasons. */
static inline void arch_atomic_or32(volatile uint32_t *p, uint32_t v)
{
	(void)a64_atomic_orr32(p, v);
}
#define arch_atomic_or32 arch_atomic_or32

static inline void arch_atomic_and32(volatile uint32_t *p, uint32_t v)
{
	(void)a64_atomic_and32(p, v);
}
#define arch_atomic_and32 arch_atomic_and32

/* Fences, inner-shareable domain (every core, not devices): full,
 * loads-before-everything (acquire fence), stores-before-stores. */
static inline void arch_smp_mb(void)  { asm volatile("dmb ish" : : : "memory"); }
static inline void arch_smp_rmb(void) { asm volatile("dmb ishld" : : : "memory"); }
static inline void arch_smp_wmb(void) { asm volatile("dmb ishst" : : : "memory"); }
#define arch_smp_rmb arch_smp_rmb
#define arch_smp_wmb arch_smp_wmb

#endif
