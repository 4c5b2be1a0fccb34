/* The kernel's page tables (paging.c). */
#ifndef GMK_ARCH_X86_64_PAGING_H
#define GMK_ARCH_X86_64_PAGING_H

#include <stdint.h>

struct phys_range {
	uint64_t base, size;
};

/*
 * Build the kernel's identity map and switch to it (boot core, once):
 * every range in `ranges` (the firmware memory map, RAM and reserved
 * alike: ACPI tables live in reserved ranges) write-back, read-write,
 * no-execute; the kernel image by section (text RX, rodata R, data RW);
 * page 0 unmapped (catches NULL); the AP trampoline page executable; the
 * local APIC / IOAPIC / HPET window uncached.
 */
void paging_init(const struct phys_range *ranges, unsigned n);

/*
 * Map a linear framebuffer at [base, base + size) (it may lie above 4 GiB),
 * write-through: writes reach the screen at once, reads (scrolling) come
 * from the cache. Boot core, after paging_init, before other cores start.
 */
void paging_map_framebuffer(uint64_t base, uint64_t size);

/* CR3 of the kernel's tables, for the secondary cores' trampoline. */
uint64_t paging_root(void);

#endif
