/*
 * context, as Go's package context: cancellation, deadlines and values
 * carried down a tree of contexts.
 *
 *   struct context *ctx = context_with_timeout(context_background(), ns);
 *   struct select_case cs[] = { SELECT_RECV(work, &v),
 *                               SELECT_RECV(context_done(ctx), NULL) };
 *   if (chan_select(cs, 2, false) == 1)
 *           return context_err(ctx);      CONTEXT_DEADLINE_EXCEEDED
 *   context_release(ctx);                 Go's `defer cancel()`
 *
 *   context_background()          Go's Background(): never cancelled, no
 *                                 deadline, no values; never freed
 *   context_with_cancel(parent)   WithCancel; context_cancel(ctx) is its
 *                                 CancelFunc
 *   context_with_deadline(parent, when)    WithDeadline (when: nanotime())
 *   context_with_timeout(parent, ns)       WithTimeout
 *   context_with_value(parent, key, val)   WithValue; keys are compared
 *                                 as pointers (the address of a static)
 *   context_done(ctx)             Done(): a channel closed at cancellation,
 *                                 for chan_recv and chan_select; NULL (never
 *                                 ready) for the background
 *   context_err(ctx)              Err(): 0, CONTEXT_CANCELED or
 *                                 CONTEXT_DEADLINE_EXCEEDED
 *   context_deadline(ctx, &when)  Deadline()
 *   context_value(ctx, key)       Value()
 *
 * Cancelling a context cancels its descendants, stops its timer and takes
 * it off its parent's list; a child of a cancelled parent is born
 * cancelled; the first error stays.
 *
 * Memory (C has no collector): each context_with_* returns a context
 * holding one reference, its caller's. context_release drops a reference;
 * when the last is released the context is cancelled (as Go's cancel) and
 * its memory goes once its children are gone too (a child keeps its
 * parent's memory). A goroutine that may use a context after its creator
 * has released it takes a reference of its own first: context_retain, in
 * the creator, before starting it; context_release when it is done.
 * Misuse is a fatal error where it can be detected: a use of a freed
 * context (until kmalloc hands the memory out again), a release more than
 * retained, a nil parent, a cancel of a context that has none, a
 * chan_close or chan_free of a done channel (Go's is receive-only: the
 * context closes it and frees it with itself).
 */
#ifndef GMK_LIB_CONTEXT_H
#define GMK_LIB_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/chan.h"

/* Err()'s values: negative, as Linux's -ECANCELED and -ETIMEDOUT, so
 * that they pass through int error returns (errgroup, semaphore). */
#define CONTEXT_CANCELED		(-125)
#define CONTEXT_DEADLINE_EXCEEDED	(-110)

struct context;

struct context *context_background(void);
struct context *context_with_cancel(struct context *parent);
struct context *context_with_deadline(struct context *parent, uint64_t when);
struct context *context_with_timeout(struct context *parent, uint64_t ns);
struct context *context_with_value(struct context *parent, const void *key, void *val);

void context_cancel(struct context *ctx);
chan_t context_done(struct context *ctx);
int context_err(struct context *ctx);
bool context_deadline(struct context *ctx, uint64_t *when);
void *context_value(struct context *ctx, const void *key);

struct context *context_retain(struct context *ctx);	/* returns ctx */
void context_release(struct context *ctx);

/* Go's error strings: "context canceled", "context deadline exceeded";
 * NULL for 0. */
const char *context_errstr(int err);

/* For tests: children on ctx's list now (cancelable contexts). */
uint32_t context_nchildren(struct context *ctx);

#endif
