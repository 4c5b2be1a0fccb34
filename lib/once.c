/*
 * sync.Once, following Go's sync/once.go. done is set only after fn has
 * returned, so a caller that sees it set (load-acquire) also sees all of
 * fn's effects; callers that race the first one wait on the mutex until
 * it finished, rather than returning early (the classic broken CAS-only
 * Once does that).
 */
#include "lib/sync.h"
#include "lib/runtime.h"

void once_do(struct once *o, void (*fn)(void *), void *arg)
{
	if (atomic_load32(&o->done))		/* fast path, load-acquire */
		return;
	mutex_lock(&o->m);
	if (!o->done) {
		fn(arg);
		atomic_store32(&o->done, 1);	/* store-release: after fn */
	}
	mutex_unlock(&o->m);
}
