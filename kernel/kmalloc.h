/*
 * kmalloc: small objects for the kernel and the runtime (channels, their
 * buffers), on top of the page allocator. Memory comes back zeroed.
 *
 *   void *kmalloc(size_t n)    n bytes, 16-byte aligned, zeroed; a fatal
 *                              error "kmalloc(n): out of memory" when
 *                              memory runs out
 *   void *kmalloc_try(size_t n) the same, but NULL when memory runs out
 *   void kfree(void *p)        p from kmalloc, or NULL
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
void kfree(void *p);
/* Bytes handed out by kmalloc now, headers included (for tests). */
uint64_t kmalloc_bytes_in_use(void);

#endif
