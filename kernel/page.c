/*
 * The page allocator: a binary buddy allocator over the RAM the board
 * reports. Blocks of 2^order pages (order 0..MAX_ORDER) come from per-order
 * free lists; a freed block merges with its buddy while the buddy is free.
 * One byte of metadata per page records a free block's order, kept at the
 * front of each region.
 *
 * A request that is not a power of two is not rounded: the block is split
 * and its tail goes back at once as the aligned power-of-two blocks that
 * make it up (a 5-page goroutine stack costs 5 pages, not 8). page_free
 * takes the same count and frees the run the same way, piece by piece,
 * so a run need not be one buddy block, and any part of a run may be
 * freed on its own (page_alloc_aligned_nozero_try trims that way).
 * A request over the largest block (4 MiB) is a run of consecutive free
 * largest blocks, if the region has them.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"

#define MAX_ORDER	10		/* largest block: 4 MiB */
#define MAX_REGIONS	8
#define META_FREE	0x80		/* page heads a free block of order (meta & 0x7f) */
#define META_USED	0x00
/* page_alloc_run_try's run: its head page reads META_RUN, the next
 * RUN_LEN_BYTES pages its length less one, 6 bits each (0..0x3f: never
 * META_RUN, never META_FREE, so the buddy checks cannot mistake them).
 * page_free unmarks the head. */
#define META_RUN	0x40
#define RUN_LEN_BYTES	3
#define RUN_MIN_PAGES	(RUN_LEN_BYTES + 1)
#define RUN_MAX_PAGES	(1ul << (6 * RUN_LEN_BYTES))

struct free_block {
	struct free_block *next, *prev;
};

struct region {
	uintptr_t base;			/* first managed page */
	uintptr_t npages;
	uint8_t *meta;			/* one byte per page */
	struct free_block *free[MAX_ORDER + 1];
};

static struct region regions[MAX_REGIONS];
static unsigned nregions;
static struct spinlock page_lock = SPINLOCK_INIT("page");
static volatile uint64_t bytes_in_use;
static uint64_t bytes_total;
static uintptr_t ram_lo = UINTPTR_MAX, ram_hi;

extern char _kernel_start[];		/* linker script */

static void list_push(struct region *r, unsigned order, uintptr_t addr)
{
	struct free_block *b = (struct free_block *)addr;

	b->prev = NULL;
	b->next = r->free[order];
	if (b->next)
		b->next->prev = b;
	r->free[order] = b;
	r->meta[(addr - r->base) / PAGE_SIZE] = META_FREE | order;
}

static void list_remove(struct region *r, unsigned order, uintptr_t addr)
{
	struct free_block *b = (struct free_block *)addr;

	if (b->prev)
		b->prev->next = b->next;
	else
		r->free[order] = b->next;
	if (b->next)
		b->next->prev = b->prev;
	r->meta[(addr - r->base) / PAGE_SIZE] = META_USED;
}

static void region_add(uintptr_t base, uintptr_t size)
{
	uintptr_t start = (base + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uintptr_t end = (base + size) & ~(PAGE_SIZE - 1);

	if (nregions == MAX_REGIONS || end <= start + 16 * PAGE_SIZE)
		return;
	uintptr_t pages = (end - start) / PAGE_SIZE;
	uintptr_t meta_pages = (pages + PAGE_SIZE - 1) / PAGE_SIZE;
	struct region *r = &regions[nregions++];

	r->meta = (uint8_t *)start;
	memset(r->meta, META_USED, meta_pages * PAGE_SIZE);
	r->base = start + meta_pages * PAGE_SIZE;
	r->npages = pages - meta_pages;
	for (unsigned o = 0; o <= MAX_ORDER; o++)
		r->free[o] = NULL;

	/* Carve the region into the largest naturally aligned blocks. */
	uintptr_t p = 0;
	while (p < r->npages) {
		unsigned o = MAX_ORDER;
		while (o > 0 && ((p & ((1ul << o) - 1)) || p + (1ul << o) > r->npages))
			o--;
		list_push(r, o, r->base + p * PAGE_SIZE);
		p += 1ul << o;
	}
	bytes_total += r->npages * PAGE_SIZE;
	if (start < ram_lo)
		ram_lo = start;
	if (end > ram_hi)
		ram_hi = end;
}

void page_init(void)
{
	uintptr_t base, size;

	for (unsigned i = 0; board_mem_region(i, &base, &size); i++)
		region_add(base, size);
	if (!nregions)
		panic("page_init: the board reported no usable RAM");
	if ((uintptr_t)_kernel_start < ram_lo)
		ram_lo = (uintptr_t)_kernel_start;
}

static unsigned order_for(size_t npages)
{
	unsigned o = 0;

	while ((1ul << o) < npages)
		o++;
	return o;
}

static void *region_alloc(struct region *r, unsigned order)
{
	unsigned o = order;

	while (o <= MAX_ORDER && !r->free[o])
		o++;
	if (o > MAX_ORDER)
		return NULL;
	uintptr_t addr = (uintptr_t)r->free[o];
	list_remove(r, o, addr);
	while (o > order) {		/* split, keeping the lower half */
		o--;
		list_push(r, o, addr + (PAGE_SIZE << o));
	}
	return (void *)addr;
}

void *page_alloc(size_t npages)
{
	void *p = page_alloc_try(npages);
	if (!p)
		fatal("page_alloc(%zu pages): out of memory (%llu of %llu bytes in use)",
		      npages, (unsigned long long)page_bytes_in_use(),
		      (unsigned long long)bytes_total);
	return p;
}

/* The largest aligned power-of-two block that starts at page idx of a
 * region and is at most n pages long. */
static unsigned piece_order(uintptr_t idx, size_t n)
{
	unsigned o = 0;

	while (o < MAX_ORDER && !(idx & (1ul << o)) && (2ul << o) <= n)
		o++;
	return o;
}

/* Free one block of 2^order pages at page idx of r, merging with its
 * buddy while the buddy is free (page_lock held). */
static void free_block(struct region *r, uintptr_t idx, unsigned order)
{
	if (r->meta[idx] & META_FREE)
		panic("page_free: double free of %p",
		      (void *)(r->base + idx * PAGE_SIZE));
	atomic_xadd64(&bytes_in_use, -(int64_t)(PAGE_SIZE << order));
	while (order < MAX_ORDER) {
		uintptr_t buddy = idx ^ (1ul << order);
		if (buddy + (1ul << order) > r->npages ||
		    r->meta[buddy] != (META_FREE | order))
			break;
		list_remove(r, order, r->base + buddy * PAGE_SIZE);
		idx &= ~(1ul << order);
		order++;
	}
	list_push(r, order, r->base + idx * PAGE_SIZE);
}

/* Free n pages from page idx of r as the aligned blocks they are made of
 * (page_lock held). */
static void free_run(struct region *r, uintptr_t idx, size_t n)
{
	while (n) {
		unsigned o = piece_order(idx, n);
		free_block(r, idx, o);
		idx += 1ul << o;
		n -= 1ul << o;
	}
}

/*
 * A run longer than the largest block: consecutive free blocks of
 * MAX_ORDER (which region_add carves and the merges rebuild at multiples
 * of 2^MAX_ORDER pages from the region's base), taken in address order,
 * the tail given back (page_lock held). A first fit: big runs are rare
 * (a large select's sudogs, a big buffer), and the walk is one byte per
 * 4 MiB.
 */
static void *region_alloc_run(struct region *r, size_t npages)
{
	uintptr_t blk = 1ul << MAX_ORDER, need = (npages + blk - 1) / blk;
	uintptr_t have = 0;

	for (uintptr_t idx = 0; idx + blk <= r->npages; idx += blk) {
		have = r->meta[idx] == (META_FREE | MAX_ORDER) ? have + 1 : 0;
		if (have < need)
			continue;
		uintptr_t first = idx + blk - need * blk;
		for (uintptr_t i = first; i <= idx; i += blk)
			list_remove(r, MAX_ORDER, r->base + i * PAGE_SIZE);
		atomic_xadd64(&bytes_in_use, need * blk * PAGE_SIZE);
		if (need * blk > npages)
			free_run(r, first + npages, need * blk - npages);
		return (void *)(r->base + first * PAGE_SIZE);
	}
	return NULL;
}

/* npages, not zeroed, or NULL when memory has run out. */
void *page_alloc_nozero_try(size_t npages)
{
	unsigned order = order_for(npages);
	void *p = NULL;
	struct region *r = NULL;

	if (npages == 0)
		panic("page_alloc: %zu pages is not a valid request", npages);
	unsigned long flags = spin_lock_irqsave(&page_lock);
	if (order > MAX_ORDER) {
		for (unsigned i = 0; i < nregions && !p; i++)
			p = region_alloc_run(&regions[i], npages);
		spin_unlock_irqrestore(&page_lock, flags);
		return p;
	}
	for (unsigned i = 0; i < nregions && !p; i++) {
		r = &regions[i];
		p = region_alloc(r, order);
	}
	if (p) {
		atomic_xadd64(&bytes_in_use, PAGE_SIZE << order);
		if (npages < (1ul << order))	/* the tail goes back at once */
			free_run(r, ((uintptr_t)p - r->base) / PAGE_SIZE + npages,
				 (1ul << order) - npages);
	}
	spin_unlock_irqrestore(&page_lock, flags);
	return p;
}

static struct region *region_of(uintptr_t addr)
{
	for (unsigned i = 0; i < nregions; i++)
		if (addr >= regions[i].base &&
		    addr < regions[i].base + regions[i].npages * PAGE_SIZE)
			return &regions[i];
	return NULL;
}

void *page_alloc_run_try(size_t npages)
{
	if (npages < RUN_MIN_PAGES || npages > RUN_MAX_PAGES)
		panic("page_alloc_run: %zu pages is not a valid request (%u..%lu)",
		      npages, RUN_MIN_PAGES, RUN_MAX_PAGES);
	uint8_t *p = page_alloc_try(npages);
	if (!p)
		return NULL;
	struct region *r = region_of((uintptr_t)p);
	uintptr_t idx = ((uintptr_t)p - r->base) / PAGE_SIZE;
	/* Only this core writes these bytes until the run is freed: no
	 * lock (the buddy code reads them only as heads of free blocks). */
	for (unsigned i = 0; i < RUN_LEN_BYTES; i++)
		r->meta[idx + 1 + i] = (uint8_t)(((npages - 1) >> (6 * i)) & 0x3f);
	r->meta[idx] = META_RUN;
	return p;
}

size_t page_run_pages(const void *ptr)
{
	uintptr_t addr = (uintptr_t)ptr;
	struct region *r = region_of(addr);
	if (!r || (addr - r->base) % PAGE_SIZE)
		return 0;
	uintptr_t idx = (addr - r->base) / PAGE_SIZE;
	if (r->meta[idx] != META_RUN || idx + RUN_MIN_PAGES > r->npages)
		return 0;
	size_t n = 0;
	for (unsigned i = 0; i < RUN_LEN_BYTES; i++)
		n |= (size_t)r->meta[idx + 1 + i] << (6 * i);
	return n + 1;
}

/*
 * A buddy block is aligned to its size within its region, whose base
 * need not be: when the plain block is not aligned in address, take twice
 * the size less a page, which holds an aligned run wherever it starts,
 * and give back the pieces on either side of it.
 */
void *page_alloc_aligned_nozero_try(size_t npages)
{
	uintptr_t bytes = npages * PAGE_SIZE;

	if (npages == 0 || (npages & (npages - 1)) || 2 * npages - 1 > (1ul << MAX_ORDER))
		panic("page_alloc_aligned: %zu pages is not a valid request (a power "
		      "of two up to %lu)", npages, 1ul << (MAX_ORDER - 1));
	uintptr_t p = (uintptr_t)page_alloc_nozero_try(npages);
	if (!p || p % bytes == 0)
		return (void *)p;
	page_free((void *)p, npages);
	size_t n = 2 * npages - 1;
	p = (uintptr_t)page_alloc_nozero_try(n);
	if (!p)
		return NULL;
	uintptr_t a = (p + bytes - 1) & ~(bytes - 1);
	uintptr_t end = p + n * PAGE_SIZE;
	if (a > p)
		page_free((void *)p, (a - p) / PAGE_SIZE);
	if (end > a + bytes)
		page_free((void *)(a + bytes), (end - a - bytes) / PAGE_SIZE);
	return (void *)a;
}

void *page_alloc_try(size_t npages)
{
	void *p = page_alloc_nozero_try(npages);
	if (p)
		memset(p, 0, PAGE_SIZE * npages);
	return p;
}

void page_free(void *ptr, size_t npages)
{
	uintptr_t addr = (uintptr_t)ptr;
	struct region *r = region_of(addr);

	if (!r || npages == 0 || (addr - r->base) % PAGE_SIZE ||
	    addr + npages * PAGE_SIZE > r->base + r->npages * PAGE_SIZE)
		panic("page_free: %p (%zu pages) was not allocated here", ptr, npages);

	unsigned long flags = spin_lock_irqsave(&page_lock);
	uintptr_t idx = (addr - r->base) / PAGE_SIZE;
	if (r->meta[idx] == META_RUN)		/* free_block reads it as used */
		r->meta[idx] = META_USED;
	free_run(r, idx, npages);
	spin_unlock_irqrestore(&page_lock, flags);
}

/* Read without page_lock (tests, schedtrace): the count is written under
 * it, atomically, so that a reader on another core sees a whole value. */
uint64_t page_bytes_in_use(void) { return atomic_load64(&bytes_in_use); }
uint64_t page_bytes_total(void) { return bytes_total; }

bool page_addr_valid(uintptr_t addr)
{
	return addr >= ram_lo && addr < ram_hi;
}
