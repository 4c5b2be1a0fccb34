#ifndef GMK_KERNEL_PAGE_H
#define GMK_KERNEL_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE_SIZE 4096ul

void page_init(void);
/* Contiguous, page-aligned, zeroed, exactly npages long (not rounded to a
 * power of two; over the largest buddy block, 4 MiB, a run of such
 * blocks that happen to be consecutive and free); a fatal error naming
 * the request when memory runs out.
 * page_free takes the same npages. */
void *page_alloc(size_t npages);
/* The same, but NULL when memory has run out (the caller names what it
 * was allocating in its own fatal error). */
void *page_alloc_try(size_t npages);
/* page_alloc_try without the zeroing, for memory the caller writes before
 * it reads: a goroutine stack (16 KiB of stores a G that uses one page of
 * it never needs, and on the hosted board a page fault for every page). */
void *page_alloc_nozero_try(size_t npages);
/* page_alloc_nozero_try for a power-of-two npages whose address is a
 * multiple of its own size (npages * PAGE_SIZE), so that the run holding
 * any of its bytes is found by masking the address; NULL when memory has
 * run out. Freed with page_free as any run. */
void *page_alloc_aligned_nozero_try(size_t npages);
void page_free(void *p, size_t npages);
/* page_alloc_try of npages (4 to 2^18: 1 GiB) that records npages in the page
 * metadata, for a block that carries no header of its own (kmalloc's
 * page runs: a header would push a power of two into twice the pages).
 * page_run_pages(p) is npages for such a run's first page, else 0 (any
 * other address, page-aligned or not). Freed with page_free as any. */
void *page_alloc_run_try(size_t npages);
size_t page_run_pages(const void *p);
/* Bytes currently handed out (for the benchmarks' memory figures). */
uint64_t page_bytes_in_use(void);
uint64_t page_bytes_total(void);

/* True if addr lies in RAM the kernel maps (for backtraces). */
bool page_addr_valid(uintptr_t addr);

/* Arch: unmap / remap one kernel page (stack guard pages). */
void arch_unmap_page(uintptr_t va);
void arch_map_page(uintptr_t va);

#endif
