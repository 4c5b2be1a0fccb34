/*
 * Channel misuse ends the program with Go's words. Each of these runs
 * alone in its own boot (make test does that).
 */
#include "kernel/test.h"
#include "tests/chan_testutil.h"

static void blocked_sender(void *p)
{
	int v = 1;

	chan_send(p, &v);	/* parks; woken by the close, then panics */
}

TEST_FATAL(chan_close_panics_blocked_sender, "send on closed channel")
{
	chan_t c = chan_make(sizeof(int), 0);

	go(blocked_sender, c);
	ASSERT(chan_wait_for_waiters(c, false, 1, WAIT_TIMEOUT_NS));
	chan_close(c);
	yield_for(NSEC_PER_SEC);	/* the sender's panic ends the test */
}

TEST_FATAL(chan_close_of_closed_channel, "close of closed channel")
{
	chan_t c = chan_make(sizeof(int), 1);

	chan_close(c);
	chan_close(c);
}

TEST_FATAL(chan_close_of_nil_channel, "close of nil channel")
{
	chan_close(NULL);
}

TEST_FATAL(chan_send_on_closed_channel, "send on closed channel")
{
	chan_t c = chan_make(sizeof(int), 1);
	int v = 1;

	chan_close(c);
	chan_send(c, &v);
}

/*
 * Deadlock: two Gs each wait for the other's channel, and the main G
 * waits for them. Every G is asleep, so the scheduler's checkdead ends the
 * program (Go's "all goroutines are asleep - deadlock!").
 */
struct pair {
	chan_t mine, theirs;
};

static void wait_for_other(void *p)
{
	struct pair *pr = p;
	int v;

	chan_recv(pr->mine, &v);	/* never sent: the other waits too */
	chan_send(pr->theirs, &v);
}

TEST_FATAL(chan_deadlock_reported, "all goroutines are asleep - deadlock!")
{
	static struct pair a, b;
	chan_t ca = chan_make(sizeof(int), 0), cb = chan_make(sizeof(int), 0);
	struct waitgroup wg = { 0 };

	a = (struct pair){ ca, cb };
	b = (struct pair){ cb, ca };
	go(wait_for_other, &a);
	go(wait_for_other, &b);
	waitgroup_add(&wg, 1);
	waitgroup_wait(&wg);		/* nobody will call Done */
}

/* A receive from a nil channel blocks forever (Go's semantics); with
 * nothing else to run, that is a deadlock naming the wait. */
TEST_FATAL(chan_nil_receive_blocks_forever, "all goroutines are asleep - deadlock!")
{
	int v;

	chan_recv(NULL, &v);
}

/*
 * A freed channel (chan_free) is poisoned and held back from reuse, so
 * that using it or freeing it again is reported, not silently served by
 * whatever took its memory next.
 */
TEST_FATAL(chan_send_on_freed_channel, "use of freed channel")
{
	chan_t c = chan_make(sizeof(int), 1);
	int v = 1;

	chan_free(c);
	/* What kmalloc hands out next: without the quarantine, this new
	 * channel takes c's memory and the send below lands in it. */
	chan_t c2 = chan_make(sizeof(int), 1);
	chan_send(c, &v);
	printf("# the send landed in %s\n", c2 == c ? "the new channel" : "freed memory");
}

TEST_FATAL(chan_receive_on_freed_channel, "use of freed channel")
{
	chan_t c = chan_make(sizeof(int), 4);
	int v = 1;

	chan_send(c, &v);
	chan_free(c);
	bool ok = chan_recv(c, &v);
	printf("# received %d, ok %d\n", v, ok);
}

TEST_FATAL(chan_close_of_freed_channel, "use of freed channel")
{
	chan_t c = chan_make(0, 0);

	chan_free(c);
	chan_close(c);
}

TEST_FATAL(chan_select_on_freed_channel, "use of freed channel")
{
	chan_t live = chan_make(sizeof(int), 1), c = chan_make(sizeof(int), 1);
	int v = 1, w;

	chan_free(c);
	struct select_case cs[] = { SELECT_RECV(live, &w), SELECT_SEND(c, &v) };
	int i = chan_select(cs, 2, true);
	printf("# select chose %d\n", i);
}

TEST_FATAL(chan_double_free, "double free of channel")
{
	chan_t c = chan_make(sizeof(int), 2);

	chan_free(c);
	chan_free(c);
}

TEST_FATAL(chan_select_over_65536_cases, "select: 65537 cases (at most 65536)")
{
	struct select_case cs[1] = { SELECT_RECV(NULL, NULL) };

	/* Refused before any case is read. */
	chan_select(cs, SELECT_MAX_CASES + 1, true);
}
