/*
 * x86-64 4-level page tables: one identity map shared by every core.
 *
 * Most memory is mapped with 2 MiB pages. Where protections differ within
 * 2 MiB (the kernel image, the first 2 MiB with page 0 and the trampoline)
 * and where arch_unmap_page/arch_map_page need single pages (guard pages
 * below G stacks), the 2 MiB page is split into a table of 4 KiB pages.
 * Splitting keeps every other translation identical, so other cores'
 * stale TLB entries for the large page remain correct except for the one
 * page being changed (see arch_unmap_page).
 *
 * Tables come from a static pool while booting and from page_alloc later.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch/x86_64/paging.h"
#include "arch/x86_64/x86.h"
#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/page.h"
#include "kernel/panic.h"

#define PTE_P		0x001ull
#define PTE_W		0x002ull
#define PTE_PWT		0x008ull
#define PTE_PCD		0x010ull
#define PTE_PS		0x080ull	/* large page (in a PD or PDPT entry) */
#define PTE_NX		(1ull << 63)
#define PTE_ADDR	0x000ffffffffff000ull

#define PT_ENTRIES	512
#define PAGE_4K		4096ull
#define PAGE_2M		(2ull << 20)

/* Leaf protections. */
#define PROT_TEXT	(PTE_P)				/* read, execute */
#define PROT_RODATA	(PTE_P | PTE_NX)
#define PROT_DATA	(PTE_P | PTE_W | PTE_NX)
#define PROT_CODE_RW	(PTE_P | PTE_W)			/* the AP trampoline */
#define PROT_MMIO	(PTE_P | PTE_W | PTE_NX | PTE_PCD | PTE_PWT)	/* UC */
#define PROT_FB		(PTE_P | PTE_W | PTE_NX | PTE_PWT)	/* WT (PAT 1) */

/* Device window: IOAPIC 0xFEC00000, HPET 0xFED00000, LAPIC 0xFEE00000. */
#define MMIO_BASE	0xfec00000ull
#define MMIO_END	0xff000000ull

/* Boot-time tables: the PML4, PDPTs, one PD per GiB of address space used
 * and a few page tables for the 4 KiB regions. */
#define POOL_TABLES	64

typedef uint64_t table_t[PT_ENTRIES];

static table_t pml4 __attribute__((aligned(4096)));
static table_t pool[POOL_TABLES] __attribute__((aligned(4096)));
static unsigned pool_used;
static bool paging_on;
static volatile uint32_t paging_lock;	/* arch_map_page / arch_unmap_page */

extern char _kernel_start[], _text_end[], _rodata_end[], _kernel_end[];
extern char trampoline_start[], trampoline_end[];

static uint64_t *table_alloc(void)
{
	if (pool_used < POOL_TABLES)
		return pool[pool_used++];	/* .bss: already zero */
	if (!paging_on)
		panic("paging: more than %d boot page tables needed", POOL_TABLES);
	return page_alloc(1);			/* zeroed */
}

static unsigned idx(uintptr_t va, unsigned level)	/* level 4 = PML4 */
{
	return (va >> (12 + 9 * (level - 1))) & (PT_ENTRIES - 1);
}

/* The next level's table under entry i, created when absent. */
static uint64_t *next_table(uint64_t *t, unsigned i)
{
	if (!(t[i] & PTE_P))
		t[i] = (uintptr_t)table_alloc() | PTE_P | PTE_W;
	return (uint64_t *)(uintptr_t)(t[i] & PTE_ADDR);
}

static uint64_t *pde_of(uintptr_t va)
{
	uint64_t *pdpt = next_table(pml4, idx(va, 4));
	uint64_t *pd = next_table(pdpt, idx(va, 3));

	return &pd[idx(va, 2)];
}

/*
 * The 4 KiB entry for va. A 2 MiB page there is first split into 512 4 KiB
 * pages with the same protections; an empty slot gets an empty table.
 */
static uint64_t *pte_of(uintptr_t va)
{
	uint64_t *pde = pde_of(va);

	if (!(*pde & PTE_P)) {
		*pde = (uintptr_t)table_alloc() | PTE_P | PTE_W;
	} else if (*pde & PTE_PS) {
		uint64_t *pt = table_alloc();
		uint64_t base = *pde & PTE_ADDR & ~(PAGE_2M - 1);
		uint64_t prot = *pde & ~PTE_ADDR & ~PTE_PS;

		for (unsigned i = 0; i < PT_ENTRIES; i++)
			pt[i] = (base + i * PAGE_4K) | prot;
		*pde = (uintptr_t)pt | PTE_P | PTE_W;
		if (paging_on)
			invlpg(va);	/* drops the large-page TLB entry */
	}
	return (uint64_t *)(uintptr_t)(*pde & PTE_ADDR) + idx(va, 1);
}

/* 2 MiB pages over [lo, hi) (rounded out). A slot already split into
 * 4 KiB pages keeps them unless `force`, which re-protects all of them. */
static void map_2m(uint64_t lo, uint64_t hi, uint64_t prot, bool force)
{
	for (uint64_t va = lo & ~(PAGE_2M - 1); va < hi; va += PAGE_2M) {
		uint64_t *pde = pde_of(va);

		if ((*pde & PTE_P) && !(*pde & PTE_PS)) {
			if (!force)
				continue;
			uint64_t *pt = (uint64_t *)(uintptr_t)(*pde & PTE_ADDR);
			for (unsigned i = 0; i < PT_ENTRIES; i++)
				pt[i] = (va + i * PAGE_4K) | prot;
			continue;
		}
		if (!(*pde & PTE_P) || force)
			*pde = va | prot | PTE_PS;
	}
}

static void map_4k(uint64_t lo, uint64_t hi, uint64_t prot)
{
	for (uint64_t va = lo & ~(PAGE_4K - 1); va < hi; va += PAGE_4K)
		*pte_of(va) = prot ? (va | prot) : 0;
}

void paging_init(const struct phys_range *ranges, unsigned n)
{
	uintptr_t kstart = (uintptr_t)_kernel_start;

	for (unsigned i = 0; i < n; i++)
		map_2m(ranges[i].base, ranges[i].base + ranges[i].size, PROT_DATA, false);

	/* The first 2 MiB: real-mode leftovers (EBDA, BIOS data, VGA) are
	 * data; page 0 stays unmapped so that NULL dereferences fault; the AP
	 * trampoline is written by smp.c and executed by the new cores. */
	map_4k(0, PAGE_2M, PROT_DATA);
	map_4k(0, PAGE_4K, 0);
	map_4k(TRAMPOLINE_BASE, TRAMPOLINE_BASE + PAGE_4K, PROT_CODE_RW);

	/* The image: the rest of its first and last 2 MiB stays data. */
	map_4k(kstart & ~(PAGE_2M - 1), kstart, PROT_DATA);
	map_4k(kstart, (uintptr_t)_text_end, PROT_TEXT);
	map_4k((uintptr_t)_text_end, (uintptr_t)_rodata_end, PROT_RODATA);
	map_4k((uintptr_t)_rodata_end, (uintptr_t)_kernel_end, PROT_DATA);
	map_4k((uintptr_t)_kernel_end,
	       ((uintptr_t)_kernel_end + PAGE_2M - 1) & ~(PAGE_2M - 1), PROT_DATA);

	map_2m(MMIO_BASE, MMIO_END, PROT_MMIO, true);

	write_cr3((uintptr_t)pml4);
	paging_on = true;
}

void paging_map_framebuffer(uint64_t base, uint64_t size)
{
	map_2m(base, base + size, PROT_FB, true);
	write_cr3((uintptr_t)pml4);	/* a range already mapped changed */
}

uint64_t paging_root(void)
{
	return (uintptr_t)pml4;
}

static unsigned long paging_lock_acquire(void)
{
	unsigned long flags = arch_irq_save();

	while (atomic_xchg32(&paging_lock, 1))	/* full barrier: acquires */
		arch_cpu_relax();
	return flags;
}

static void paging_lock_release(unsigned long flags)
{
	atomic_store32(&paging_lock, 0);	/* store-release */
	arch_irq_restore(flags);
}

/*
 * Unmap one kernel data page (a stack guard page). Only this core's TLB is
 * flushed: another core that touched the page recently may still reach it
 * until its TLB entry is evicted (no shootdown IPI yet). Kernel text and
 * read-only data must not be passed here: arch_map_page makes pages RW+NX.
 */
void arch_unmap_page(uintptr_t va)
{
	unsigned long flags = paging_lock_acquire();

	va &= ~(PAGE_4K - 1);
	*pte_of(va) = 0;
	invlpg(va);
	paging_lock_release(flags);
}

void arch_map_page(uintptr_t va)
{
	unsigned long flags = paging_lock_acquire();

	va &= ~(PAGE_4K - 1);
	*pte_of(va) = va | PROT_DATA;
	invlpg(va);
	paging_lock_release(flags);
}
