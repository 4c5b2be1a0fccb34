/*
 * context (lib/context.h), after Go's context/context.go.
 *
 * Two kinds of context besides the background: a cancelable one (Go's
 * cancelCtx and timerCtx: a done channel, an error, a list of children,
 * maybe a deadline timer) and a value one (Go's valueCtx: a key and a
 * value). Every context records its nearest cancelable strict ancestor,
 * cparent (Go's parentCancelCtx, found once at birth): a value context's
 * Done and Err are its cparent's, and a cancelable context is on its
 * cparent's list of children, under cparent's mutex, until either is
 * cancelled (Go's propagateCancel, removeChild).
 *
 * Locks: a cancel holds one context's mutex at a time (Go holds a
 * parent's while it cancels the children, each under its own: a
 * recursion as deep as the tree); a child leaving its parent's list
 * takes the parent's mutex after dropping its own.
 *
 * Memory. Go's collector frees a context when nothing refers to it; here
 * two counts do:
 *   refs   the references context_with_* and context_retain hand out;
 *          the last one released cancels the context (Go's cancel(),
 *          which Go asks every creator to call);
 *   holds  what keeps the memory: 1 while refs > 0, 1 per child (a child
 *          reads its ancestors: values, cparent's mutex and channel), and
 *          1 while the deadline timer may still run its function (from
 *          its start until a Stop that returned true, or the end of the
 *          function). The last hold dropped frees the context, then
 *          drops its hold on its parent.
 * Whoever touches a context holds one of these for as long as it does
 * (a borrowed pointer is the caller's contract, as for any C object), so
 * nothing touches a context's mutex once its last hold is gone.
 */
#include <string.h>

#include "lib/context.h"
#include "lib/runtime.h"

#define CONTEXT_LIVE	0x636f6e746578746cull	/* "contextl" */
#define CONTEXT_FREED	0x636f6e7465787466ull	/* "contextf" */

enum ctx_kind { CTX_BACKGROUND = 1, CTX_CANCEL, CTX_VALUE };

struct context {
	struct context *parent;		/* first: kfree's link lands here, not on magic */
	uint64_t magic;			/* CONTEXT_LIVE until freed */
	uint8_t kind;			/* enum ctx_kind */
	bool has_deadline;
	bool linked;			/* on cparent's list (under cparent->mu) */
	volatile uint32_t refs;		/* atomic */
	volatile uint32_t holds;	/* atomic */
	struct context *cparent;	/* nearest cancelable strict ancestor, or NULL */
	uint64_t deadline;		/* the earliest of its own and its ancestors' */

	/* CTX_VALUE */
	const void *key;
	void *val;

	/* CTX_CANCEL: under mu, but err (atomic) and done (set at birth) */
	struct mutex mu;
	volatile uint32_t err;		/* an int: 0, then the first error;
					 * store-release before done closes */
	chan_t done;
	struct context *children;	/* cancelable contexts whose cparent it is */
	struct context *sibprev, *sibnext;	/* in cparent's list (under cparent->mu) */
	struct time_timer *timer;	/* the deadline's AfterFunc, or NULL */
};

static struct context background = {
	.magic = CONTEXT_LIVE,
	.kind = CTX_BACKGROUND,
};

static struct context *ctx_check(struct context *c, const char *op)
{
	if (!c)
		fatal("%s: nil context", op);
	/* Relaxed: a check for misuse, not a synchronization. */
	uint64_t m = __atomic_load_n(&c->magic, __ATOMIC_RELAXED);
	if (m == CONTEXT_FREED)
		fatal("%s: use of a freed context", op);
	if (m != CONTEXT_LIVE)
		fatal("%s: %p is not a live context (it reads 0x%llx)", op, (void *)c,
		      (unsigned long long)m);
	return c;
}

static void ctx_free(struct context *c)
{
	/* Relaxed: read only by the misuse checks (ctx_check). */
	__atomic_store_n(&c->magic, CONTEXT_FREED, __ATOMIC_RELAXED);
	if (c->timer)
		time_timer_free(c->timer);	/* stopped, or its function ran */
	if (c->done)
		ctxdone_free(c->done);		/* closed: nobody is parked on it */
	kfree(c);
}

/* Drop a hold on c; the last one frees c and drops its hold on its
 * parent, and so on up. */
static void ctx_unhold(struct context *c)
{
	/* Full barrier (xadd): all this holder did to c comes before the
	 * free by whoever drops the last hold. */
	while (c->kind != CTX_BACKGROUND && atomic_xadd32(&c->holds, -1) == 0) {
		struct context *parent = c->parent;
		ctx_free(c);
		c = parent;
	}
}

/* Take c off its cparent's list, if it is still on it (Go's removeChild). */
static void ctx_unlink(struct context *c)
{
	struct context *p = c->cparent;
	if (!p)
		return;
	mutex_lock(&p->mu);
	if (c->linked) {
		if (c->sibprev)
			c->sibprev->sibnext = c->sibnext;
		else
			p->children = c->sibnext;
		if (c->sibnext)
			c->sibnext->sibprev = c->sibprev;
		c->sibprev = c->sibnext = NULL;
		c->linked = false;
	}
	mutex_unlock(&p->mu);
}

/*
 * Cancel c alone (Go's cancelCtx.cancel, less the recursion): close done,
 * stop the timer, and hand back its children, taken off its list, each
 * with a hold of ours on it, linked through sibnext. The first error
 * stays. The caller holds c. False if c was already cancelled.
 */
static bool ctx_cancel_one(struct context *c, int err, struct context **children)
{
	mutex_lock(&c->mu);
	if (c->err) {			/* already cancelled */
		mutex_unlock(&c->mu);
		return false;
	}
	/* store-release: a G that sees done closed, or err set, sees why. */
	atomic_store32(&c->err, (uint32_t)err);
	ctxdone_close(c->done);
	/* A child cannot leave the list while we hold c->mu, so its
	 * references' hold is still there for us to add ours to (full
	 * barrier). Taken off, it is no one's to unlink (linked is false):
	 * its sibnext is ours. */
	struct context *last = NULL;
	for (struct context *ch = c->children; ch; ch = ch->sibnext) {
		atomic_xadd32(&ch->holds, 1);
		ch->linked = false;
		ch->sibprev = NULL;
		last = ch;
	}
	if (last) {
		last->sibnext = *children;
		*children = c->children;
	}
	c->children = NULL;
	/* True: the function will not run, its hold is ours to drop. False:
	 * it has run or will (AfterFunc's Stop), and drops it itself. */
	bool stopped = c->timer && time_timer_stop(c->timer);
	mutex_unlock(&c->mu);
	if (stopped)
		ctx_unhold(c);		/* never the last: the caller holds c */
	return true;
}

/*
 * Go's cancelCtx.cancel: c and all its descendants; then, if asked, c
 * leaves its parent's list. Where Go recurses, holding each parent's
 * mutex while it cancels the children, this walks a list of the
 * contexts still to cancel, one mutex at a time: a chain of any depth
 * is cancelled in constant stack (a deadline's goroutine has 16 KiB).
 * Every descendant is cancelled before it returns, as in Go.
 */
static void ctx_cancel(struct context *c, bool remove, int err)
{
	struct context *todo = NULL;

	if (!ctx_cancel_one(c, err, &todo))
		return;
	while (todo) {
		struct context *ch = todo;
		todo = ch->sibnext;
		ch->sibnext = NULL;
		ctx_cancel_one(ch, err, &todo);
		ctx_unhold(ch);		/* ours; may be the last */
	}
	if (remove)
		ctx_unlink(c);
}

/* Put c on its cparent's list, or cancel it if cparent already is (Go's
 * propagateCancel). */
static void ctx_link(struct context *c)
{
	struct context *p = c->cparent;
	if (!p)
		return;			/* the background above: never cancelled */
	mutex_lock(&p->mu);
	int err = (int)atomic_load32(&p->err);	/* under p->mu: a plain read would do */
	if (!err) {
		c->sibnext = p->children;
		if (p->children)
			p->children->sibprev = c;
		p->children = c;
		c->linked = true;
	}
	mutex_unlock(&p->mu);
	if (err)
		ctx_cancel(c, false, err);	/* born cancelled */
}

static struct context *ctx_new(struct context *parent, enum ctx_kind kind, const char *op)
{
	if (!parent)
		fatal("%s: cannot create context from nil parent", op);
	ctx_check(parent, op);
	if (parent->kind != CTX_BACKGROUND) {
		/* load-acquire: a misuse check; the caller's reference
		 * keeps refs above 0 if it is used as it should be. */
		if (atomic_load32(&parent->refs) == 0)
			fatal("%s: the parent context was released", op);
		/* Full barrier (xadd); the caller's reference keeps holds
		 * above 0 meanwhile. Dropped when c is freed. */
		atomic_xadd32(&parent->holds, 1);
	}
	struct context *c = kmalloc(sizeof *c);
	c->magic = CONTEXT_LIVE;
	c->kind = (uint8_t)kind;
	c->refs = 1;
	c->holds = 1;
	c->parent = parent;
	c->cparent = parent->kind == CTX_CANCEL ? parent : parent->cparent;
	c->has_deadline = parent->has_deadline;
	c->deadline = parent->deadline;
	if (kind == CTX_CANCEL)
		c->done = ctxdone_make();
	return c;
}

struct context *context_background(void)
{
	return &background;
}

struct context *context_with_cancel(struct context *parent)
{
	struct context *c = ctx_new(parent, CTX_CANCEL, "context_with_cancel");
	ctx_link(c);
	return c;
}

/* The deadline's AfterFunc, in a goroutine of its own (Go's timerCtx
 * timer). It holds the timer's hold on c. */
static void ctx_deadline_fn(void *arg)
{
	struct context *c = arg;
	ctx_cancel(c, true, CONTEXT_DEADLINE_EXCEEDED);
	ctx_unhold(c);
}

struct context *context_with_deadline(struct context *parent, uint64_t when)
{
	struct context *c = ctx_new(parent, CTX_CANCEL, "context_with_deadline");
	if (c->has_deadline && c->deadline <= when) {
		/* The parent's deadline comes first: it will cancel c (Go
		 * returns WithCancel(parent) here). */
		ctx_link(c);
		return c;
	}
	c->has_deadline = true;
	c->deadline = when;
	ctx_link(c);
	uint64_t now = nanotime();
	if (when <= now) {
		ctx_cancel(c, true, CONTEXT_DEADLINE_EXCEEDED);
		return c;
	}
	if (when >= TIME_NEVER)
		return c;		/* past the end of time: never */
	mutex_lock(&c->mu);
	if (!c->err) {			/* not born cancelled */
		/* The timer's, before it can fire (full barrier). */
		atomic_xadd32(&c->holds, 1);
		/* Not before `when`: the timer adds ns to a later now. */
		c->timer = time_afterfunc(when - now, ctx_deadline_fn, c);
	}
	mutex_unlock(&c->mu);
	return c;
}

struct context *context_with_timeout(struct context *parent, uint64_t ns)
{
	return context_with_deadline(parent, time_when(ns));
}

struct context *context_with_value(struct context *parent, const void *key, void *val)
{
	if (!key)
		fatal("context_with_value: nil key");
	struct context *c = ctx_new(parent, CTX_VALUE, "context_with_value");
	c->key = key;
	c->val = val;
	return c;
}

void context_cancel(struct context *ctx)
{
	ctx_check(ctx, "context_cancel");
	if (ctx->kind == CTX_BACKGROUND)
		fatal("context_cancel: the background context has no cancel");
	if (ctx->kind == CTX_VALUE)
		fatal("context_cancel: a context from context_with_value has no cancel "
		      "(cancel the one it was made from)");
	if (atomic_load32(&ctx->refs) == 0)	/* a misuse check */
		fatal("context_cancel: the context was released");
	ctx_cancel(ctx, true, CONTEXT_CANCELED);
}

chan_t context_done(struct context *ctx)
{
	ctx_check(ctx, "context_done");
	if (ctx->kind == CTX_CANCEL)
		return ctx->done;
	return ctx->cparent ? ctx->cparent->done : NULL;
}

int context_err(struct context *ctx)
{
	ctx_check(ctx, "context_err");
	struct context *c = ctx->kind == CTX_CANCEL ? ctx : ctx->cparent;
	/* load-acquire: pairs with ctx_cancel's store */
	return c ? (int)atomic_load32(&c->err) : 0;
}

bool context_deadline(struct context *ctx, uint64_t *when)
{
	ctx_check(ctx, "context_deadline");
	if (ctx->has_deadline && when)
		*when = ctx->deadline;
	return ctx->has_deadline;
}

void *context_value(struct context *ctx, const void *key)
{
	ctx_check(ctx, "context_value");
	for (struct context *c = ctx; c; c = c->parent)
		if (c->kind == CTX_VALUE && c->key == key)
			return c->val;
	return NULL;
}

struct context *context_retain(struct context *ctx)
{
	ctx_check(ctx, "context_retain");
	if (ctx->kind == CTX_BACKGROUND)
		return ctx;
	/* Full barrier (xadd); from 0 it was released: a misuse. */
	if (atomic_xadd32(&ctx->refs, 1) == 1)
		fatal("context_retain: the context was released");
	return ctx;
}

void context_release(struct context *ctx)
{
	ctx_check(ctx, "context_release");
	if (ctx->kind == CTX_BACKGROUND)
		return;
	/* Full barrier (xadd): the one that takes refs to 0 cancels. */
	uint32_t r = atomic_xadd32(&ctx->refs, -1);
	if ((int32_t)r < 0)
		fatal("context_release: released more often than retained");
	if (r != 0)
		return;
	if (ctx->kind == CTX_CANCEL)
		ctx_cancel(ctx, true, CONTEXT_CANCELED);
	ctx_unhold(ctx);		/* the references' hold */
}

const char *context_errstr(int err)
{
	switch (err) {
	case 0:
		return NULL;
	case CONTEXT_CANCELED:
		return "context canceled";
	case CONTEXT_DEADLINE_EXCEEDED:
		return "context deadline exceeded";
	default:
		return "not a context error";
	}
}

uint32_t context_nchildren(struct context *ctx)
{
	ctx_check(ctx, "context_nchildren");
	if (ctx->kind != CTX_CANCEL)
		return 0;
	uint32_t n = 0;
	mutex_lock(&ctx->mu);
	for (struct context *c = ctx->children; c; c = c->sibnext)
		n++;
	mutex_unlock(&ctx->mu);
	return n;
}
