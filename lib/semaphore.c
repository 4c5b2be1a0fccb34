/*
 * The weighted semaphore (lib/semaphore.h), after
 * golang.org/x/sync/semaphore's semaphore.go.
 *
 * A waiter is a struct semwaiter on the acquiring G's stack, queued under
 * s->mu, with a channel that is closed when its units are granted: the
 * acquirer selects on it and on its context's done channel. Granting
 * (notify) takes the units for the waiter, unlinks it and closes the
 * channel, all under s->mu, so a waiter that gave up (its context done)
 * and then takes s->mu finds either its units granted (and gives them
 * back) or itself still queued (and leaves). Once unlinked, a waiter is
 * not touched by anyone else; it frees its channel itself.
 */
#include "lib/semaphore.h"
#include "lib/runtime.h"

struct semwaiter {
	int64_t n;
	chan_t ready;			/* closed when the n units are ours */
	struct semwaiter *prev, *next;
};

void semaphore_init(struct semaphore *s, int64_t size)
{
	if (size < 0)
		fatal("semaphore_init: negative size %lld", (long long)size);
	*s = (struct semaphore)SEMAPHORE_INIT(size);
}

static void unlink_waiter(struct semaphore *s, struct semwaiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		s->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		s->tail = w->prev;
	w->prev = w->next = NULL;
}

/*
 * Grant units to waiters from the head while they fit (Go's
 * notifyWaiters). The first that does not fit stops the walk: going on
 * to find a smaller request would, under load, starve the big ones.
 * Caller holds s->mu.
 */
static void notify_waiters(struct semaphore *s)
{
	struct semwaiter *w;
	while ((w = s->head) && s->size - s->cur >= w->n) {
		s->cur += w->n;
		unlink_waiter(s, w);
		chan_close(w->ready);	/* its last touch by us */
	}
}

/* SEMAPHORE_INIT is a plain initializer that cannot refuse a negative
 * size as semaphore_init does: every call refuses one instead (Go's
 * NewWeighted takes any int64; a negative size would make every Acquire
 * wait for ever). */
static void check_weight(struct semaphore *s, int64_t n, const char *op)
{
	if (s->size < 0)
		fatal("%s: the semaphore's size is negative (%lld): SEMAPHORE_INIT "
		      "of a negative n", op, (long long)s->size);
	if (n < 0)
		fatal("%s: negative weight %lld", op, (long long)n);
}

int semaphore_acquire(struct semaphore *s, struct context *ctx, int64_t n)
{
	check_weight(s, n, "semaphore_acquire");
	if (!ctx)
		fatal("semaphore_acquire: nil context (pass context_background())");
	chan_t done = context_done(ctx);
	mutex_lock(&s->mu);
	int err = context_err(ctx);
	if (err) {			/* done already: acquire nothing */
		mutex_unlock(&s->mu);
		return err;
	}
	if (s->size - s->cur >= n && !s->head) {
		s->cur += n;
		mutex_unlock(&s->mu);
		return 0;
	}
	if (n > s->size) {
		/* Never satisfiable: do not queue, where it would hold back
		 * every waiter behind it; wait for the context (for good,
		 * on the background: a deadlock the checker reports). */
		mutex_unlock(&s->mu);
		chan_recv(done, NULL);
		return context_err(ctx);
	}
	struct semwaiter w = { .n = n, .ready = chan_make(0, 0), .prev = s->tail };
	if (s->tail)
		s->tail->next = &w;
	else
		s->head = &w;
	s->tail = &w;
	mutex_unlock(&s->mu);

	struct select_case cs[] = { SELECT_RECV(done, NULL), SELECT_RECV(w.ready, NULL) };
	if (chan_select(cs, 2, false) == 0) {
		mutex_lock(&s->mu);
		bool ok;
		if (chan_tryrecv(w.ready, NULL, &ok)) {
			/* Granted after the context was done: give it back. */
			s->cur -= n;
			notify_waiters(s);
		} else {
			bool front = s->head == &w;
			unlink_waiter(s, &w);
			/* At the front with units free: those behind may fit. */
			if (front && s->size > s->cur)
				notify_waiters(s);
		}
		mutex_unlock(&s->mu);
		err = context_err(ctx);
	} else if ((err = context_err(ctx)) != 0) {
		/* Granted, but the context is done: Go gives it back too. */
		semaphore_release(s, n);
	}
	chan_free(w.ready);
	return err;
}

bool semaphore_try_acquire(struct semaphore *s, int64_t n)
{
	check_weight(s, n, "semaphore_try_acquire");
	mutex_lock(&s->mu);
	bool ok = s->size - s->cur >= n && !s->head;
	if (ok)
		s->cur += n;
	mutex_unlock(&s->mu);
	return ok;
}

void semaphore_release(struct semaphore *s, int64_t n)
{
	check_weight(s, n, "semaphore_release");
	mutex_lock(&s->mu);
	s->cur -= n;
	if (s->cur < 0) {
		mutex_unlock(&s->mu);
		fatal("semaphore: released more than held");
	}
	notify_waiters(s);
	mutex_unlock(&s->mu);
}

uint32_t semaphore_nwaiters(struct semaphore *s)
{
	uint32_t n = 0;
	mutex_lock(&s->mu);
	for (struct semwaiter *w = s->head; w; w = w->next)
		n++;
	mutex_unlock(&s->mu);
	return n;
}
