/*
 * kmalloc: power-of-two size classes from 32 bytes to 2 KiB, each a free
 * list of equal slots carved from whole pages; anything larger is a run of
 * pages straight from page_alloc.
 *
 * Every block starts with a 16-byte header that says how to free it (the
 * class, or the page count) and carries a magic word, so that kfree needs
 * no size and catches double frees and wild pointers; but a run of
 * KM_RUN_PAGES pages or more has none: the page allocator records its
 * length (page_alloc_run_try), and kfree knows it by its page-aligned
 * address. A header there would push every power of two into twice the
 * pages in the buddy allocator (1 MiB + 16 bytes needs a 2 MiB block,
 * whose other half only smaller requests can use: 505 blocks of 1 MiB
 * fitted in 1 GiB). An aligned block
 * (kmalloc_aligned_try) is an ordinary one with a second header just
 * below the aligned address, which says how far back the first one is. Slots are never
 * given back to the page allocator: the runtime's working set of channels
 * is small and recurring, and keeping them avoids fragmenting the buddy
 * allocator with half-used pages.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"

#define KM_HDR		16u		/* header bytes; keeps 16-byte alignment */
#define KM_MIN_SHIFT	5		/* smallest slot: 32 bytes */
#define KM_MAX_SHIFT	11		/* largest slot: 2 KiB */
#define KM_NCLASS	(KM_MAX_SHIFT - KM_MIN_SHIFT + 1)
#define KM_MAGIC_USED	0x6b6d616cu	/* "kmal" */
#define KM_MAGIC_FREE	0x66726565u	/* "free" */
#define KM_PAGES	0xffffu		/* hdr->cls for a page-run block */
#define KM_ALIGNED	0xfffeu		/* hdr->cls of an aligned block's second header */
#define KM_RUN_PAGES	4		/* a run this long has no header */

struct km_hdr {
	uint32_t magic;
	uint16_t cls;			/* size class, or KM_PAGES */
	uint16_t pad;
	uint32_t npages;		/* page-run blocks: pages; KM_ALIGNED: bytes
					   back to the block's own header */
	uint32_t pad2;
};
_Static_assert(sizeof(struct km_hdr) == KM_HDR, "kmalloc header size");

struct km_free {
	struct km_hdr hdr;
	struct km_free *next;
};

struct km_class {
	struct spinlock lock;
	struct km_free *free;
};

static struct km_class classes[KM_NCLASS] = {
	[0 ... KM_NCLASS - 1] = { .lock = SPINLOCK_INIT("kmalloc"), .free = NULL },
};
static volatile uint64_t bytes_in_use;

static void account(int64_t delta)
{
	atomic_xadd64(&bytes_in_use, delta);	/* statistics only */
}

/* Refill an empty class with one page of slots; caller holds its lock.
 * False when no page is left. */
static bool km_refill(struct km_class *k, size_t slot)
{
	uint8_t *page = page_alloc_try(1);
	if (!page)
		return false;

	for (size_t off = 0; off + slot <= PAGE_SIZE; off += slot) {
		struct km_free *f = (struct km_free *)(page + off);
		f->hdr.magic = KM_MAGIC_FREE;
		f->next = k->free;
		k->free = f;
	}
	return true;
}

/* Go's "fatal error: runtime: out of memory", naming the request. */
static __attribute__((noreturn)) void oom(size_t n)
{
	if (n > KMALLOC_MAX)
		fatal("kmalloc(%zu): more than the largest block kmalloc makes (%zu bytes)",
		      n, KMALLOC_MAX);
	if (n > KMALLOC_BUDDY_MAX)
		fatal("kmalloc(%zu): out of memory: no %zu free pages side by side (a "
		      "block over %zu bytes needs free 4 MiB blocks in a row; %llu of "
		      "%llu bytes of pages in use)", n, (n + PAGE_SIZE - 1) / PAGE_SIZE,
		      KMALLOC_BUDDY_MAX, (unsigned long long)page_bytes_in_use(),
		      (unsigned long long)page_bytes_total());
	fatal("kmalloc(%zu): out of memory (%llu of %llu bytes of pages in use)", n,
	      (unsigned long long)page_bytes_in_use(),
	      (unsigned long long)page_bytes_total());
}

void *kmalloc(size_t n)
{
	void *p = kmalloc_try(n);
	if (!p)
		oom(n);
	return p;
}

void *kmalloc_try(size_t n)
{
	size_t total = n + KM_HDR;
	struct km_hdr *h;

	if (n > KMALLOC_MAX)
		return NULL;
	if (total <= ((size_t)1 << KM_MAX_SHIFT)) {
		unsigned shift = KM_MIN_SHIFT;
		while (((size_t)1 << shift) < total)
			shift++;
		unsigned cls = shift - KM_MIN_SHIFT;
		struct km_class *k = &classes[cls];
		size_t slot = (size_t)1 << shift;

		/* Interrupts masked: a holder must not be preempted while a
		 * G on its core spins for the same lock. */
		unsigned long fl = spin_lock_irqsave(&k->lock);
		if (!k->free && !km_refill(k, slot)) {
			spin_unlock_irqrestore(&k->lock, fl);
			return NULL;
		}
		struct km_free *f = k->free;
		k->free = f->next;
		spin_unlock_irqrestore(&k->lock, fl);

		if (f->hdr.magic != KM_MAGIC_FREE)
			panic("kmalloc: free list of %zu-byte slots corrupted at %p",
			      slot, (void *)f);
		memset(f, 0, slot);
		h = &f->hdr;
		h->cls = (uint16_t)cls;
		account((int64_t)slot);
	} else if ((n + PAGE_SIZE - 1) / PAGE_SIZE >= KM_RUN_PAGES) {
		size_t np = (n + PAGE_SIZE - 1) / PAGE_SIZE;
		void *p = page_alloc_run_try(np);	/* zeroed */
		if (p)
			account((int64_t)(np * PAGE_SIZE));
		return p;
	} else {
		size_t np = (total + PAGE_SIZE - 1) / PAGE_SIZE;
		h = page_alloc_try(np);		/* zeroed */
		if (!h)
			return NULL;
		h->cls = KM_PAGES;
		h->npages = (uint32_t)np;
		account((int64_t)(np * PAGE_SIZE));
	}
	h->magic = KM_MAGIC_USED;
	return (uint8_t *)h + KM_HDR;
}

void *kmalloc_aligned_try(size_t n, size_t align)
{
	if (align <= KM_HDR)
		return kmalloc_try(n);
	if ((align & (align - 1)) || align > PAGE_SIZE)
		panic("kmalloc_aligned: alignment %zu is not a power of two up to %lu",
		      align, PAGE_SIZE);
	if (n > KMALLOC_MAX - align)
		return NULL;
	uint8_t *raw = kmalloc_try(n + align);
	if (!raw)
		return NULL;
	/* raw is 16-aligned: the aligned address is at least 16 past it,
	 * room for the second header. */
	uintptr_t a = ((uintptr_t)raw + align) & ~(uintptr_t)(align - 1);
	struct km_hdr *h2 = (struct km_hdr *)(a - KM_HDR);
	h2->magic = KM_MAGIC_USED;
	h2->cls = KM_ALIGNED;
	h2->npages = (uint32_t)(a - (uintptr_t)raw);
	return (void *)a;
}

static struct km_hdr *km_header(void *p, const char *who)
{
	struct km_hdr *h = (struct km_hdr *)((uint8_t *)p - KM_HDR);

	if (h->magic != KM_MAGIC_USED)
		panic("%s: %p was not allocated by kmalloc or is freed twice", who, p);
	return h;
}

/* The pages of a headerless run at p, or 0 (any other block's p, page
 * aligned or not). */
static size_t km_run(void *p)
{
	return (uintptr_t)p % PAGE_SIZE ? 0 : page_run_pages(p);
}

size_t kmalloc_usable_size(void *p)
{
	size_t back = 0, np = km_run(p);
	struct km_hdr *h = NULL;

	if (!np) {
		h = km_header(p, "kmalloc_usable_size");
		if (h->cls == KM_ALIGNED) {
			back = h->npages;
			np = km_run((uint8_t *)p - back);
			if (!np)
				h = km_header((uint8_t *)p - back, "kmalloc_usable_size");
		}
	}
	if (np)
		return np * PAGE_SIZE - back;
	if (h->cls == KM_PAGES)
		return h->npages * PAGE_SIZE - KM_HDR - back;
	if (h->cls >= KM_NCLASS)
		panic("kmalloc_usable_size: %p has a corrupted header", p);
	return ((size_t)1 << (h->cls + KM_MIN_SHIFT)) - KM_HDR - back;
}

void kfree(void *p)
{
	if (!p)
		return;
	size_t np = km_run(p);
	struct km_hdr *h = NULL;

	if (!np) {
		h = km_header(p, "kfree");
		if (h->cls == KM_ALIGNED) {
			p = (uint8_t *)p - h->npages;
			h->magic = KM_MAGIC_FREE;
			np = km_run(p);
			if (!np)
				h = km_header(p, "kfree");
		}
	}
	if (np) {
		account(-(int64_t)(np * PAGE_SIZE));
		page_free(p, np);
		return;
	}
	if (h->cls == KM_PAGES) {
		np = h->npages;
		h->magic = KM_MAGIC_FREE;
		account(-(int64_t)(np * PAGE_SIZE));
		page_free(h, np);
		return;
	}
	if (h->cls >= KM_NCLASS)
		panic("kfree: %p has a corrupted header", p);
	struct km_class *k = &classes[h->cls];
	struct km_free *f = (struct km_free *)h;

	account(-(int64_t)((size_t)1 << (h->cls + KM_MIN_SHIFT)));
	f->hdr.magic = KM_MAGIC_FREE;
	unsigned long fl = spin_lock_irqsave(&k->lock);
	f->next = k->free;
	k->free = f;
	spin_unlock_irqrestore(&k->lock, fl);
}

uint64_t kmalloc_bytes_in_use(void)
{
	return atomic_load64(&bytes_in_use);
}
