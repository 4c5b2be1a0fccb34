/*
 * Device registers by address (memory-mapped I/O), for every driver:
 * each access is one volatile load or store of the register's width,
 * which the compiler neither drops, merges nor reorders with another.
 * Ordering against normal memory (a ring written before its doorbell) is
 * the caller's, with a fence where it matters. A register is at its
 * natural alignment; tables the firmware leaves in RAM at any alignment
 * are read otherwise (boards/platform/pc/fwtable.h).
 */
#ifndef GMK_KERNEL_MMIO_H
#define GMK_KERNEL_MMIO_H

#include <stdint.h>

static inline uint8_t rd8(uintptr_t a) { return *(volatile uint8_t *)a; }
static inline uint32_t rd32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline uint64_t rd64(uintptr_t a) { return *(volatile uint64_t *)a; }
static inline void wr8(uintptr_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
static inline void wr32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline void wr64(uintptr_t a, uint64_t v) { *(volatile uint64_t *)a = v; }

#endif
