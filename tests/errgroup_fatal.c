/*
 * Misuse of an errgroup ends the program with Go's words. It runs alone
 * in its own boot (make test does that).
 */
#include "kernel/test.h"
#include "tests/kernel_api.h"

static int wait_forever(void *p)
{
	chan_recv(p, NULL);
	return 0;
}

TEST_FATAL(errgroup_set_limit_while_goroutines_run,
	   "errgroup: modify limit while 1 goroutines in the group are still active")
{
	static struct errgroup g;
	errgroup_set_limit(&g, 2);
	errgroup_go(&g, wait_forever, chan_make(0, 0));
	errgroup_set_limit(&g, 4);
}

/* Go documents that the limit must not change while any goroutine of the
 * group is active, limited or not: one started without a limit would
 * give back a slot it never took (6 ran under a limit of 1). */
TEST_FATAL(errgroup_set_limit_while_unlimited_goroutines_run,
	   "errgroup: modify limit while 2 goroutines in the group are still active")
{
	static struct errgroup g;
	chan_t never = chan_make(0, 0);
	errgroup_go(&g, wait_forever, never);
	errgroup_go(&g, wait_forever, never);
	errgroup_set_limit(&g, 1);
}
