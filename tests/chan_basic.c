/*
 * Channel semantics: FIFO, capacity, len/cap, unbuffered hand-off, close,
 * try-operations, zero-size elements, a non-blocking receive racing a
 * close.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/test.h"
#include "tests/chan_testutil.h"

/* ---- FIFO order per sender through a buffered channel ---- */

#define FIFO_SENDERS	4
#define FIFO_PER_SENDER	5000
#define FIFO_CAP	16

struct fifo_arg {
	chan_t c;
	uint32_t id;
	struct waitgroup *wg;
};

static void fifo_sender(void *p)
{
	struct fifo_arg *a = p;

	for (uint32_t i = 0; i < FIFO_PER_SENDER; i++) {
		uint32_t v = a->id << 24 | i;
		chan_send(a->c, &v);
	}
	waitgroup_done(a->wg);
}

TEST(chan_buffered_fifo_per_sender)
{
	chan_t c = chan_make(sizeof(uint32_t), FIFO_CAP);
	struct waitgroup wg = { 0 };
	struct fifo_arg args[FIFO_SENDERS];
	uint32_t next[FIFO_SENDERS] = { 0 };

	waitgroup_add(&wg, FIFO_SENDERS);
	for (uint32_t s = 0; s < FIFO_SENDERS; s++) {
		args[s] = (struct fifo_arg){ c, s, &wg };
		go(fifo_sender, &args[s]);
	}
	for (int n = 0; n < FIFO_SENDERS * FIFO_PER_SENDER; n++) {
		uint32_t v;
		ASSERT(chan_recv(c, &v));
		uint32_t s = v >> 24, i = v & 0xffffff;
		ASSERT_LT(s, FIFO_SENDERS);
		ASSERT_EQ(i, next[s]);		/* in order, none lost */
		next[s]++;
		ASSERT_LE(chan_len(c), FIFO_CAP);
	}
	waitgroup_wait(&wg);
	ASSERT_EQ(chan_len(c), 0);
	chan_free(c);
}

/* ---- capacity, len and cap ---- */

static volatile uint32_t cap_sent;

static void cap_sender(void *p)
{
	chan_t c = p;

	for (uint32_t i = 0; i < 10; i++) {
		chan_send(c, &i);
		atomic_store32(&cap_sent, i + 1);
	}
}

TEST(chan_capacity_len_cap)
{
	chan_t c = chan_make(sizeof(uint64_t), 4);
	uint64_t v;
	bool ok;

	ASSERT_EQ(chan_cap(c), 4);
	ASSERT_EQ(chan_len(c), 0);
	for (uint64_t i = 0; i < 4; i++)
		ASSERT(chan_trysend(c, &i));
	ASSERT_EQ(chan_len(c), 4);
	v = 99;
	ASSERT(!chan_trysend(c, &v));		/* full */
	for (uint64_t i = 0; i < 4; i++) {
		ASSERT(chan_tryrecv(c, &v, &ok));
		ASSERT(ok);
		ASSERT_EQ(v, i);
	}
	ASSERT(!chan_tryrecv(c, &v, &ok));	/* empty, open */
	chan_free(c);

	/* A blocking sender stops at exactly the capacity. */
	chan_t c2 = chan_make(sizeof(uint32_t), 4);
	atomic_store32(&cap_sent, 0);
	go(cap_sender, c2);
	ASSERT(chan_wait_for_waiters(c2, false, 1, WAIT_TIMEOUT_NS));
	ASSERT_EQ(chan_len(c2), 4);
	ASSERT_EQ(atomic_load32(&cap_sent), 4);
	for (uint32_t i = 0; i < 10; i++) {
		uint32_t x;
		ASSERT(chan_recv(c2, &x));
		ASSERT_EQ(x, i);
	}
	yield_for(NSEC_PER_MSEC);
	ASSERT_EQ(chan_nwaiting(c2, false), 0);
	ASSERT_EQ(chan_cap(c2), 4);

	chan_t u = chan_make(sizeof(int), 0);
	ASSERT_EQ(chan_cap(u), 0);
	ASSERT_EQ(chan_len(u), 0);
	ASSERT_EQ(chan_cap(NULL), 0);
	chan_free(u);
	chan_free(c2);
}

/* ---- unbuffered: the send completes only with a receiver ---- */

#define HANDOFF_N 2000
static volatile uint32_t handoff_done;

static void handoff_sender(void *p)
{
	chan_t c = p;

	for (uint32_t i = 0; i < HANDOFF_N; i++)
		chan_send(c, &i);
	atomic_store32(&handoff_done, 1);
}

TEST(chan_unbuffered_handoff)
{
	chan_t c = chan_make(sizeof(uint32_t), 0);

	atomic_store32(&handoff_done, 0);
	go(handoff_sender, c);
	/* The sender parks on its first send: nothing is buffered. */
	ASSERT(chan_wait_for_waiters(c, false, 1, WAIT_TIMEOUT_NS));
	ASSERT_EQ(chan_len(c), 0);
	for (uint32_t i = 0; i < HANDOFF_N; i++) {
		uint32_t v = ~0u;
		ASSERT(chan_recv(c, &v));
		ASSERT_EQ(v, i);
		ASSERT_EQ(chan_len(c), 0);
	}
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (!atomic_load32(&handoff_done) && nanotime() < end)
		gosched();
	ASSERT_EQ(atomic_load32(&handoff_done), 1);
	chan_free(c);
}

/* ---- close wakes every blocked receiver with ok == false ---- */

#define CLOSE_RECEIVERS 64

struct close_arg {
	chan_t c;
	struct waitgroup *wg;
	volatile uint32_t *nfalse;
};

static void close_receiver(void *p)
{
	struct close_arg *a = p;
	uint64_t v = 0xdeadbeef;

	bool ok = chan_recv(a->c, &v);
	if (!ok && v == 0)		/* zero value, as Go */
		atomic_xadd32(a->nfalse, 1);
	waitgroup_done(a->wg);
}

TEST(chan_close_wakes_all_receivers)
{
	chan_t c = chan_make(sizeof(uint64_t), 0);
	struct waitgroup wg = { 0 };
	volatile uint32_t nfalse = 0;
	struct close_arg a = { c, &wg, &nfalse };

	waitgroup_add(&wg, CLOSE_RECEIVERS);
	for (int i = 0; i < CLOSE_RECEIVERS; i++)
		go(close_receiver, &a);
	ASSERT(chan_wait_for_waiters(c, true, CLOSE_RECEIVERS, WAIT_TIMEOUT_NS));
	chan_close(c);
	waitgroup_wait(&wg);
	ASSERT_EQ(nfalse, CLOSE_RECEIVERS);
	chan_free(c);
}

TEST(chan_close_drains_buffer_first)
{
	chan_t c = chan_make(sizeof(int), 3);
	int v;

	for (int i = 1; i <= 3; i++)
		chan_send(c, &i);
	chan_close(c);
	for (int i = 1; i <= 3; i++) {
		ASSERT(chan_recv(c, &v));
		ASSERT_EQ(v, i);
	}
	v = 7;
	ASSERT(!chan_recv(c, &v));
	ASSERT_EQ(v, 0);
	ASSERT(!chan_recv(c, NULL));		/* stays closed */
	chan_free(c);
}

/* ---- non-blocking operations ---- */

static void try_receiver(void *p)
{
	uint32_t v;

	chan_recv(p, &v);
}

TEST(chan_try_ops)
{
	chan_t u = chan_make(sizeof(uint32_t), 0);
	uint32_t v = 5;
	bool ok = true;

	ASSERT(!chan_trysend(u, &v));		/* nobody receiving */
	ASSERT(!chan_tryrecv(u, &v, &ok));	/* nobody sending */
	go(try_receiver, u);
	ASSERT(chan_wait_for_waiters(u, true, 1, WAIT_TIMEOUT_NS));
	ASSERT(chan_trysend(u, &v));		/* a receiver is parked */
	ASSERT_EQ(chan_nwaiting(u, true), 0);

	chan_close(u);
	v = 9;
	ASSERT(chan_tryrecv(u, &v, &ok));	/* closed: proceeds ... */
	ASSERT(!ok);				/* ... with ok == false */
	ASSERT_EQ(v, 0);

	/* A nil channel is never ready. */
	ASSERT(!chan_trysend(NULL, &v));
	ASSERT(!chan_tryrecv(NULL, &v, &ok));
	chan_free(u);
}

/* ---- zero-size elements: chan struct{} as a signal ---- */

static void signal_done(void *p)
{
	chan_send(p, NULL);
}

TEST(chan_zero_size_elements)
{
	chan_t done = chan_make(0, 0);
	chan_t sem = chan_make(0, 3);

	for (int i = 0; i < 3; i++)
		ASSERT(chan_trysend(sem, NULL));
	ASSERT(!chan_trysend(sem, NULL));
	ASSERT_EQ(chan_len(sem), 3);
	for (int i = 0; i < 8; i++)
		go(signal_done, done);
	for (int i = 0; i < 8; i++)
		ASSERT(chan_recv(done, NULL));
	chan_free(done);
	chan_free(sem);
}

/* ---- a non-blocking receive racing a close (Go's TestNonblockRecvRace) ---- */

/*
 * A buffered channel holding one value, a G doing a non-blocking receive
 * on it while this G closes it: the channel is never empty-and-open, so
 * "would block" is always wrong. Go's fast path loads "empty", then
 * "closed", then "empty" again, each with acquire ordering; a plain load
 * that arm64 lets pass the load of closed breaks it. Half the rounds use
 * chan_tryrecv, half a select with a default case.
 */
#define NBRECV_ROUNDS	4000u

static volatile uint32_t nbrecv_wouldblock;

static void nbrecv_g(void *arg)
{
	void **a = arg;
	chan_t c = a[0];
	struct waitgroup *wg = a[1];
	int v;
	bool ok;
	bool got;
	if ((uintptr_t)a[2] & 1) {
		struct select_case cs[] = { SELECT_RECV(c, &v) };
		got = chan_select(cs, 1, true) == 0;
	} else {
		got = chan_tryrecv(c, &v, &ok);
	}
	if (!got)
		atomic_xadd32(&nbrecv_wouldblock, 1);
	waitgroup_done(wg);
}

TEST(chan_nonblocking_recv_racing_close_never_reports_would_block)
{
	nbrecv_wouldblock = 0;
	for (uintptr_t i = 0; i < NBRECV_ROUNDS; i++) {
		struct waitgroup wg = { 0 };
		chan_t c = chan_make(sizeof(int), 1);
		int one = 1, v;
		chan_send(c, &one);
		void *a[3] = { c, &wg, (void *)i };
		waitgroup_add(&wg, 1);
		go(nbrecv_g, a);
		chan_close(c);
		chan_recv(c, &v);	/* drain: either value or zero */
		waitgroup_wait(&wg);
		chan_free(c);
	}
	EXPECT_EQ(nbrecv_wouldblock, 0);
}

/* ---- elements at every alignment ---- */

/*
 * Elements of 2, 4, 8 and 16 bytes sent from and received into every
 * byte offset of a buffer, through an unbuffered channel (the value
 * moves straight between the two Gs' buffers, either one parked) and a
 * buffered one: elemcopy moves an aligned pair inline and the rest with
 * memcpy (sched/chan.c), and every byte must arrive whichever it takes.
 */
#define ALIGN_ROUNDS 64

struct align_arg {
	chan_t c;
	uint32_t size;
	struct waitgroup *wg;
};

static uint8_t align_byte(uint32_t size, uint32_t round, uint32_t k)
{
	return (uint8_t)(size * 31 + round * 7 + k * 13 + 1);
}

static void align_sender(void *p)
{
	struct align_arg *a = p;
	_Alignas(16) uint8_t buf[32];

	for (uint32_t r = 0; r < ALIGN_ROUNDS; r++) {
		uint8_t *at = buf + r % 16;
		for (uint32_t k = 0; k < a->size; k++)
			at[k] = align_byte(a->size, r, k);
		chan_send(a->c, at);
		if (r % 3 == 0)
			gosched();	/* now the receiver parks first, now the sender */
	}
	waitgroup_done(a->wg);
}

TEST(chan_elements_at_every_alignment_arrive_whole)
{
	static const uint32_t sizes[] = { 2, 4, 8, 16 };

	for (uint32_t cap = 0; cap <= 2; cap += 2) {
		for (uint32_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			struct waitgroup wg = { 0 };
			struct align_arg a = { chan_make(sizes[s], cap), sizes[s], &wg };
			_Alignas(16) uint8_t buf[32];

			waitgroup_add(&wg, 1);
			go(align_sender, &a);
			for (uint32_t r = 0; r < ALIGN_ROUNDS; r++) {
				uint8_t *at = buf + (r * 5) % 16;
				memset(buf, 0xee, sizeof buf);
				ASSERT(chan_recv(a.c, at));
				for (uint32_t k = 0; k < a.size; k++)
					ASSERT_EQ(at[k], align_byte(a.size, r, k));
				/* Nothing written around it. */
				for (uint8_t *q = buf; q < at; q++)
					ASSERT_EQ(*q, 0xee);
				for (uint8_t *q = at + a.size; q < buf + sizeof buf; q++)
					ASSERT_EQ(*q, 0xee);
				if (r % 4 == 1)
					gosched();
			}
			waitgroup_wait(&wg);
			chan_free(a.c);
		}
	}
}
