/*
 * Pool, as Go's sync.Pool: a cache of objects that are expensive to make,
 * kept per P, so that goroutines on different cores rarely touch the
 * same cache line to take or give one back.
 *
 *   static struct pool bufs = POOL_INIT(new_buf, free_buf, NULL);
 *   struct buf *b = pool_get(&bufs);   one from the pool, or new_fn(arg)
 *                                      (NULL when empty and no new_fn)
 *   ...
 *   pool_put(&bufs, b);                back; NULL is ignored
 *   pool_drain(&bufs);                 frees what the pool holds
 *
 * An object is handed to one holder at a time. The pool may drop an
 * object it has no room for (free_fn(x, arg); kfree when free_fn is
 * NULL), as Go's collector drops what a pool holds; pool_get never
 * returns an object that was dropped.
 *
 * What differs from Go: Go empties its pools at every garbage
 * collection; gmk has no collector, and no signal that memory is short
 * that could run free_fn (kmalloc and the page allocator fail under their
 * own locks, from any context, interrupt handlers included), so a pool is
 * emptied only by pool_drain, which a program calls when it wants the
 * memory back. pool_destroy drains it and frees its per-P caches; the
 * pool must not be in use then.
 */
#ifndef GMK_SCHED_POOL_H
#define GMK_SCHED_POOL_H

#include <stdint.h>

struct poollocal;

struct pool {
	void *(*new_fn)(void *arg);	/* Go's New; NULL: pool_get may return NULL */
	void (*free_fn)(void *x, void *arg);	/* drops an object; NULL: kfree */
	void *arg;
	/* The per-P caches (sched/pool.c), made at first use. */
	struct poollocal *volatile local;
	uint32_t nlocal;
	void *local_mem;		/* kmalloc's block, for pool_destroy */
};

#define POOL_INIT(newfn, freefn, a) { .new_fn = (newfn), .free_fn = (freefn), .arg = (a) }

void *pool_get(struct pool *p);
void pool_put(struct pool *p, void *x);
void pool_drain(struct pool *p);
void pool_destroy(struct pool *p);

#endif
