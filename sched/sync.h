/*
 * sync.Mutex, as in Go's sync package: the runtime's own, since the
 * runtime locks with it too (gomaxprocs, the console's readers and
 * writers). Valid when zero-filled (a static or a memset struct), like
 * Go's zero value; blocks by parking the G on the runtime semaphores
 * (sched/sema.c), never by spinning for long. The rest of package sync
 * (RWMutex, WaitGroup, Once, Cond) is Go's library, above the runtime:
 * lib/sync.h.
 *
 * Misuse is fatal with Go's words: "sync: unlock of unlocked mutex".
 */
#ifndef GMK_SCHED_SYNC_H
#define GMK_SCHED_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/* ---- Mutex (sched/mutex.c) ---- */

/* state bits (Go's mutexLocked, mutexWoken, mutexStarving); the rest
 * counts waiters, from bit MUTEX_WAITER_SHIFT up. */
#define MUTEX_LOCKED		1u
#define MUTEX_WOKEN		2u
#define MUTEX_STARVING		4u
#define MUTEX_WAITER_SHIFT	3
/* A waiter blocked this long switches the mutex to starvation mode. */
#define MUTEX_STARVATION_THRESHOLD_NS 1000000ull	/* 1 ms */

struct mutex {
	volatile uint32_t state;
	volatile uint32_t sema;
};

void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);

#endif
