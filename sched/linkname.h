/*
 * What the runtime gives Go's library (lib/) beyond the public API, as
 * Go's runtime gives packages sync and context what they need through
 * go:linkname (sync_runtime_Semacquire, notifyListAdd, ...). lib/ sees
 * the public API (include/gmk.h), the kernel's primitives (atomics, the
 * clock, fatal errors) and this header, which reaches none of the
 * scheduler's internals (tools/check-layers, rule 4b):
 *
 *   struct mutex, mutex_lock, ...     the runtime's own Mutex, whose
 *                                     type sync's other types embed
 *                                     (sched/sync.h)
 *   semacquire1, semrelease1, ...     the runtime semaphores and the
 *                                     notify lists under sync.Cond, with
 *                                     the wait reasons (sched/sema.h)
 *   ctxdone_make, _close, _free       a context's done channel
 */
#ifndef GMK_SCHED_LINKNAME_H
#define GMK_SCHED_LINKNAME_H

#include "sched/chan.h"
#include "sched/sema.h"
#include "sched/sync.h"

/* A context's done channel (lib/context.c): unbuffered, and marked so
 * that chan_close and chan_free of it are fatal errors, as Go's
 * receive-only <-chan struct{} is a compile error to close; the context
 * closes it at cancellation and frees it with itself. */
chan_t ctxdone_make(void);
void ctxdone_close(chan_t c);
void ctxdone_free(chan_t c);	/* closed, with nobody parked on it */

#endif
