/*
 * context (lib/context.h), after Go's context_test.go: a parent's
 * cancel cancels every descendant, through value contexts too, and a
 * child's leaves its parent alone and takes the child off its list; a
 * deadline cancels with "deadline exceeded" and not before; a cancel
 * stops the timer and the first error stays; a child of a cancelled
 * parent is born cancelled; values are found up the chain; and memory,
 * timers and lists are back where they were once the contexts are
 * released, also with thousands of children made, cancelled and
 * released from every P at once.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/kmalloc.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/sched_testutil.h"

/* Is c closed (a receive returns at once, !ok)? */
static bool closed(chan_t c)
{
	bool ok = true;
	return c && chan_tryrecv(c, NULL, &ok) && !ok;
}

static uint64_t timers_pending(void)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < sched_nprocs(); i++)
		n += timers_len(sched_p(i));
	return n;
}

TEST(context_background_is_never_done_and_has_nothing)
{
	struct context *bg = context_background();
	uint64_t when = 7;
	EXPECT(context_done(bg) == NULL);
	EXPECT_EQ(context_err(bg), 0);
	EXPECT(!context_deadline(bg, &when));
	EXPECT_EQ(when, 7);
	EXPECT(context_value(bg, &when) == NULL);
	context_release(bg);			/* no-op */
	EXPECT(context_retain(bg) == bg);
}

/* Go's TestWithCancel, with a value context in between. */
TEST(context_cancel_of_a_parent_cancels_every_descendant)
{
	static int key;
	struct context *c1 = context_with_cancel(context_background());
	struct context *o = context_with_value(c1, &key, &key);
	struct context *c2 = context_with_cancel(o);
	struct context *c3 = context_with_timeout(c2, 10 * NSEC_PER_SEC);
	EXPECT(!closed(context_done(c1)));
	EXPECT(!closed(context_done(c3)));
	EXPECT(context_done(o) == context_done(c1));	/* a value context's are its parent's */
	EXPECT_EQ(context_nchildren(c1), 1);
	EXPECT_EQ(context_nchildren(c2), 1);

	context_cancel(c1);
	EXPECT(closed(context_done(c1)));
	EXPECT(closed(context_done(o)));
	EXPECT(closed(context_done(c2)));
	EXPECT(closed(context_done(c3)));
	EXPECT_EQ(context_err(c1), CONTEXT_CANCELED);
	EXPECT_EQ(context_err(o), CONTEXT_CANCELED);
	EXPECT_EQ(context_err(c2), CONTEXT_CANCELED);
	EXPECT_EQ(context_err(c3), CONTEXT_CANCELED);
	EXPECT_EQ(context_nchildren(c1), 0);
	EXPECT_EQ(context_nchildren(c2), 0);
	EXPECT(!strcmp(context_errstr(context_err(c3)), "context canceled"));
	context_release(c3);
	context_release(c2);
	context_release(o);
	context_release(c1);
}

/* Go's TestChildFinishesFirst: the child's cancel takes it off the
 * parent's list and leaves the parent as it was. */
TEST(context_cancel_of_a_child_leaves_the_parent_alone)
{
	struct context *parent = context_with_cancel(context_background());
	struct context *a = context_with_cancel(parent);
	struct context *b = context_with_timeout(parent, 10 * NSEC_PER_SEC);
	EXPECT_EQ(context_nchildren(parent), 2);
	context_cancel(a);
	EXPECT_EQ(context_nchildren(parent), 1);
	EXPECT(closed(context_done(a)));
	EXPECT(!closed(context_done(parent)));
	EXPECT(!closed(context_done(b)));
	EXPECT_EQ(context_err(parent), 0);
	context_release(b);			/* the last reference: cancels */
	EXPECT_EQ(context_nchildren(parent), 0);
	context_release(a);
	EXPECT_EQ(context_err(parent), 0);
	context_release(parent);
}

/* Go's TestDeadline/TestTimeout: the done channel, in a select beside a
 * channel nobody sends on, closes at the deadline and not before. */
TEST(context_timeout_cancels_with_deadline_exceeded)
{
	uint64_t t0 = nanotime();
	struct context *ctx = context_with_timeout(context_background(), 20 * NSEC_PER_MSEC);
	uint64_t when = 0;
	EXPECT(context_deadline(ctx, &when));
	EXPECT_GE(when, t0 + 20 * NSEC_PER_MSEC);
	chan_t work = chan_make(sizeof(int), 0);
	struct select_case cs[] = {
		SELECT_RECV(work, NULL),
		SELECT_RECV(context_done(ctx), NULL),
	};
	EXPECT_EQ(chan_select(cs, 2, false), 1);
	EXPECT(!cs[1].ok);
	EXPECT_GE(nanotime(), when);
	EXPECT_EQ(context_err(ctx), CONTEXT_DEADLINE_EXCEEDED);
	EXPECT(!strcmp(context_errstr(context_err(ctx)), "context deadline exceeded"));
	context_cancel(ctx);			/* the first error stays */
	EXPECT_EQ(context_err(ctx), CONTEXT_DEADLINE_EXCEEDED);
	context_release(ctx);
	chan_free(work);
}

/* A cancel before the deadline stops the timer (no timer left pending,
 * nothing fires later) and the error is "canceled"; cancelling again
 * changes nothing. */
TEST(context_cancel_before_the_deadline_stops_the_timer)
{
	uint64_t pending0 = timers_pending();
	struct context *ctx = context_with_timeout(context_background(), 20 * NSEC_PER_MSEC);
	EXPECT_GE(timers_pending(), pending0 + 1);
	context_cancel(ctx);
	EXPECT_LE(timers_pending(), pending0);
	context_cancel(ctx);
	sleep_ns(40 * NSEC_PER_MSEC);
	EXPECT_EQ(context_err(ctx), CONTEXT_CANCELED);
	context_release(ctx);
}

/* Go's TestParentFinishesChild, the other order: a child made from a
 * cancelled parent is cancelled at birth, with the parent's error. */
TEST(context_child_of_a_cancelled_parent_is_born_cancelled)
{
	struct context *parent = context_with_timeout(context_background(), 0);
	EXPECT_EQ(context_err(parent), CONTEXT_DEADLINE_EXCEEDED);
	struct context *child = context_with_cancel(parent);
	struct context *timed = context_with_timeout(parent, 10 * NSEC_PER_SEC);
	EXPECT(closed(context_done(child)));
	EXPECT_EQ(context_err(child), CONTEXT_DEADLINE_EXCEEDED);
	EXPECT_EQ(context_err(timed), CONTEXT_DEADLINE_EXCEEDED);
	EXPECT_EQ(context_nchildren(parent), 0);
	context_release(timed);
	context_release(child);
	context_release(parent);
}

/* A child asking for a later deadline than its parent's keeps the
 * parent's (Go returns WithCancel there), and the parent's timer
 * cancels it with "deadline exceeded". */
TEST(context_deadline_is_the_earliest_of_the_chain)
{
	static int key;
	struct context *parent = context_with_timeout(context_background(), 20 * NSEC_PER_MSEC);
	struct context *v = context_with_value(parent, &key, NULL);
	struct context *child = context_with_timeout(v, 10 * NSEC_PER_SEC);
	uint64_t pd = 0, cd = 0;
	EXPECT(context_deadline(parent, &pd));
	EXPECT(context_deadline(v, &cd));
	EXPECT_EQ(cd, pd);
	EXPECT(context_deadline(child, &cd));
	EXPECT_EQ(cd, pd);
	chan_recv(context_done(child), NULL);
	EXPECT_EQ(context_err(child), CONTEXT_DEADLINE_EXCEEDED);
	EXPECT_GE(nanotime(), pd);
	context_release(child);
	context_release(v);
	context_release(parent);
}

/* Go's TestValues: the nearest value for a key, through cancelable
 * contexts; NULL for a key nobody set. */
TEST(context_values_are_found_up_the_chain)
{
	static int k1, k2, k3;
	static int v1a, v1b, v2;
	struct context *c1 = context_with_value(context_background(), &k1, &v1a);
	struct context *c2 = context_with_cancel(c1);
	struct context *c3 = context_with_value(c2, &k2, &v2);
	struct context *c4 = context_with_value(c3, &k1, &v1b);
	EXPECT(context_value(c1, &k1) == &v1a);
	EXPECT(context_value(c2, &k1) == &v1a);
	EXPECT(context_value(c2, &k2) == NULL);
	EXPECT(context_value(c3, &k2) == &v2);
	EXPECT(context_value(c4, &k1) == &v1b);	/* the nearest */
	EXPECT(context_value(c4, &k2) == &v2);
	EXPECT(context_value(c4, &k3) == NULL);
	EXPECT_EQ(context_err(c4), 0);
	EXPECT(context_done(c4) == context_done(c2));
	context_release(c4);
	context_release(c3);
	context_release(c2);
	context_release(c1);
}

/* The last release cancels: a retained context stays live while the
 * retainer holds it; then its timer is stopped and memory is back. */
TEST(context_last_release_cancels_and_frees)
{
	uint64_t pending0 = timers_pending();
	struct context *ctx = context_with_timeout(context_background(), 10 * NSEC_PER_SEC);
	struct context *child = context_with_cancel(ctx);
	context_retain(ctx);
	context_release(ctx);			/* the retained one remains */
	EXPECT_EQ(context_err(ctx), 0);
	EXPECT_EQ(context_err(child), 0);
	context_release(ctx);			/* the last: cancels ... */
	EXPECT_EQ(context_err(child), CONTEXT_CANCELED);	/* (child keeps ctx's memory) */
	EXPECT_LE(timers_pending(), pending0);
	context_release(child);			/* ... and now frees both */
}

/*
 * Memory: 2,000 rounds of a context with a timeout, a value and a child,
 * some cancelled by hand, some by their deadline (1 in 8, 100 us), some
 * only released: kmalloc back where it was after a warm-up that fills
 * the channel quarantine (its 256 freed channels stay held), and no
 * timer left pending. One context or timer left per round would be
 * 2,000 of them, 200 KiB or more; the margin is 4 KiB.
 */
static void context_round(uint32_t i)
{
	static int key;
	uint64_t ns = i % 8 == 0 ? 100 * NSEC_PER_USEC : 10 * NSEC_PER_SEC;
	struct context *ctx = context_with_timeout(context_background(), ns);
	struct context *v = context_with_value(ctx, &key, NULL);
	struct context *child = context_with_cancel(v);
	if (i % 8 == 0)
		chan_recv(context_done(child), NULL);
	else if (i % 2)
		context_cancel(ctx);
	context_release(ctx);
	context_release(child);
	context_release(v);
}

TEST(context_2000_rounds_leave_memory_and_timers_as_they_were)
{
	for (uint32_t i = 0; i < 400; i++)
		context_round(i);
	sleep_ns(NSEC_PER_MSEC);	/* deadline goroutines under way end */
	uint64_t km0 = kmalloc_bytes_in_use(), pending0 = timers_pending();
	for (uint32_t i = 0; i < 2000; i++)
		context_round(i);
	sleep_ns(NSEC_PER_MSEC);
	uint64_t km1 = kmalloc_bytes_in_use(), pending1 = timers_pending();
	printf("# 2000 rounds: kmalloc %llu -> %llu bytes, timers pending %llu -> %llu\n",
	       (unsigned long long)km0, (unsigned long long)km1,
	       (unsigned long long)pending0, (unsigned long long)pending1);
	EXPECT_LE(km1, km0 + 4096);
	EXPECT_LE(pending1, pending0);
}

/*
 * Many children of one parent, made from 8 Gs at once on every P: each
 * G makes 1,000, cancels every other one itself (taking it off the
 * parent's list) and keeps the rest; then the parent is cancelled from
 * here while the Gs are still making more. Every child ends done with an
 * error, the parent's list ends empty, and once all are released memory
 * is back.
 */
#define MANY_GS		8
#define MANY_EACH	1000

static struct context *many_parent;
static struct context *many_kids[MANY_GS][MANY_EACH];
static struct waitgroup many_made, many_done;
static volatile uint64_t many_selfcancel;

static void make_children(void *p)
{
	uintptr_t g = (uintptr_t)p;
	for (int i = 0; i < MANY_EACH; i++) {
		struct context *c = i % 4 == 3 ? context_with_timeout(many_parent, NSEC_PER_SEC)
					       : context_with_cancel(many_parent);
		many_kids[g][i] = c;
		if (i % 2) {
			context_cancel(c);
			atomic_xadd64(&many_selfcancel, 1);
		}
		if (i == MANY_EACH / 2)
			waitgroup_done(&many_made);
	}
	waitgroup_done(&many_done);
}

TEST(context_many_children_made_and_cancelled_on_every_p)
{
	uint64_t km0 = kmalloc_bytes_in_use(), pending0 = timers_pending();
	many_parent = context_with_cancel(context_background());
	atomic_store64(&many_selfcancel, 0);
	waitgroup_add(&many_made, MANY_GS);
	waitgroup_add(&many_done, MANY_GS);
	for (uintptr_t g = 0; g < MANY_GS; g++)
		go(make_children, (void *)g);
	waitgroup_wait(&many_made);		/* halfway, and going on */
	context_cancel(many_parent);
	waitgroup_wait(&many_done);
	EXPECT_EQ(context_nchildren(many_parent), 0);
	uint32_t notdone = 0, noerr = 0;
	for (int g = 0; g < MANY_GS; g++)
		for (int i = 0; i < MANY_EACH; i++) {
			notdone += !closed(context_done(many_kids[g][i]));
			noerr += context_err(many_kids[g][i]) == 0;
			context_release(many_kids[g][i]);
		}
	EXPECT_EQ(notdone, 0);
	EXPECT_EQ(noerr, 0);
	EXPECT_EQ(atomic_load64(&many_selfcancel), MANY_GS * MANY_EACH / 2);
	context_release(many_parent);
	sleep_ns(NSEC_PER_MSEC);
	/* The channel quarantine keeps the last 256 freed channels. */
	EXPECT_LE(kmalloc_bytes_in_use(), km0 + 256 * 128 + 4096);
	EXPECT_LE(timers_pending(), pending0);
}

/*
 * A chain of cancelable contexts as deep as a program can make: a cancel
 * at its root reaches every level, from a goroutine with 16 KiB of stack
 * (a deadline's goroutine has no more). A cancel that recursed once per
 * level overflowed that stack at about 250 levels on arm64.
 */
#define DEEP		100000
#define DEEP_STACK	(16 * 1024)

struct deep {
	struct context **c;
	chan_t done;
};

static void deep_cancel(void *p)
{
	struct deep *d = p;
	context_cancel(d->c[0]);
	chan_send(d->done, NULL);
}

TEST(context_cancel_of_a_chain_100000_deep_from_a_16k_goroutine)
{
	struct deep d = { kmalloc(sizeof *d.c * DEEP), chan_make(0, 0) };
	d.c[0] = context_with_cancel(context_background());
	for (uint32_t i = 1; i < DEEP; i++)
		d.c[i] = context_with_cancel(d.c[i - 1]);
	ASSERT_EQ(context_err(d.c[DEEP - 1]), 0);
	go_stack(deep_cancel, &d, DEEP_STACK);
	chan_recv(d.done, NULL);
	uint32_t open = 0, wrong = 0;
	for (uint32_t i = 0; i < DEEP; i++) {
		open += !closed(context_done(d.c[i]));
		wrong += context_err(d.c[i]) != CONTEXT_CANCELED;
	}
	EXPECT_EQ(open, 0);
	EXPECT_EQ(wrong, 0);
	for (uint32_t i = 0; i < DEEP; i++)
		EXPECT_EQ(context_nchildren(d.c[i]), 0);
	for (uint32_t i = 0; i < DEEP; i++)	/* the last frees the chain */
		context_release(d.c[i]);
	chan_free(d.done);
	kfree(d.c);
}

/* The same through a deadline at the root: its own goroutine cancels. */
#define DEEP_DEADLINE	5000

TEST(context_deadline_at_the_root_of_a_chain_5000_deep_cancels_every_level)
{
	struct context **c = kmalloc(sizeof *c * DEEP_DEADLINE);
	c[0] = context_with_timeout(context_background(), 100 * NSEC_PER_MSEC);
	for (uint32_t i = 1; i < DEEP_DEADLINE; i++)
		c[i] = context_with_cancel(c[i - 1]);
	chan_recv(context_done(c[DEEP_DEADLINE - 1]), NULL);
	uint32_t wrong = 0;
	for (uint32_t i = 0; i < DEEP_DEADLINE; i++)
		wrong += !closed(context_done(c[i])) ||
			 context_err(c[i]) != CONTEXT_DEADLINE_EXCEEDED;
	EXPECT_EQ(wrong, 0);
	for (uint32_t i = DEEP_DEADLINE; i-- > 0;)
		context_release(c[i]);
	kfree(c);
}
