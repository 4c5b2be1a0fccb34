/*
 * errgroup, as golang.org/x/sync/errgroup: goroutines working on parts
 * of one task, the first error among them, and a context cancelled at
 * that error.
 *
 *   struct errgroup g = { 0 };                  Go's zero Group
 *   struct context *ctx = errgroup_with_context(&g, parent);   optional
 *   errgroup_set_limit(&g, 4);                  optional: at most 4 at once
 *   errgroup_go(&g, fn, arg);                   int fn(void *arg): 0, or an
 *                                               error (any other int)
 *   bool started = errgroup_trygo(&g, fn, arg); false at the limit
 *   int err = errgroup_wait(&g);                the first error, or 0
 *
 * errgroup_go blocks while the limit's worth of goroutines run;
 * errgroup_trygo does not start one then. The context from
 * errgroup_with_context (the group's: do not release it) is cancelled at
 * the first error or when errgroup_wait returns, whichever comes first;
 * errgroup_wait also releases it, so it is gone after that unless its
 * user took a reference (context_retain). Several Gs may call
 * errgroup_wait at once (each gets the first error; the context is
 * released once). The group holds nothing else: there is nothing to free.
 *
 * Misuse is a fatal error with Go's words: errgroup_set_limit while any
 * goroutine of the group is running, under a limit or not, as Go's
 * documentation forbids ("errgroup: modify limit while N goroutines in
 * the group are still active").
 */
#ifndef GMK_LIB_ERRGROUP_H
#define GMK_LIB_ERRGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/context.h"
#include "lib/sync.h"

struct errgroup {
	struct waitgroup wg;
	struct context *ctx;		/* errgroup_with_context's, until wait */
	volatile uint32_t errset;	/* err is recorded (Go's errOnce) */
	int err;			/* the first error */
	bool limited;			/* errgroup_set_limit(n >= 0) */
	int32_t limit;
	volatile uint32_t slots;	/* free slots under the limit: a
					 * runtime semaphore (sched/sema.h) */
};

struct context *errgroup_with_context(struct errgroup *g, struct context *parent);
void errgroup_set_limit(struct errgroup *g, int32_t n);
void errgroup_go(struct errgroup *g, int (*fn)(void *), void *arg);
bool errgroup_trygo(struct errgroup *g, int (*fn)(void *), void *arg);
int errgroup_wait(struct errgroup *g);

#endif
