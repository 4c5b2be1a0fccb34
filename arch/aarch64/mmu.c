/*
 * Translation tables (see mmu.h for the address-space layout).
 *
 * Granularity: every RAM page has its own level-3 entry. The alternative,
 * 2 MiB blocks split on demand when arch_unmap_page punches a guard page,
 * needs break-before-make on ARMv8.0: the block must be invalid for a
 * moment, and any other core touching that 2 MiB (its stack, its G) would
 * fault in that window. Page-granular RAM costs 8 bytes of table per
 * 4 KiB page (0.2% of RAM: 2 MiB of tables for 1 GiB), allocated right
 * after the kernel image at boot, and makes map/unmap a single store. The
 * device window uses 1 GiB / 2 MiB blocks.
 *
 * mmu_boot_setup runs with the MMU and data cache off: memory is Device to
 * the CPU, so it uses aligned accesses only and no C-library calls (the
 * library's string routines may do unaligned loads or DC ZVA, which fault
 * on Device memory). fdt.c obeys the same rule.
 */
#include <stddef.h>

#include "kernel/cpu.h"
#include "arch/aarch64/mmu.h"
#include "kernel/fdt.h"
#include "kernel/page.h"
#include "kernel/panic.h"

/* Descriptor bits (Arm ARM D8.3, VMSAv8-64 stage 1). */
#define DESC_VALID	(1ull << 0)
#define DESC_TABLE	(1ull << 1)	/* level 0-2: next-level table */
#define DESC_PAGE	(1ull << 1)	/* level 3: page (must be set) */
#define DESC_ATTR(i)	((uint64_t)(i) << 2)	/* index into MAIR_EL1 */
#define DESC_AP_RO	(1ull << 7)	/* AP[2]: read-only */
#define DESC_SH_INNER	(3ull << 8)
#define DESC_AF		(1ull << 10)	/* access flag: set, no AF faults */
#define DESC_PXN	(1ull << 53)
#define DESC_UXN	(1ull << 54)
#define DESC_ADDR_MASK	0x0000fffffffff000ull

/* MAIR_EL1 slots. */
#define MT_DEVICE_nGnRnE	0
#define MT_DEVICE_nGnRE		1
#define MT_NORMAL		2
#define MT_NORMAL_NC		3
#define MAIR_VALUE	(0x00ull << (8 * MT_DEVICE_nGnRnE) |		\
			 0x04ull << (8 * MT_DEVICE_nGnRE) |		\
			 0xffull << (8 * MT_NORMAL) |	/* WB RA WA, inner+outer */ \
			 0x44ull << (8 * MT_NORMAL_NC))

#define ATTR_RAM	(DESC_ATTR(MT_NORMAL) | DESC_SH_INNER | DESC_AF | DESC_PXN | DESC_UXN)
#define ATTR_TEXT	(DESC_ATTR(MT_NORMAL) | DESC_SH_INNER | DESC_AF | DESC_AP_RO | DESC_UXN)
#define ATTR_RODATA	(ATTR_RAM | DESC_AP_RO)
#define ATTR_DEVICE	(DESC_ATTR(MT_DEVICE_nGnRE) | DESC_AF | DESC_PXN | DESC_UXN)

/* TCR_EL1: 39-bit VA through TTBR0 (levels 1-3), write-back walks. */
#define VA_BITS		39
#define TCR_T0SZ	(64 - VA_BITS)
#define TCR_IRGN0_WB	(1ull << 8)
#define TCR_ORGN0_WB	(1ull << 10)
#define TCR_SH0_INNER	(3ull << 12)
#define TCR_TG0_4K	(0ull << 14)
#define TCR_EPD1	(1ull << 23)	/* no TTBR1 walks: nothing lives up there */
#define TCR_TG1_4K	(2ull << 30)
#define TCR_IPS_SHIFT	32

/* SCTLR_EL1 */
#define SCTLR_M		(1ull << 0)	/* MMU */
#define SCTLR_C		(1ull << 2)	/* data cache */
#define SCTLR_SA	(1ull << 3)	/* SP alignment check at EL1 */
#define SCTLR_SA0	(1ull << 4)
#define SCTLR_I		(1ull << 12)	/* instruction cache */
#define SCTLR_WXN	(1ull << 19)	/* writable implies never-executable */
#define SCTLR_RES1	((1ull << 11) | (1ull << 20) | (1ull << 22) | \
			 (1ull << 23) | (1ull << 28) | (1ull << 29))
/* A (alignment check) stays 0: C code may do unaligned Normal accesses. */

#define ENTRIES		512
#define LEVEL_SHIFT(l)	(12 + 9 * (3 - (l)))	/* l = 1, 2, 3 */
#define SZ_2M		(2ull << 20)
#define SZ_1G		(1ull << 30)
#define FALLBACK_RAM	(128ull << 20)	/* mapped when the DTB says nothing */
#define TABLE_SLACK	4

extern char _text_start[], _text_end[], _rodata_end[], _data_start[],
	_kernel_end[];

struct mmu_regs mmu_regs;

static struct { uint64_t base, size; } ram[MMU_MAX_RAM_REGIONS];
static unsigned nram;
static uint64_t *root;			/* level-1 table */
static uint64_t pool_start, pool_next, pool_end;

static uint64_t align_down(uint64_t x, uint64_t a) { return x & ~(a - 1); }
static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

/* Volatile stores: keep the compiler from turning this into memset(). */
static uint64_t *table_alloc(void)
{
	volatile uint64_t *t = (volatile uint64_t *)pool_next;

	if (pool_next + PAGE_SIZE > pool_end)
		for (;;)	/* cannot happen: the pool is sized for the worst case */
			asm volatile("wfe");
	pool_next += PAGE_SIZE;
	for (unsigned i = 0; i < ENTRIES; i++)
		t[i] = 0;
	return (uint64_t *)t;
}

static uint64_t *next_table(uint64_t *table, unsigned idx)
{
	if (!(table[idx] & DESC_VALID)) {
		uint64_t *t = table_alloc();
		table[idx] = (uint64_t)(uintptr_t)t | DESC_TABLE | DESC_VALID;
	}
	return (uint64_t *)(uintptr_t)(table[idx] & DESC_ADDR_MASK);
}

static unsigned idx(uint64_t va, unsigned level)
{
	return (va >> LEVEL_SHIFT(level)) & (ENTRIES - 1);
}

/* The level-3 table that covers va, created if needed. */
static uint64_t *l3_table(uint64_t va)
{
	uint64_t *l2 = next_table(root, idx(va, 1));
	return next_table(l2, idx(va, 2));
}

/* Map [start, end) (page-aligned) with 4 KiB pages. */
static void map_pages(uint64_t start, uint64_t end, uint64_t attr)
{
	uint64_t va = start;

	while (va < end) {
		uint64_t *l3 = l3_table(va);
		uint64_t chunk_end = align_down(va, SZ_2M) + SZ_2M;
		if (chunk_end > end)
			chunk_end = end;
		for (; va < chunk_end; va += PAGE_SIZE)
			l3[idx(va, 3)] = va | attr | DESC_PAGE | DESC_VALID;
	}
}

/*
 * Fill every still-empty slot of [lo, hi) with Device mappings, as large
 * as alignment allows. Slots that already hold RAM are left alone; a slot
 * only partly inside [lo, hi) gets a next-level table.
 */
static void map_device_holes(uint64_t *table, unsigned level, uint64_t tva,
			     uint64_t lo, uint64_t hi)
{
	uint64_t size = 1ull << LEVEL_SHIFT(level);

	for (unsigned i = 0; i < ENTRIES; i++) {
		uint64_t va = tva + i * size, end = va + size;
		if (end <= lo || va >= hi)
			continue;
		if (table[i] & DESC_VALID) {
			if (level < 3 && (table[i] & DESC_TABLE))
				map_device_holes(next_table(table, i), level + 1,
						 va, lo, hi);
			continue;
		}
		if (va >= lo && end <= hi) {
			table[i] = va | ATTR_DEVICE | DESC_VALID |
				   (level == 3 ? DESC_PAGE : 0);
		} else if (level < 3) {
			map_device_holes(next_table(table, i), level + 1, va, lo, hi);
		}
	}
}

/*
 * Where the devices are, without a list of them: DTB machines put MMIO
 * either below RAM (QEMU virt: everything under 1 GiB, RAM from 1 GiB) or
 * above it (Raspberry Pi: RAM from 0, peripherals just under 1 GiB). So
 * the window is what lies below the lowest RAM, or, when RAM starts at
 * the bottom, from its end up to 4 GiB. Addresses outside both RAM and the
 * window stay unmapped, so a wild pointer faults instead of reaching an
 * empty bus slot.
 */
static void device_window(uint64_t *lo, uint64_t *hi)
{
	uint64_t low = ~0ull, low_end = 0;

	for (unsigned i = 0; i < nram; i++)
		if (ram[i].base < low) {
			low = ram[i].base;
			low_end = ram[i].base + ram[i].size;
		}
	if (low > MMU_NULL_GUARD) {
		*lo = MMU_NULL_GUARD;
		*hi = low < MMU_DEVICE_END ? low : MMU_DEVICE_END;
	} else {
		*lo = low_end > MMU_NULL_GUARD ? low_end : MMU_NULL_GUARD;
		*hi = MMU_DEVICE_END;
	}
}

static void add_ram(uint64_t base, uint64_t size)
{
	uint64_t total = 0, end = align_down(base + size, PAGE_SIZE);

	base = align_up(base, PAGE_SIZE);
	if (base < MMU_NULL_GUARD)	/* RAM from 0 (Raspberry Pi): NULL faults */
		base = MMU_NULL_GUARD;
	for (unsigned i = 0; i < nram; i++)
		total += ram[i].size;
	if (end <= base || nram == MMU_MAX_RAM_REGIONS || total >= MMU_MAX_RAM)
		return;
	/* A range already stated (a DTB node and one QEMU added for the
	 * same RAM): taken once, never twice over. */
	for (unsigned i = 0; i < nram; i++)
		if (base < ram[i].base + ram[i].size && ram[i].base < end)
			return;
	if (end > (1ull << VA_BITS))		/* beyond what TTBR0 covers */
		end = 1ull << VA_BITS;
	if (end - base > MMU_MAX_RAM - total)
		end = base + (MMU_MAX_RAM - total);
	if (end <= base)
		return;
	ram[nram].base = base;
	ram[nram].size = end - base;
	nram++;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* Tables needed for the RAM map, worst case, plus the device window. */
static uint64_t tables_needed(void)
{
	uint64_t n = 1 + 1 + TABLE_SLACK;	/* root, the NULL-guard level 2 */

	for (unsigned i = 0; i < nram; i++) {
		uint64_t b = ram[i].base, e = b + ram[i].size;
		n += (align_up(e, SZ_1G) - align_down(b, SZ_1G)) / SZ_1G;
		n += (align_up(e, SZ_2M) - align_down(b, SZ_2M)) / SZ_2M;
	}
	return n;
}

/*
 * Put the table pool after the kernel image, clear of the DTB and of the
 * DTB's reserved ranges, inside mapped RAM.
 */
static void place_pool(const struct fdt *f, uint64_t bytes)
{
	uint64_t at = align_up((uintptr_t)_kernel_end, PAGE_SIZE);
	bool moved = true;

	while (moved) {
		moved = false;
		if (f->blob && overlaps(at, bytes, (uintptr_t)f->blob, f->size)) {
			at = align_up((uintptr_t)f->blob + f->size, PAGE_SIZE);
			moved = true;
		}
		uint64_t a, s;
		for (unsigned i = 0; fdt_memreserve(f, i, &a, &s); i++)
			if (overlaps(at, bytes, a, s)) {
				at = align_up(a + s, PAGE_SIZE);
				moved = true;
			}
	}
	pool_start = pool_next = at;
	pool_end = at + bytes;
}

/* Discard any cache lines for [start, end): the data was written with the
 * cache off and is in memory; stale (even dirty) lines from before must
 * not shadow it once the cache is on. */
static void dcache_invalidate(uint64_t start, uint64_t end)
{
	uint64_t ctr = sysreg_read(ctr_el0);
	uint64_t line = 4ull << ((ctr >> 16) & 0xf);	/* DminLine: log2 words */

	for (uint64_t a = align_down(start, line); a < end; a += line)
		asm volatile("dc ivac, %0" : : "r"(a) : "memory");
	asm volatile("dsb sy" : : : "memory");
}

/* A board's own DTB, built in from its board.dts (absent: none). */
extern const char board_dtb[] __attribute__((weak));

/*
 * The DTB the kernel uses: what the loader passed in x0 if it is one;
 * else one at BOARD_DTB_PROBE_ADDR (QEMU virt leaves it at RAM start for
 * an ELF image, with x0 = 0); else the board's built-in one; else 0.
 * MMU off: fdt_init reads with aligned loads only.
 */
uintptr_t boot_dtb(uintptr_t x0)
{
	struct fdt f;

	if (x0 && fdt_init(&f, (const void *)x0))
		return x0;
#ifdef BOARD_DTB_PROBE_ADDR
	if (fdt_init(&f, (const void *)BOARD_DTB_PROBE_ADDR))
		return BOARD_DTB_PROBE_ADDR;
#endif
	if (board_dtb && fdt_init(&f, board_dtb))
		return (uintptr_t)board_dtb;
	return 0;
}

void mmu_boot_setup(uintptr_t dtb)
{
	struct fdt f;
	uint64_t base, size;

	if (dtb && fdt_init(&f, (const void *)dtb)) {
		for (int n = fdt_find_device_type(&f, -1, "memory"); n >= 0;
		     n = fdt_find_device_type(&f, n, "memory"))
			for (unsigned i = 0; fdt_reg(&f, n, i, &base, &size); i++)
				add_ram(base, size);
	} else {
		f.blob = NULL;
	}
	if (nram == 0)
		add_ram(align_down((uintptr_t)_text_start, SZ_2M), FALLBACK_RAM);

	place_pool(&f, tables_needed() * PAGE_SIZE);
	root = table_alloc();
	for (unsigned i = 0; i < nram; i++)
		map_pages(ram[i].base, ram[i].base + ram[i].size, ATTR_RAM);
	/* The image: text executable, rodata read-only. (data/bss are RAM.) */
	map_pages((uintptr_t)_text_start, (uintptr_t)_text_end, ATTR_TEXT);
	map_pages((uintptr_t)_text_end, (uintptr_t)_rodata_end, ATTR_RODATA);
	uint64_t dlo, dhi;
	device_window(&dlo, &dhi);
	map_device_holes(root, 1, 0, dlo, dhi);

	uint64_t parange = sysreg_read(id_aa64mmfr0_el1) & 0xf;
	if (parange > 5)		/* 52-bit PAs need FEAT_LPA: not used */
		parange = 5;
	mmu_regs.mair = MAIR_VALUE;
	mmu_regs.tcr = TCR_T0SZ | TCR_IRGN0_WB | TCR_ORGN0_WB | TCR_SH0_INNER |
		       TCR_TG0_4K | TCR_EPD1 | TCR_TG1_4K |
		       parange << TCR_IPS_SHIFT;
	mmu_regs.ttbr0 = (uintptr_t)root;
	mmu_regs.sctlr = SCTLR_RES1 | SCTLR_M | SCTLR_C | SCTLR_SA | SCTLR_SA0 |
			 SCTLR_I | SCTLR_WXN;

	dcache_invalidate((uintptr_t)_data_start, (uintptr_t)_kernel_end);
	dcache_invalidate(pool_start, pool_end);
}

bool mmu_ram_region(unsigned i, uintptr_t *b, uintptr_t *s)
{
	if (i >= nram)
		return false;
	*b = ram[i].base;
	*s = ram[i].size;
	return true;
}

void mmu_tables_range(uintptr_t *start, uintptr_t *end)
{
	*start = pool_start;
	*end = pool_end;
}

/* ---- after boot: one kernel page at a time ---------------------------- */

static bool in_ram(uint64_t va)
{
	for (unsigned i = 0; i < nram; i++)
		if (va >= ram[i].base && va - ram[i].base < ram[i].size)
			return true;
	return false;
}

/* The level-3 entry of a RAM page (every RAM page has one). */
static volatile uint64_t *ram_pte(uintptr_t va)
{
	/* Text and rodata keep their own attributes; any other RAM page
	 * (page-allocator memory, or .data/.bss such as a boot stack's
	 * lowest page) may become a guard page. */
	if ((va & (PAGE_SIZE - 1)) || !in_ram(va) ||
	    (va >= (uintptr_t)_text_start && va < (uintptr_t)_rodata_end))
		panic("arch_map/unmap_page: 0x%lx is not a page of writable RAM",
		      (unsigned long)va);
	uint64_t l1 = root[idx(va, 1)];
	uint64_t *l2 = (uint64_t *)(uintptr_t)(l1 & DESC_ADDR_MASK);
	uint64_t *l3 = (uint64_t *)(uintptr_t)(l2[idx(va, 2)] & DESC_ADDR_MASK);
	return &l3[idx(va, 3)];
}

void arch_unmap_page(uintptr_t va)
{
	volatile uint64_t *pte = ram_pte(va);

	*pte = 0;
	/* The store must reach the table walkers before the invalidation;
	 * the broadcast TLBI (inner shareable) drops the old entry on every
	 * core, and the final dsb waits for all of them. */
	asm volatile("dsb ishst\n\t"
		     "tlbi vaae1is, %0\n\t"
		     "dsb ish\n\t"
		     "isb"
		     : : "r"(va >> 12) : "memory");
}

void arch_map_page(uintptr_t va)
{
	volatile uint64_t *pte = ram_pte(va);

	/* Invalid -> valid needs no TLB maintenance: nothing cached an
	 * invalid entry. The barriers make the entry visible to the walker
	 * before the caller's next access. */
	*pte = va | ATTR_RAM | DESC_PAGE | DESC_VALID;
	asm volatile("dsb ishst\n\tisb" : : : "memory");
}

/*
 * A page below RAM's mapped start that firmware shares with the kernel
 * (the spin table a Raspberry Pi's cores wait on lives in page 0, inside
 * the NULL guard): mapped as Device memory while the kernel writes it, so
 * every store goes straight to memory, where cores running with their
 * MMU and caches off read it. Only outside mapped RAM and the device
 * window; the level-3 table comes from the pool's slack.
 */
void mmu_map_boot_page(uintptr_t pa)
{
	uint64_t va = align_down(pa, PAGE_SIZE);
	volatile uint64_t *l3 = l3_table(va);

	if (in_ram(va))
		panic("mmu_map_boot_page: 0x%lx is RAM", (unsigned long)pa);
	l3[idx(va, 3)] = va | ATTR_DEVICE | DESC_PAGE | DESC_VALID;
	asm volatile("dsb ishst\n\tisb" : : : "memory");
}

void mmu_unmap_boot_page(uintptr_t pa)
{
	uint64_t va = align_down(pa, PAGE_SIZE);
	volatile uint64_t *l3 = l3_table(va);

	l3[idx(va, 3)] = 0;
	asm volatile("dsb ishst\n\t"
		     "tlbi vaae1is, %0\n\t"
		     "dsb ish\n\t"
		     "isb"
		     : : "r"(va >> 12) : "memory");
}
