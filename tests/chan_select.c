/*
 * select: default only when nothing is ready, a fair choice between ready
 * cases, send and receive on one channel, many Gs over many channels.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/test.h"
#include "tests/chan_testutil.h"

TEST(chan_select_default_only_when_nothing_ready)
{
	chan_t a = chan_make(sizeof(int), 1), b = chan_make(sizeof(int), 0);
	int va = 0, vb = 0, one = 1;
	struct select_case cs[] = { SELECT_RECV(a, &va), SELECT_RECV(b, &vb) };

	for (int i = 0; i < 100; i++)
		ASSERT_EQ(chan_select(cs, 2, true), SELECT_DEFAULT);
	chan_send(a, &one);
	for (int i = 0; i < 10; i++) {
		ASSERT_EQ(chan_select(cs, 2, true), 0);
		ASSERT(cs[0].ok);
		ASSERT_EQ(va, 1);
		ASSERT_EQ(chan_select(cs, 2, true), SELECT_DEFAULT);
		chan_send(a, &one);
	}
	/* Nil channels and no cases at all: only the default. */
	struct select_case nils[] = { SELECT_RECV(NULL, &va), SELECT_SEND(NULL, &one) };
	ASSERT_EQ(chan_select(nils, 2, true), SELECT_DEFAULT);
	ASSERT_EQ(chan_select(NULL, 0, true), SELECT_DEFAULT);
	/* A closed channel is ready (ok == false), not the default. */
	chan_close(b);
	struct select_case cb[] = { SELECT_RECV(b, &vb) };
	ASSERT_EQ(chan_select(cb, 1, true), 0);
	ASSERT(!cb[0].ok);
	chan_free(a);
	chan_free(b);
}

#define FAIR_ROUNDS 10000

TEST(chan_select_fair_between_two_ready_cases)
{
	chan_t a = chan_make(sizeof(int), 1), b = chan_make(sizeof(int), 1);
	int v = 0, one = 1;
	unsigned count[2] = { 0, 0 };

	chan_send(a, &one);
	chan_send(b, &one);
	for (int i = 0; i < FAIR_ROUNDS; i++) {
		struct select_case cs[] = { SELECT_RECV(a, &v), SELECT_RECV(b, &v) };
		int k = chan_select(cs, 2, false);
		ASSERT(k == 0 || k == 1);
		count[k]++;
		chan_send(k == 0 ? a : b, &one);	/* both stay ready */
	}
	printf("# case 0: %u, case 1: %u of %d\n", count[0], count[1], FAIR_ROUNDS);
	for (int k = 0; k < 2; k++) {
		EXPECT_GE(count[k], FAIR_ROUNDS * 40 / 100);
		EXPECT_LE(count[k], FAIR_ROUNDS * 60 / 100);
	}
	chan_free(a);
	chan_free(b);
}

/* ---- send and receive cases on the same channel ---- */

struct sr_arg {
	chan_t c;
	int out, in;
	volatile int chosen;
	struct waitgroup *wg;
};

static void send_or_recv(void *p)
{
	struct sr_arg *a = p;
	struct select_case cs[] = { SELECT_SEND(a->c, &a->out), SELECT_RECV(a->c, &a->in) };

	a->chosen = chan_select(cs, 2, false);
	waitgroup_done(a->wg);
}

TEST(chan_select_send_and_recv_same_channel)
{
	chan_t c = chan_make(sizeof(int), 0);
	struct waitgroup wg = { 0 };
	struct sr_arg a = { .c = c, .out = 42, .in = 0, .chosen = -2, .wg = &wg };
	int v = 0;

	/* A receiver arrives: the select's send case fires. */
	waitgroup_add(&wg, 1);
	go(send_or_recv, &a);
	ASSERT(chan_wait_for_waiters(c, true, 1, WAIT_TIMEOUT_NS));
	ASSERT(chan_wait_for_waiters(c, false, 1, WAIT_TIMEOUT_NS));
	ASSERT(chan_recv(c, &v));
	waitgroup_wait(&wg);
	ASSERT_EQ(a.chosen, 0);
	ASSERT_EQ(v, 42);
	/* Its other sudog was taken off the queue. */
	ASSERT_EQ(chan_nwaiting(c, true), 0);
	ASSERT_EQ(chan_nwaiting(c, false), 0);

	/* A sender arrives: the receive case fires. */
	a.chosen = -2;
	waitgroup_add(&wg, 1);
	go(send_or_recv, &a);
	ASSERT(chan_wait_for_waiters(c, true, 1, WAIT_TIMEOUT_NS));
	v = 7;
	chan_send(c, &v);
	waitgroup_wait(&wg);
	ASSERT_EQ(a.chosen, 1);
	ASSERT_EQ(a.in, 7);
	ASSERT_EQ(chan_nwaiting(c, true) + chan_nwaiting(c, false), 0);

	/* Buffered, cap 1: empty -> only the send is ready; full -> only
	 * the receive. */
	chan_t b = chan_make(sizeof(int), 1);
	int out = 5, in = 0;
	struct select_case cs[] = { SELECT_SEND(b, &out), SELECT_RECV(b, &in) };
	for (int i = 0; i < 50; i++) {
		ASSERT_EQ(chan_select(cs, 2, false), 0);
		ASSERT_EQ(chan_select(cs, 2, false), 1);
		ASSERT_EQ(in, 5);
	}
	chan_free(b);
	chan_free(c);
}

/* ---- a select blocked on receives is woken by a close ---- */

static void closer(void *p)
{
	chan_close(p);
}

TEST(chan_select_woken_by_close)
{
	chan_t c[3];
	int v[3] = { 1, 1, 1 };

	for (int i = 0; i < 3; i++)
		c[i] = chan_make(sizeof(int), 0);
	go(closer, c[1]);
	struct select_case cs[] = {
		SELECT_RECV(c[0], &v[0]), SELECT_RECV(c[1], &v[1]), SELECT_RECV(c[2], &v[2]),
	};
	ASSERT_EQ(chan_select(cs, 3, false), 1);
	ASSERT(!cs[1].ok);
	ASSERT_EQ(v[1], 0);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(chan_nwaiting(c[i], true), 0);
		chan_free(c[i]);
	}
}

/* ---- 1,000 Gs selecting over 10 channels: nothing lost ---- */

#define MANY_GS		1000
#define MANY_CHANS	10

struct many {
	chan_t c[MANY_CHANS];
	volatile uint32_t seen[MANY_GS / 2];
	struct waitgroup wg;
	uint32_t next_id;		/* atomic: hands out sender values */
};

static void many_sender(void *p)
{
	struct many *m = p;
	uint32_t v = atomic_xadd32(&m->next_id, 1) - 1;
	struct select_case cs[MANY_CHANS];

	for (int i = 0; i < MANY_CHANS; i++)
		cs[i] = (struct select_case)SELECT_SEND(m->c[i], &v);
	int k = chan_select(cs, MANY_CHANS, false);
	if (k < 0 || k >= MANY_CHANS)
		test_fail(__FILE__, __LINE__, "select returned %d", k);
	waitgroup_done(&m->wg);
}

static void many_receiver(void *p)
{
	struct many *m = p;
	uint32_t v = ~0u;
	struct select_case cs[MANY_CHANS];

	for (int i = 0; i < MANY_CHANS; i++)
		cs[i] = (struct select_case)SELECT_RECV(m->c[i], &v);
	int k = chan_select(cs, MANY_CHANS, false);
	if (k < 0 || !cs[k].ok || v >= MANY_GS / 2)
		test_fail(__FILE__, __LINE__, "select %d ok %d value %u", k,
			  k >= 0 ? cs[k].ok : -1, v);
	else
		atomic_xadd32(&m->seen[v], 1);
	waitgroup_done(&m->wg);
}

TEST(chan_select_1000_gs_over_10_channels)
{
	struct many *m = kmalloc(sizeof *m);

	for (int i = 0; i < MANY_CHANS; i++)
		m->c[i] = chan_make(sizeof(uint32_t), i % 2 ? 0 : 2);
	waitgroup_add(&m->wg, MANY_GS);
	/* Interleave senders and receivers, so that selects meet selects. */
	for (int i = 0; i < MANY_GS / 2; i++) {
		go(many_receiver, m);
		go(many_sender, m);
	}
	waitgroup_wait(&m->wg);
	for (int v = 0; v < MANY_GS / 2; v++)
		ASSERT_EQ(m->seen[v], 1);	/* each value exactly once */
	for (int i = 0; i < MANY_CHANS; i++) {
		ASSERT_EQ(chan_len(m->c[i]), 0);
		ASSERT_EQ(chan_nwaiting(m->c[i], true), 0);
		ASSERT_EQ(chan_nwaiting(m->c[i], false), 0);
		chan_free(m->c[i]);
	}
	kfree(m);
}

/* ---- stress: selects mixing sends and receives on shared channels ---- */

/*
 * MIX_GS workers select over three of MIX_CHANS shared channels (two
 * receives and a send, changing every round) and a quit channel. A pump
 * selects over all of them in both directions, so that the system can
 * never block as a whole: a parked worker is on some channel, which the
 * pump serves; a parked pump is on every channel, both ways, so any
 * worker that arrives proceeds. Every value sent must be received once.
 */
#define MIX_GS		16
#define MIX_CHANS	4
#define MIX_TARGET	20000		/* operations before quitting */

struct mix {
	chan_t c[MIX_CHANS];
	chan_t quit;			/* closed: everyone stops */
	chan_t enough;			/* closed when MIX_TARGET is reached */
	volatile uint64_t sent_sum, recv_sum;
	volatile uint32_t nsent, nrecv, nops;
	struct waitgroup wg;
};

struct mix_arg {
	struct mix *m;
	uint32_t id;
};

static void mix_count(struct mix *m, bool sent, uint64_t v)
{
	if (sent) {
		atomic_xadd64(&m->sent_sum, (int64_t)v);
		atomic_xadd32(&m->nsent, 1);
	} else {
		atomic_xadd64(&m->recv_sum, (int64_t)v);
		atomic_xadd32(&m->nrecv, 1);
	}
	if (atomic_xadd32(&m->nops, 1) == MIX_TARGET)
		chan_close(m->enough);		/* exactly one G gets here */
}

static void mix_worker(void *p)
{
	struct mix_arg *a = p;
	struct mix *m = a->m;

	for (uint32_t i = 0;; i++) {
		uint64_t out = (uint64_t)a->id << 32 | i, in = 0;
		struct select_case cs[] = {
			SELECT_RECV(m->c[(a->id + i) % MIX_CHANS], &in),
			SELECT_SEND(m->c[(a->id + i + 1) % MIX_CHANS], &out),
			SELECT_RECV(m->c[(a->id + 2 * i + 3) % MIX_CHANS], &in),
			SELECT_RECV(m->quit, NULL),
		};
		int k = chan_select(cs, 4, false);
		if (k == 3)
			break;
		mix_count(m, k == 1, k == 1 ? out : in);
	}
	waitgroup_done(&m->wg);
}

static void mix_pump(void *p)
{
	struct mix *m = p;

	for (uint32_t i = 0;; i++) {
		uint64_t out = (uint64_t)MIX_GS << 32 | i, in = 0;
		struct select_case cs[2 * MIX_CHANS + 1];
		for (int c = 0; c < MIX_CHANS; c++) {
			cs[2 * c] = (struct select_case)SELECT_RECV(m->c[c], &in);
			cs[2 * c + 1] = (struct select_case)SELECT_SEND(m->c[c], &out);
		}
		cs[2 * MIX_CHANS] = (struct select_case)SELECT_RECV(m->quit, NULL);
		int k = chan_select(cs, 2 * MIX_CHANS + 1, false);
		if (k == 2 * MIX_CHANS)
			break;
		mix_count(m, k % 2 == 1, k % 2 == 1 ? out : in);
	}
	waitgroup_done(&m->wg);
}

TEST(chan_select_stress_mixed_cases)
{
	static struct mix m;
	static struct mix_arg args[MIX_GS];
	static const size_t caps[MIX_CHANS] = { 0, 0, 1, 3 };

	m = (struct mix){ 0 };
	for (int i = 0; i < MIX_CHANS; i++)
		m.c[i] = chan_make(sizeof(uint64_t), caps[i]);
	m.quit = chan_make(0, 0);
	m.enough = chan_make(0, 0);
	waitgroup_add(&m.wg, MIX_GS + 1);
	for (uint32_t i = 0; i < MIX_GS; i++) {
		args[i] = (struct mix_arg){ &m, i };
		go(mix_worker, &args[i]);
	}
	go(mix_pump, &m);
	ASSERT(!chan_recv(m.enough, NULL));	/* parks until closed */
	chan_close(m.quit);
	waitgroup_wait(&m.wg);
	/* What is still buffered was sent but not received. */
	uint64_t v;
	bool ok;
	for (int i = 0; i < MIX_CHANS; i++)
		while (chan_tryrecv(m.c[i], &v, &ok) && ok) {
			m.recv_sum += v;
			m.nrecv++;
		}
	printf("# %u sends, %u receives\n", m.nsent, m.nrecv);
	ASSERT_GE(m.nsent + m.nrecv, MIX_TARGET);
	ASSERT_EQ(m.nsent, m.nrecv);
	ASSERT_EQ(m.sent_sum, m.recv_sum);
	for (int i = 0; i < MIX_CHANS; i++) {
		ASSERT_EQ(chan_nwaiting(m.c[i], true) + chan_nwaiting(m.c[i], false), 0);
		chan_free(m.c[i]);
	}
	chan_free(m.quit);
	chan_free(m.enough);
}
