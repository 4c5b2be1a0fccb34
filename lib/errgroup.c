/*
 * errgroup (lib/errgroup.h), after golang.org/x/sync/errgroup.
 *
 * Go's Group limits its goroutines with a channel of tokens; here the
 * free slots are a runtime semaphore (semacquire/semrelease on a word of
 * the group), which needs no allocation and parks the same way. Each
 * goroutine gets its group, function and argument by value (go_copy:
 * they live in its record), so errgroup_go's caller may reuse its
 * variables at once.
 */
#include "lib/errgroup.h"
#include "lib/runtime.h"

/* fn first: gdb and traces show a G that runs eg_run by the function its
 * argument starts with (sched/tracebuf.h, g_startpc). */
struct eg_call {
	int (*fn)(void *);
	struct errgroup *g;
	void *arg;
	bool slot;		/* took a slot under the limit: gives it back */
};

struct context *errgroup_with_context(struct errgroup *g, struct context *parent)
{
	*g = (struct errgroup){ 0 };
	g->ctx = context_with_cancel(parent);
	return g->ctx;
}

/*
 * Go documents that the limit "must not be modified while any goroutines
 * in the group are active", and its SetLimit panics when goroutines
 * started under a limit are; one started without a limit would, at its
 * end, release a slot it never took (the limit exceeded), so this refuses
 * any goroutine of the group, with Go's words.
 */
void errgroup_set_limit(struct errgroup *g, int32_t n)
{
	/* load-acquire: the counter of the group's WaitGroup (high half),
	 * which counts them from errgroup_go to their end. */
	uint32_t active = (uint32_t)(atomic_load64(&g->wg.state) >> 32);
	if (active != 0)
		fatal("errgroup: modify limit while %u goroutines in the group are "
		      "still active", active);
	g->limited = n >= 0;
	g->limit = n;
	/* store-release: before any errgroup_go that follows takes one */
	atomic_store32(&g->slots, n >= 0 ? (uint32_t)n : 0);
}

/* Not static: g_startpc knows it (sched/tracebuf.h). */
void eg_run(void *p)
{
	const struct eg_call *c = p;
	struct errgroup *g = c->g;
	int err = c->fn(c->arg);
	/* seq-cst CAS: one first error (Go's errOnce). The store of err is
	 * ordered before errgroup_wait's read by the WaitGroup. */
	if (err && atomic_cas32(&g->errset, 0, 1)) {
		g->err = err;
		if (g->ctx)
			context_cancel(g->ctx);
	}
	if (c->slot)
		semrelease(&g->slots);
	waitgroup_done(&g->wg);
}

static void eg_start(struct errgroup *g, int (*fn)(void *), void *arg)
{
	if (!fn)
		fatal("errgroup_go: nil function");
	waitgroup_add(&g->wg, 1);
	struct eg_call c = { fn, g, arg, g->limited };
	go_copy(eg_run, &c, sizeof c);
}

void errgroup_go(struct errgroup *g, int (*fn)(void *), void *arg)
{
	if (g->limited)
		semacquire(&g->slots);	/* a slot: blocks at the limit */
	eg_start(g, fn, arg);
}

bool errgroup_trygo(struct errgroup *g, int (*fn)(void *), void *arg)
{
	/* A slot if one is free, as semacquire takes one (a CAS from a
	 * count above 0), without waiting. */
	while (g->limited) {
		uint32_t v = atomic_load32(&g->slots);	/* load-acquire */
		if (v == 0)
			return false;
		/* seq-cst CAS, as semacquire's cansemacquire */
		if (atomic_cas32(&g->slots, v, v - 1))
			break;
	}
	eg_start(g, fn, arg);
	return true;
}

int errgroup_wait(struct errgroup *g)
{
	waitgroup_wait(&g->wg);
	/* Go lets several Gs wait; its cancel may be called again, but the
	 * reference here is released once: the first waiter takes it
	 * (full barrier, xchg). */
	struct context *ctx = atomic_xchgp((volatile void **)&g->ctx, NULL);
	if (ctx) {
		context_cancel(ctx);
		context_release(ctx);
	}
	return g->err;
}
