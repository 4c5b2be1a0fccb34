/*
 * A weighted semaphore, as golang.org/x/sync/semaphore's Weighted: a
 * count of `size` units that goroutines acquire and release in weights.
 *
 *   struct semaphore s = SEMAPHORE_INIT(10);    or semaphore_init(&s, 10)
 *   int err = semaphore_acquire(&s, ctx, 3);    blocks until 3 units are
 *                                               free; 0, or ctx's error
 *                                               (nothing acquired then)
 *   bool ok = semaphore_try_acquire(&s, 3);     never blocks
 *   semaphore_release(&s, 3);
 *
 * Waiters are served in order (FIFO): a big request at the head of the
 * queue holds back smaller ones behind it, even when enough is free for
 * them, so that it is never starved. An acquire of more than the size
 * waits only for its context. No allocation but one channel per acquire
 * that has to wait; nothing to free once nobody waits.
 *
 * Misuse is a fatal error: a release of more than is held ("semaphore:
 * released more than held", Go's words), a negative weight or size (a
 * SEMAPHORE_INIT of a negative n at the semaphore's first use), a NULL
 * context (pass context_background()).
 */
#ifndef GMK_LIB_SEMAPHORE_H
#define GMK_LIB_SEMAPHORE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/context.h"
#include "lib/sync.h"

struct semwaiter;

struct semaphore {
	int64_t size;
	int64_t cur;			/* units held (under mu) */
	struct mutex mu;
	struct semwaiter *head, *tail;	/* waiters, FIFO (under mu) */
};

#define SEMAPHORE_INIT(n) { .size = (n) }

void semaphore_init(struct semaphore *s, int64_t size);
int semaphore_acquire(struct semaphore *s, struct context *ctx, int64_t n);
bool semaphore_try_acquire(struct semaphore *s, int64_t n);
void semaphore_release(struct semaphore *s, int64_t n);

/* For tests: acquires waiting now. */
uint32_t semaphore_nwaiters(struct semaphore *s);

#endif
