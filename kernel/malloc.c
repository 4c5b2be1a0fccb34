/*
 * The C library's malloc family on the bare-metal boards, on kmalloc
 * (kernel/kmalloc.c): sizes up to 2 KiB from its power-of-two size
 * classes, bigger ones as whole pages from the page allocator (up to
 * 1 GiB: over 4 MiB, free 4 MiB blocks side by side). So malloc
 * behaves the same on every board, is safe from any goroutine, core and
 * interrupt handler (kmalloc's locks mask interrupts), and shares the
 * kernel's memory rather than a heap of its own. These definitions take
 * the place of the C library's own allocator: newlib's internal calls
 * (_malloc_r and friends, from dtoa, asprintf, strdup) come here too.
 *
 * Out of memory, malloc returns NULL as C requires, and the kernel says
 * so on the console in one line naming the size asked for (unless the
 * console itself was allocating, on this core: then only the NULL).
 *
 * The hosted board keeps glibc's malloc: it is already thread-safe, and
 * the sanitizers know it.
 */
#ifndef GMK_HOSTED
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/console.h"
#include "kernel/kmalloc.h"
#include "kernel/page.h"

struct _reent;

static void *oom(const char *fn, size_t n)
{
	char msg[160];
	int k;

	if (n > KMALLOC_MAX)
		k = snprintf(msg, sizeof msg, "%s(%zu): out of memory (more than the "
			     "largest block, %zu bytes)\n", fn, n, KMALLOC_MAX);
	else if (n > KMALLOC_BUDDY_MAX)
		k = snprintf(msg, sizeof msg, "%s(%zu): out of memory (no %zu free pages "
			     "side by side; %llu of %llu bytes of pages in use)\n", fn, n,
			     (n + PAGE_SIZE - 1) / PAGE_SIZE,
			     (unsigned long long)page_bytes_in_use(),
			     (unsigned long long)page_bytes_total());
	else
		k = snprintf(msg, sizeof msg, "%s(%zu): out of memory (%llu of %llu "
			     "bytes of pages in use)\n", fn, n,
			     (unsigned long long)page_bytes_in_use(),
			     (unsigned long long)page_bytes_total());
	if (k > 0)
		console_try_write(msg, (size_t)k < sizeof msg ? (size_t)k : sizeof msg - 1);
	errno = ENOMEM;
	return NULL;
}

/* kmalloc_try, but NULL for any size (kmalloc_try panics at absurd ones). */
static void *try(size_t n)
{
	return n <= KMALLOC_MAX ? kmalloc_try(n) : NULL;
}

void *malloc(size_t n)
{
	void *p = try(n);
	return p ? p : oom("malloc", n);
}

void free(void *p)
{
	kfree(p);
}

void *calloc(size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = try(total);	/* zeroed */
	return p ? p : oom("calloc", total);
}

/* Grows in place within the block's slot or pages; moves when it must,
 * and when it shrinks below half of them (to give the rest back). */
void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (n == 0) {
		free(p);
		return NULL;
	}
	size_t have = kmalloc_usable_size(p);
	if (n <= have && n >= have / 2)
		return p;
	void *q = try(n);
	if (!q)
		return oom("realloc", n);
	memcpy(q, p, n < have ? n : have);
	kfree(p);
	return q;
}

void *memalign(size_t align, size_t n)
{
	if (!align || (align & (align - 1)) || align > PAGE_SIZE) {
		errno = EINVAL;
		return NULL;
	}
	void *p = kmalloc_aligned_try(n, align);
	return p ? p : oom("memalign", n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)) || align > PAGE_SIZE)
		return EINVAL;
	void *p = memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

size_t malloc_usable_size(void *p)
{
	return p ? kmalloc_usable_size(p) : 0;
}

/* newlib's reentrant entry points, which its own code calls. */
void *_malloc_r(struct _reent *r, size_t n) { (void)r; return malloc(n); }
void _free_r(struct _reent *r, void *p) { (void)r; free(p); }
void *_calloc_r(struct _reent *r, size_t n, size_t size) { (void)r; return calloc(n, size); }
void *_realloc_r(struct _reent *r, void *p, size_t n) { (void)r; return realloc(p, n); }
void *_memalign_r(struct _reent *r, size_t align, size_t n) { (void)r; return memalign(align, n); }
size_t _malloc_usable_size_r(struct _reent *r, void *p) { (void)r; return malloc_usable_size(p); }
#endif
