/*
 * Misuse of contexts ends the program naming the call. Each runs alone
 * in its own boot (make test does that).
 */
#include "kernel/test.h"
#include "tests/kernel_api.h"

TEST_FATAL(context_cancel_of_a_freed_context, "context_cancel: use of a freed context")
{
	struct context *ctx = context_with_cancel(context_background());
	context_release(ctx);
	context_cancel(ctx);
}

/* The child keeps the parent's memory, so the extra release is seen. */
TEST_FATAL(context_release_more_often_than_retained,
	   "context_release: released more often than retained")
{
	struct context *parent = context_with_cancel(context_background());
	struct context *child = context_with_cancel(parent);
	context_release(parent);
	context_release(parent);
	context_release(child);
}

TEST_FATAL(context_with_cancel_of_a_nil_parent,
	   "context_with_cancel: cannot create context from nil parent")
{
	context_with_cancel(NULL);
}

TEST_FATAL(context_cancel_of_the_background,
	   "context_cancel: the background context has no cancel")
{
	context_cancel(context_background());
}

TEST_FATAL(context_close_of_its_done_channel,
	   "close of a context's done channel (context_cancel closes it)")
{
	struct context *c = context_with_cancel(context_background());
	chan_close(context_done(c));
}

TEST_FATAL(context_free_of_its_done_channel,
	   "chan_free: the done channel of a context (it goes with its context: "
	   "context_release)")
{
	struct context *c = context_with_cancel(context_background());
	chan_free(context_done(c));
}
