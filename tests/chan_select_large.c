/*
 * select over more cases than fit on a G's stack (SELECT_STACK_CASES):
 * every case can fire, each exactly when its channel is ready, the choice
 * among ready cases stays uniform, a channel named many times is locked
 * once, and the arrays a large select allocates are freed.
 */
#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/test.h"
#include "tests/chan_testutil.h"

/* A permutation of 0..n-1 from a fixed-seed LCG (the test's, not the
 * select's randomness). */
static void permute(uint32_t *a, uint32_t n, uint64_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t j = (uint32_t)((seed >> 33) % (i + 1));
		uint32_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/* ---- 1,000 channels, 1,000 rounds, each case once ---- */

#define BIG_CHANS 1000

struct big {
	chan_t c[BIG_CHANS];
	uint32_t order[BIG_CHANS];
};

/* Sends i on channel i, the channels in a shuffled order: the selecting
 * G finds the sender already queued (pass 1) or parks on all 1,000 and is
 * woken by it (passes 2 and 3), whichever comes first on the boot. */
static void big_sender(void *p)
{
	struct big *b = p;

	for (int i = 0; i < BIG_CHANS; i++) {
		uint32_t k = b->order[i];
		chan_send(b->c[k], &k);
	}
}

TEST(chan_select_large_1000_channels_each_case_fires_once)
{
	struct big *b = kmalloc(sizeof *b);
	struct select_case *cs = kmalloc(sizeof *cs * BIG_CHANS);
	uint32_t *seen = kmalloc(sizeof *seen * BIG_CHANS);
	uint32_t v = 0;

	for (int i = 0; i < BIG_CHANS; i++) {
		b->c[i] = chan_make(sizeof(uint32_t), 0);
		cs[i] = (struct select_case)SELECT_RECV(b->c[i], &v);
	}
	permute(b->order, BIG_CHANS, 1);
	go(big_sender, b);
	for (int round = 0; round < BIG_CHANS; round++) {
		v = UINT32_MAX;
		int k = chan_select(cs, BIG_CHANS, false);
		ASSERT(k >= 0 && k < BIG_CHANS);
		ASSERT(cs[k].ok);
		ASSERT_EQ(v, (uint32_t)k);		/* the value of that case's channel */
		ASSERT_EQ(b->order[round], (uint32_t)k);	/* the one sender's order */
		seen[k]++;
	}
	for (int i = 0; i < BIG_CHANS; i++) {
		ASSERT_EQ(seen[i], 1);
		/* No sudog of any round is left queued. */
		ASSERT_EQ(chan_nwaiting(b->c[i], true), 0);
		ASSERT_EQ(chan_nwaiting(b->c[i], false), 0);
		chan_free(b->c[i]);
	}
	kfree(seen);
	kfree(cs);
	kfree(b);
}

/* ---- fairness among many ready cases; nothing kept ---- */

#define FAIR_CASES	200
#define FAIR_PER_CASE	50
#define FAIR_ROUNDS	(FAIR_CASES * FAIR_PER_CASE)

TEST(chan_select_large_fair_between_ready_cases)
{
	chan_t *c = kmalloc(sizeof *c * FAIR_CASES);
	struct select_case *cs = kmalloc(sizeof *cs * FAIR_CASES);
	uint32_t *count = kmalloc(sizeof *count * FAIR_CASES);
	int v = 0, one = 1;

	for (int i = 0; i < FAIR_CASES; i++) {
		c[i] = chan_make(sizeof(int), 1);
		chan_send(c[i], &one);
		cs[i] = (struct select_case)SELECT_RECV(c[i], &v);
	}
	uint64_t before = kmalloc_bytes_in_use();
	for (int r = 0; r < FAIR_ROUNDS; r++) {
		int k = chan_select(cs, FAIR_CASES, false);
		ASSERT(k >= 0 && k < FAIR_CASES);
		count[k]++;
		chan_send(c[k], &one);		/* all stay ready */
	}
	/* Each select freed what it allocated (this G allocates nothing
	 * else in the loop, and the test runs alone). */
	ASSERT_EQ(kmalloc_bytes_in_use(), before);
	/* Each count is binomial(10,000, 1/200): mean 50, deviation 7.05.
	 * The bounds are 5 deviations below and 7 above: with 200 cases a
	 * uniform choice falls outside with probability under 1e-4, while a
	 * poll order that favoured the first or the last cases (a missing
	 * or broken shuffle) puts whole ranges at 0 or far above. */
	uint32_t min = UINT32_MAX, max = 0;
	for (int k = 0; k < FAIR_CASES; k++) {
		min = count[k] < min ? count[k] : min;
		max = count[k] > max ? count[k] : max;
	}
	printf("# %d rounds over %d ready cases: each chosen %u to %u times (mean %d)\n",
	       FAIR_ROUNDS, FAIR_CASES, min, max, FAIR_PER_CASE);
	for (int k = 0; k < FAIR_CASES; k++) {
		EXPECT_GE(count[k], 15);
		EXPECT_LE(count[k], 100);
	}
	for (int i = 0; i < FAIR_CASES; i++)
		chan_free(c[i]);
	kfree(count);
	kfree(cs);
	kfree(c);
}

/* ---- one channel named by many cases, selects on several cores ---- */

/*
 * DUP_GS Gs each select over DUP_CASES cases on DUP_CHANS shared channels
 * (each channel DUP_CASES / DUP_CHANS times, sends and receives, shuffled
 * differently per G) and a quit channel. A channel is locked once per
 * select however often it is named, so the cases of one channel must end
 * adjacent in the lock order: a duplicate left apart would take its
 * spinlock twice and hang the boot; two selects with different lock orders
 * could deadlock. Each G sends and receives on every channel, and the
 * channels are unbuffered: a G that arrives always finds a partner among
 * the parked ones, so the Gs never all block, and every operation pairs
 * two large selects, one of them parked (passes 2 and 3) or both racing.
 * Every value sent is received once.
 */
#define DUP_GS		4
#define DUP_CHANS	20
#define DUP_CASES	300
#define DUP_TARGET	1000		/* operations before quitting */

struct dup {
	chan_t c[DUP_CHANS];
	chan_t quit, enough;
	volatile uint64_t sent_sum, recv_sum;
	volatile uint32_t nsent, nrecv, nops;
	struct waitgroup wg;
};

struct dup_arg {
	struct dup *d;
	uint32_t id;
};

static void dup_count(struct dup *d, bool sent, uint64_t v)
{
	if (sent) {
		atomic_xadd64(&d->sent_sum, (int64_t)v);
		atomic_xadd32(&d->nsent, 1);
	} else {
		atomic_xadd64(&d->recv_sum, (int64_t)v);
		atomic_xadd32(&d->nrecv, 1);
	}
	if (atomic_xadd32(&d->nops, 1) == DUP_TARGET)
		chan_close(d->enough);		/* exactly one G gets here */
}

static void dup_worker(void *p)
{
	struct dup_arg *a = p;
	struct dup *d = a->d;
	struct select_case *cs = kmalloc(sizeof *cs * (DUP_CASES + 1));
	uint32_t *perm = kmalloc(sizeof *perm * DUP_CASES);
	uint64_t out = 0, in = 0;

	permute(perm, DUP_CASES, a->id + 7);
	for (int i = 0; i < DUP_CASES; i++) {
		chan_t c = d->c[perm[i] % DUP_CHANS];
		/* Channel perm % DUP_CHANS, both directions on each. */
		cs[i] = perm[i] / DUP_CHANS % 2 ? (struct select_case)SELECT_SEND(c, &out)
						: (struct select_case)SELECT_RECV(c, &in);
	}
	cs[DUP_CASES] = (struct select_case)SELECT_RECV(d->quit, NULL);
	for (uint32_t r = 0;; r++) {
		out = (uint64_t)a->id << 32 | r;
		int k = chan_select(cs, DUP_CASES + 1, false);
		if (k == DUP_CASES)
			break;
		dup_count(d, cs[k].dir == SELECT_DIR_SEND,
			  cs[k].dir == SELECT_DIR_SEND ? out : in);
	}
	kfree(perm);
	kfree(cs);
	waitgroup_done(&d->wg);
}

TEST(chan_select_large_one_channel_in_many_cases)
{
	static struct dup d;
	static struct dup_arg args[DUP_GS];

	d = (struct dup){ 0 };
	for (int i = 0; i < DUP_CHANS; i++)
		d.c[i] = chan_make(sizeof(uint64_t), 0);
	d.quit = chan_make(0, 0);
	d.enough = chan_make(0, 0);
	waitgroup_add(&d.wg, DUP_GS);
	for (uint32_t i = 0; i < DUP_GS; i++) {
		args[i] = (struct dup_arg){ &d, i };
		go(dup_worker, &args[i]);
	}
	ASSERT(!chan_recv(d.enough, NULL));	/* parks until closed */
	chan_close(d.quit);
	waitgroup_wait(&d.wg);
	printf("# %u sends, %u receives\n", d.nsent, d.nrecv);
	ASSERT_GE(d.nops, DUP_TARGET);
	ASSERT_EQ(d.nsent, d.nrecv);
	ASSERT_EQ(d.sent_sum, d.recv_sum);
	for (int i = 0; i < DUP_CHANS; i++) {
		ASSERT_EQ(chan_nwaiting(d.c[i], true) + chan_nwaiting(d.c[i], false), 0);
		chan_free(d.c[i]);
	}
	chan_free(d.quit);
	chan_free(d.enough);
}

/*
 * Go's limit, 65,536 cases, in a select that blocks: 256 channels named
 * 256 times each. Its sudogs (72 bytes a case: 4.7 MB) are over the
 * page allocator's largest block; they were "out of memory" past 58,254
 * cases. A sender on one channel fires one of that channel's cases.
 */
#define MAX_CHANS	256
#define MAX_CASES	SELECT_MAX_CASES

/* Sends once the select has parked on every case (its channel has all
 * 256 of its cases queued as receivers), so that the select blocks. */
static void max_sender(void *p)
{
	uint32_t v = 77;
	while (chan_nwaiting(p, true) < MAX_CASES / MAX_CHANS)
		gosched();
	chan_send(p, &v);
}

TEST(chan_select_large_65536_cases_blocking)
{
	chan_t *c = kmalloc(sizeof *c * MAX_CHANS);
	struct select_case *cs = kmalloc(sizeof *cs * MAX_CASES);
	uint32_t v = 0;
	for (int i = 0; i < MAX_CHANS; i++)
		c[i] = chan_make(sizeof(uint32_t), 0);
	for (int k = 0; k < MAX_CASES; k++)
		cs[k] = (struct select_case)SELECT_RECV(c[k % MAX_CHANS], &v);
	go(max_sender, c[123]);
	uint64_t before = kmalloc_bytes_in_use();
	int k = chan_select(cs, MAX_CASES, false);
	ASSERT(k >= 0 && k < MAX_CASES);
	EXPECT_EQ(k % MAX_CHANS, 123);
	EXPECT(cs[k].ok);
	EXPECT_EQ(v, 77);
	EXPECT_EQ(kmalloc_bytes_in_use(), before);	/* its arrays went back */
	for (int i = 0; i < MAX_CHANS; i++) {
		EXPECT_EQ(chan_nwaiting(c[i], true) + chan_nwaiting(c[i], false), 0);
		chan_free(c[i]);
	}
	kfree(cs);
	kfree(c);
}
