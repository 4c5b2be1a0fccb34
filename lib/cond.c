/*
 * sync.Cond, following Go's sync/cond.go: a notify list of tickets
 * (sched/sema.c). A waiter takes its ticket while still holding L, so a
 * Signal or Broadcast issued after it unlocks L is never missed, even
 * before it has parked.
 */
#include "lib/sync.h"
#include "lib/runtime.h"

void cond_init(struct cond *c, struct mutex *L)
{
	*c = (struct cond){ .L = L };
	spin_init(&c->notify.lock, "cond");
}

void cond_wait(struct cond *c)
{
	uint32_t t = notifylist_add(&c->notify);

	mutex_unlock(c->L);
	notifylist_wait(&c->notify, t);
	mutex_lock(c->L);
}

void cond_signal(struct cond *c)
{
	notifylist_notify_one(&c->notify);
}

void cond_broadcast(struct cond *c)
{
	notifylist_notify_all(&c->notify);
}
