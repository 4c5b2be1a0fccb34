/*
 * Atomics, named after Go's internal/runtime/atomic so that proc.go reads
 * side by side with sched/. Every architecture supplies the same functions
 * in arch/<arch>/atomic.h; the hosted build (tests/host) maps them onto the
 * compiler's __atomic builtins so that ThreadSanitizer sees them.
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
 */
#ifndef GMK_KERNEL_ATOMIC_H
#define GMK_KERNEL_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic_arch.h"

#endif
