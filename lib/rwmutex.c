/*
 * sync.RWMutex, following Go's sync/rwmutex.go: any number of readers or
 * one writer. A writer that arrives makes reader_count negative (subtracts
 * RWMUTEX_MAX_READERS), so new readers queue behind it instead of starving
 * it; it then waits for the readers already inside (reader_wait) to leave.
 * Writers among themselves are ordered by the inner Mutex.
 */
#include "lib/sync.h"
#include "lib/runtime.h"

static int32_t add32(volatile uint32_t *p, int32_t d)
{
	return (int32_t)atomic_xadd32(p, d);	/* new value, as int32 */
}

void rwmutex_rlock(struct rwmutex *rw)
{
	if (add32(&rw->reader_count, 1) < 0)
		/* A writer is pending: wait for it to finish. */
		semacquire1(&rw->reader_sem, false, waitReasonSyncRWMutexRLock);
}

void rwmutex_runlock(struct rwmutex *rw)
{
	int32_t r = add32(&rw->reader_count, -1);

	if (r >= 0)
		return;
	if (r + 1 == 0 || r + 1 == -RWMUTEX_MAX_READERS)
		fatal("sync: RUnlock of unlocked RWMutex");
	/* A writer is pending; the last reader it waits for lets it in. */
	if (add32(&rw->reader_wait, -1) == 0)
		semrelease1(&rw->writer_sem, false);
}

void rwmutex_lock(struct rwmutex *rw)
{
	/* First, resolve competition with other writers. */
	mutex_lock(&rw->w);
	/* Announce the writer to readers; r = readers inside now. */
	int32_t r = add32(&rw->reader_count, -RWMUTEX_MAX_READERS) +
		    RWMUTEX_MAX_READERS;
	if (r != 0 && add32(&rw->reader_wait, r) != 0)
		semacquire1(&rw->writer_sem, false, waitReasonSyncRWMutexLock);
}

void rwmutex_unlock(struct rwmutex *rw)
{
	/* Announce to readers there is no active writer. */
	int32_t r = add32(&rw->reader_count, RWMUTEX_MAX_READERS);

	if (r >= RWMUTEX_MAX_READERS)
		fatal("sync: Unlock of unlocked RWMutex");
	/* Let in the readers that queued behind this writer. */
	for (int32_t i = 0; i < r; i++)
		semrelease1(&rw->reader_sem, false);
	mutex_unlock(&rw->w);
}
