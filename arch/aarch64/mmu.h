/*
 * The kernel's address space on aarch64: one identity-mapped set of
 * translation tables shared by every core (TTBR0_EL1, 4 KiB granule,
 * 39-bit VA, three levels). Built by the boot core before the MMU is on
 * (mmu_boot_setup, called from start.S), then enabled on each core with
 * mmu_enable_this_cpu (start.S).
 *
 * Memory types: RAM is Normal write-back, inner shareable (what the
 * exclusives and the caches need); the device window (below RAM, or above
 * it when RAM starts at 0; see mmu.c) is Device-nGnRE, never executable;
 * the first 2 MiB and everything else stay unmapped, so that NULL and
 * wild pointers fault. Kernel text is read-only and
 * executable, rodata read-only, everything else (data, bss, the rest of
 * RAM) read-write and never executable, and SCTLR.WXN enforces W^X.
 */
#ifndef GMK_ARCH_AARCH64_MMU_H
#define GMK_ARCH_AARCH64_MMU_H

#include <stdbool.h>
#include <stdint.h>

#define MMU_MAX_RAM		(4ull << 30)	/* RAM mapped at most, in bytes */
#define MMU_MAX_RAM_REGIONS	8
#define MMU_NULL_GUARD		(2ull << 20)	/* unmapped at address 0 */
#define MMU_DEVICE_END		(4ull << 30)	/* device window ends here at most */

/* The values every core loads into its MMU registers (start.S reads them
 * with the MMU off, so only the boot core writes them, before its own MMU
 * is on). Field offsets are used by start.S. */
struct mmu_regs {
	uint64_t mair;		/* +0 */
	uint64_t tcr;		/* +8 */
	uint64_t ttbr0;		/* +16 */
	uint64_t sctlr;		/* +24 */
};
extern struct mmu_regs mmu_regs;

/* Boot core, MMU off: find RAM (DTB /memory, or a fallback window around
 * the kernel), build the tables, fill mmu_regs. `dtb` may be 0. */
void mmu_boot_setup(uintptr_t dtb);

/* RAM that is mapped (clipped to MMU_MAX_RAM in all); false past the end. */
bool mmu_ram_region(unsigned i, uintptr_t *base, uintptr_t *size);
/* Where the translation tables live (after the kernel image): RAM that the
 * page allocator must not hand out. */
void mmu_tables_range(uintptr_t *start, uintptr_t *end);

/* After boot: map the page holding `pa`, which is neither RAM nor in the
 * device window (a firmware page such as a spin table), as Device memory;
 * and take it away again. */
void mmu_map_boot_page(uintptr_t pa);
void mmu_unmap_boot_page(uintptr_t pa);

#endif
