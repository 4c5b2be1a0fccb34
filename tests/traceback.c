/*
 * The stacks a fatal error prints (kernel/traceback.h, sched/traceback.c):
 * each goroutine with its wait reason, then its frames as Go prints them,
 * function(...) and a tab, file:line +0xoffset, from the image's own
 * symbol and line table. Each test knows the lines of its own calls
 * (__LINE__) and checks that the report names exactly those.
 */
#include <stdint.h>

#include "kernel/panic.h"
#include "kernel/test.h"
#include "kernel/traceback.h"
#include "tests/kernel_api.h"
#include "tests/chan_testutil.h"

#define NOINLINE __attribute__((noinline))

/* The line of a call: `AT(line_var, call)` sets line_var to the line the
 * macro is written on, then makes the call (on that same line). The
 * calls are the last thing their functions do: tail calls, which gcc
 * would make jumps that leave no frame of the caller, but for
 * -fno-optimize-sibling-calls (Makefile), which these tests check. */
#define AT(var, call) do { var = __LINE__; call; } while (0)

/* ---- a deadlock: every blocked goroutine, at its blocking call --------- */

static chan_t tb_c1, tb_c2;
static int tb_recv_line, tb_send_line;

static NOINLINE void tb_receiver(void *arg)
{
	int v;

	AT(tb_recv_line, chan_recv(tb_c1, &v));
}

static NOINLINE void tb_sender(void *arg)
{
	int v = 1;

	AT(tb_send_line, chan_send(tb_c2, &v));
}

TEST_FATAL(traceback_deadlock_prints_each_blocked_goroutine_at_its_line,
	   "all goroutines are asleep - deadlock!")
{
	struct waitgroup wg = { 0 };

	tb_c1 = chan_make(sizeof(int), 0);
	tb_c2 = chan_make(sizeof(int), 0);
	go(tb_receiver, NULL);
	go(tb_sender, NULL);
	ASSERT(chan_wait_for_waiters(tb_c1, true, 1, 10 * NSEC_PER_SEC));
	ASSERT(chan_wait_for_waiters(tb_c2, false, 1, 10 * NSEC_PER_SEC));
	/* Each wait reason is one G's alone, so each glob below stays inside
	 * that G's block: from its header to its function's frame. */
	test_expect_traceback("\ngoroutine * [chan receive]:\n*\ntb_receiver(...)\n"
			      "\ttests/traceback.c:%d +0x*\ngstart(...)\n", tb_recv_line);
	test_expect_traceback("\ngoroutine * [chan send]:\n*\ntb_sender(...)\n"
			      "\ttests/traceback.c:%d +0x*\ngstart(...)\n", tb_send_line);
	waitgroup_add(&wg, 1);
	test_expect_traceback("\ngoroutine 1 [sync.WaitGroup.Wait]:\n*\n"
			      "test_fn_traceback_deadlock_prints_each_blocked_goroutine_at_its_line(...)\n"
			      "\ttests/traceback.c:%d +0x", __LINE__ + 1);
	waitgroup_wait(&wg);		/* nobody calls Done: all are asleep */
}

/* ---- a panic: the nested calls that led to it, innermost first -------- */

static int tb_middle_line, tb_outer_line, tb_test_line;

/* Every caller's line is known by the time tb_inner runs (AT sets it
 * before the call). */
static void tb_expect_nested(int inner_line)
{
	test_expect_traceback("\ngoroutine 1 [running]:\n"
			      "tb_inner(...)\n\ttests/traceback.c:%d +0x*\n"
			      "tb_middle(...)\n\ttests/traceback.c:%d +0x*\n"
			      "tb_outer(...)\n\ttests/traceback.c:%d +0x*\n"
			      "test_fn_traceback_panic_lists_the_nested_calls_in_order(...)\n"
			      "\ttests/traceback.c:%d +0x",
			      inner_line, tb_middle_line, tb_outer_line, tb_test_line);
}

/* Volatile: gcc cannot tell that tb_inner never returns, so the calls to
 * it and to tb_middle are tail calls it would turn into jumps. */
static volatile bool tb_do_panic = true;

static NOINLINE void tb_inner(int depth)
{
	tb_expect_nested(__LINE__ + 2);
	if (tb_do_panic)
		panic("deliberate panic at depth %d", depth);
}

static NOINLINE void tb_middle(int depth)
{
	AT(tb_middle_line, tb_inner(depth + 1));
}

static NOINLINE void tb_outer(int depth)
{
	AT(tb_outer_line, tb_middle(depth + 1));
}

TEST_FATAL(traceback_panic_lists_the_nested_calls_in_order, "deliberate panic at depth 2")
{
	AT(tb_test_line, tb_outer(0));
}

/* ---- a fault: its function and line, then its caller ------------------- */

#define TB_UNMAPPED 0xdead0010ul

/* A leaf function (no call, so on some arches no frame record of its
 * own): its caller is found all the same. The store is 3 lines down. */
enum { TB_FAULT_LINE = __LINE__ + 3 };
static NOINLINE void tb_fault_here(uintptr_t addr)
{
	*(volatile uint32_t *)addr = 1;
}

TEST_FATAL(traceback_fault_names_its_function_and_line, "at address 0xdead0010")
{
	test_expect_traceback("\ngoroutine 1 [running]:\n"
			      "tb_fault_here(...)\n\ttests/traceback.c:%d +0x*\n"
			      "test_fn_traceback_fault_names_its_function_and_line(...)\n"
			      "\ttests/traceback.c:%d +0x", TB_FAULT_LINE, __LINE__ + 1);
	tb_fault_here(TB_UNMAPPED);
}

/* ---- how much: traceback=none and traceback=all ------------------------ */

TEST_FATAL(traceback_none_prints_no_stack, "deliberate panic with traceback=none")
{
	ASSERT(traceback_set("none"));
	test_expect_no_traceback();
	panic("deliberate panic with traceback=none");
}

static int tb_parked_line;

static NOINLINE void tb_parked(void *arg)
{
	int v;

	AT(tb_parked_line, chan_recv((chan_t)arg, &v));
}

TEST_FATAL(traceback_all_prints_the_other_goroutines_too, "deliberate panic with traceback=all")
{
	chan_t c = chan_make(sizeof(int), 0);

	go(tb_parked, c);
	ASSERT(chan_wait_for_waiters(c, true, 1, 10 * NSEC_PER_SEC));
	ASSERT(traceback_set("all"));
	test_expect_traceback("\ngoroutine 1 [running]:\n"
			      "test_fn_traceback_all_prints_the_other_goroutines_too(...)\n");
	test_expect_traceback("\ngoroutine * [chan receive]:\n*\ntb_parked(...)\n"
			      "\ttests/traceback.c:%d +0x", tb_parked_line);
	panic("deliberate panic with traceback=all");
}

/* ---- created by: the go statement that made a G, and its parent ------ */

static chan_t tb_cb_c;
static int tb_cb_go_line;
static volatile uint64_t tb_cb_child;

static NOINLINE void tb_cb_leaf(void *arg)
{
	int v;

	chan_recv(tb_cb_c, &v);
}

static NOINLINE void tb_cb_spawner(void *arg)
{
	int v;

	AT(tb_cb_go_line, tb_cb_child = go(tb_cb_leaf, NULL));
	chan_recv(tb_cb_c, &v);
}

TEST_FATAL(traceback_created_by_names_the_go_statement_and_parent,
	   "deliberate panic with two generations of goroutines")
{
	int go_line;

	tb_cb_c = chan_make(sizeof(int), 0);
	uint64_t spawner;
	AT(go_line, spawner = go(tb_cb_spawner, NULL));
	ASSERT(chan_wait_for_waiters(tb_cb_c, true, 2, 10 * NSEC_PER_SEC));
	ASSERT(traceback_set("all"));
	/* Go's: "created by F in goroutine N", then the go statement's
	 * line. Each glob's last lines belong to one G alone. */
	test_expect_traceback("\ngoroutine %llu [chan receive]:\n*\ntb_cb_spawner(...)\n*\n"
			      "created by test_fn_traceback_created_by_names_the_go_statement_and_parent"
			      " in goroutine 1\n\ttests/traceback.c:%d +0x",
			      (unsigned long long)spawner, go_line);
	test_expect_traceback("\ngoroutine %llu [chan receive]:\n*\ntb_cb_leaf(...)\n*\n"
			      "created by tb_cb_spawner in goroutine %llu\n\ttests/traceback.c:%d +0x",
			      (unsigned long long)tb_cb_child, (unsigned long long)spawner,
			      tb_cb_go_line);
	panic("deliberate panic with two generations of goroutines");
}

/* The main G was made by no go statement (Go prints none for it). */
TEST_FATAL(traceback_main_goroutine_has_no_created_by, "deliberate panic in the main goroutine")
{
	test_expect_traceback("\ngoroutine 1 [running]:\n"
			      "test_fn_traceback_main_goroutine_has_no_created_by(...)\n");
	test_expect_traceback_lacks("created by");
	panic("deliberate panic in the main goroutine");
}

TEST(traceback_option_takes_none_single_or_all)
{
	enum traceback_level was = traceback_level;

	EXPECT(traceback_set("none") && traceback_level == TRACEBACK_NONE);
	EXPECT(traceback_set("all") && traceback_level == TRACEBACK_ALL);
	EXPECT(traceback_set("single") && traceback_level == TRACEBACK_SINGLE);
	EXPECT(traceback_set("") && traceback_level == TRACEBACK_SINGLE);
	EXPECT(!traceback_set("system"));	/* Go's, which gmk has no use for */
	EXPECT(!traceback_set("ALL"));
	EXPECT_EQ(traceback_level, TRACEBACK_SINGLE);
	traceback_level = was;
}
