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
