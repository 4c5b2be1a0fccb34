/*
 * kmalloc: small objects for the kernel and the runtime (channels, their
 * buffers), on top of the page allocator. Memory comes back zeroed.
 *
 *   void *kmalloc(size_t n)    n bytes, 16-byte aligned, zeroed; a fatal
 *                              error "kmalloc(n): out of memory" when
 *                              memory runs out
 *   void *kmalloc_try(size_t n) the same, but NULL when memory runs out
 *   void *kmalloc_aligned_try(size_t n, size_t align)
 *                              kmalloc_try, aligned to align (a power of
 *                              two up to PAGE_SIZE)
 *   size_t kmalloc_usable_size(void *p)  bytes usable at p (at least the n
 *                              asked for: the rest of its slot or pages)
 *   void kfree(void *p)        p from any of them, or NULL
 *
 * Safe from any core and any G, and from interrupt handlers: its locks are
 * taken with interrupts masked, as the page allocator's are.
 */
#ifndef GMK_KERNEL_KMALLOC_H
#define GMK_KERNEL_KMALLOC_H

#include <stddef.h>
#include <stdint.h>

void *kmalloc(size_t n);
void *kmalloc_try(size_t n);
void *kmalloc_aligned_try(size_t n, size_t align);
size_t kmalloc_usable_size(void *p);
/* The largest n that kmalloc takes (1 GiB); a bigger request is a fatal
 * error in kmalloc and NULL from the _try forms. Up to KMALLOC_BUDDY_MAX
 * a block is one buddy block (kernel/page.c); a bigger one is a run of
 * free 4 MiB blocks side by side, which a fragmented memory may lack
 * with much of it free. */
#define KMALLOC_MAX		((size_t)1 << 30)
#define KMALLOC_BUDDY_MAX	((size_t)4 * 1024 * 1024)
void kfree(void *p);
/* Bytes handed out by kmalloc now, headers included (for tests). */
uint64_t kmalloc_bytes_in_use(void);

#endif
