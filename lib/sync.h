/*
 * sync: RWMutex, WaitGroup, Once and Cond, as in Go's sync package, built
 * on the runtime's Mutex (sched/sync.h) and its semaphores and notify
 * lists (sched/linkname.h). All are valid when zero-filled (a static or a
 * memset struct), like Go's zero values, and all block by parking the G,
 * never by spinning for long.
 *
 * Misuse is fatal with Go's words: "sync: RUnlock of unlocked RWMutex",
 * "sync: Unlock of unlocked RWMutex", "sync: negative WaitGroup counter".
 */
#ifndef GMK_LIB_SYNC_H
#define GMK_LIB_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/linkname.h"

/* ---- RWMutex (lib/rwmutex.c) ---- */

#define RWMUTEX_MAX_READERS (1 << 30)

struct rwmutex {
	struct mutex w;			/* held by a pending or active writer */
	volatile uint32_t writer_sem;	/* writer waits for readers to leave */
	volatile uint32_t reader_sem;	/* readers wait for the writer */
	volatile uint32_t reader_count;	/* int32: < 0 when a writer is pending */
	volatile uint32_t reader_wait;	/* int32: readers the writer waits for */
};

void rwmutex_rlock(struct rwmutex *rw);
void rwmutex_runlock(struct rwmutex *rw);
void rwmutex_lock(struct rwmutex *rw);
void rwmutex_unlock(struct rwmutex *rw);

/* ---- WaitGroup (lib/waitgroup.c) ---- */

struct waitgroup {
	volatile uint64_t state;	/* high 32: counter (int32); low 32: waiters */
	volatile uint32_t sema;
};

void waitgroup_add(struct waitgroup *wg, int32_t delta);
/* waitgroup_add(wg, -1), whose common case (the counter still above 0)
 * returns after the one atomic add. */
void waitgroup_done(struct waitgroup *wg);
void waitgroup_wait(struct waitgroup *wg);

/* ---- Once (lib/once.c) ---- */

struct once {
	volatile uint32_t done;
	struct mutex m;
};

/* Runs fn(arg) the first time; every call returns after it finished. */
void once_do(struct once *o, void (*fn)(void *), void *arg);

/* ---- Cond (lib/cond.c) ---- */

struct cond {
	struct mutex *L;		/* held around wait; set before use */
	struct notifylist notify;
};

#define COND_INIT(mu) { .L = (mu) }
void cond_init(struct cond *c, struct mutex *L);
void cond_wait(struct cond *c);		/* unlocks L, waits, relocks L */
void cond_signal(struct cond *c);
void cond_broadcast(struct cond *c);

#endif
