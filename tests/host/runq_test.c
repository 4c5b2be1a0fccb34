/*
 * Host tests of the run queues (sched/runq.c, sched/globrunq.c): the exact
 * behaviour of each operation at every fill level, then the concurrent
 * properties with real threads (clean under ThreadSanitizer).
 *
 *   runq_test [stress_gs]    stress_gs = Gs pushed through the stress test
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel/atomic.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "sched/sched.h"
#include "tests/host/check.h"
#include "tests/host/host.h"

int check_failures;

#define NGS 4096			/* G records for the exact tests */
static struct g gs[NGS];
static struct p p_a, p_b;

static long gid(const struct g *gp) { return gp ? gp - gs : -1; }

static void reset(void)
{
	memset(&p_a, 0, sizeof p_a);
	memset(&p_b, 0, sizeof p_b);
	memset(gs, 0, sizeof gs);
	sched.runq = (struct gqueue){ 0 };
	sched.runqsize = 0;
	sched.nprocs = 1;
}

/* Number of Gs on pp's ring (not runnext). Owner's view. */
static uint32_t ringlen(struct p *pp) { return pp->runqtail - pp->runqhead; }

/* ---- exact behaviour ---------------------------------------------------- */

/* Every fill level 0..RUNQ_SIZE comes back in FIFO order, also across the
 * 32-bit wrap of the indices. */
static void test_put_get_order_every_fill(void)
{
	static const uint32_t starts[] = { 0, 0xFFFFFF00u };
	for (unsigned s = 0; s < 2; s++) {
		reset();
		p_a.runqhead = p_a.runqtail = starts[s];
		for (uint32_t fill = 0; fill <= RUNQ_SIZE; fill++) {
			REQUIRE(runqempty(&p_a), "fill %u: not empty before", fill);
			for (uint32_t i = 0; i < fill; i++)
				runqput(&p_a, &gs[i], false);
			REQUIRE(ringlen(&p_a) == fill, "fill %u: len %u", fill,
				ringlen(&p_a));
			REQUIRE(sched.runq.size == 0, "fill %u: spilled %d", fill,
				sched.runq.size);
			REQUIRE(fill == 0 || !runqempty(&p_a), "fill %u: empty", fill);
			for (uint32_t i = 0; i < fill; i++) {
				bool inherit = true;
				struct g *gp = runqget(&p_a, &inherit);
				REQUIRE(gp == &gs[i] && !inherit,
					"fill %u: get %u gave G %ld inherit %d",
					fill, i, gid(gp), inherit);
			}
			REQUIRE(runqget(&p_a, NULL) == NULL, "fill %u: extra G", fill);
		}
	}
}

/* runqput(next) puts the G in runnext and kicks the previous one to the
 * tail; runqget returns runnext first with inherit_time set. */
static void test_runnext_kick_out(void)
{
	for (uint32_t fill = 0; fill < RUNQ_SIZE; fill++) {
		reset();
		for (uint32_t i = 0; i < fill; i++)
			runqput(&p_a, &gs[i], false);
		runqput(&p_a, &gs[1000], true);
		runqput(&p_a, &gs[1001], true);	/* kicks 1000 to the tail */
		REQUIRE(p_a.runnext == (uintptr_t)&gs[1001], "fill %u", fill);
		REQUIRE(ringlen(&p_a) == fill + 1, "fill %u: ring %u", fill,
			ringlen(&p_a));
		bool inherit = false;
		struct g *gp = runqget(&p_a, &inherit);
		REQUIRE(gp == &gs[1001] && inherit, "fill %u: first %ld", fill, gid(gp));
		for (uint32_t i = 0; i < fill; i++) {
			gp = runqget(&p_a, &inherit);
			REQUIRE(gp == &gs[i] && !inherit, "fill %u: got %ld", fill,
				gid(gp));
		}
		gp = runqget(&p_a, &inherit);
		REQUIRE(gp == &gs[1000] && !inherit, "fill %u: kicked %ld", fill,
			gid(gp));
		REQUIRE(runqempty(&p_a), "fill %u", fill);
	}
}

/* runq_rotate_alone (gosched_fast at one P) is runqput_ring then
 * runqget_ring, its reference: the same G out and the same ring after,
 * at every fill level with a G, across the indices' wrap; a full ring as
 * runqget_ring then runqput_ring (the head is read before the tail's
 * slot, which is the head's, is written). */
static void test_rotate_alone_is_put_then_get(void)
{
	static const uint32_t starts[] = { 0, 0xFFFFFF80u };
	for (unsigned s = 0; s < 2; s++) {
		for (uint32_t fill = 1; fill <= RUNQ_SIZE; fill++) {
			reset();
			p_a.runqhead = p_a.runqtail = p_b.runqhead = p_b.runqtail = starts[s];
			for (uint32_t i = 0; i < fill; i++) {
				runqput_ring(&p_a, &gs[i]);
				runqput_ring(&p_b, &gs[i]);
			}
			struct g *gp = &gs[fill];
			struct g *rot = runq_rotate_alone(&p_a, gp, p_a.runqhead, p_a.runqtail);
			struct g *ref;
			if (fill < RUNQ_SIZE) {
				REQUIRE(runqput_ring(&p_b, gp), "fill %u: put", fill);
				ref = runqget_ring(&p_b);
			} else {
				ref = runqget_ring(&p_b);
				REQUIRE(runqput_ring(&p_b, gp), "fill %u: put", fill);
			}
			REQUIRE(rot == ref && rot == &gs[0], "fill %u: rotation gave G %ld, put and get %ld",
				fill, gid(rot), gid(ref));
			REQUIRE(p_a.runqhead == p_b.runqhead && p_a.runqtail == p_b.runqtail,
				"fill %u: head %u tail %u, put and get %u %u", fill, p_a.runqhead,
				p_a.runqtail, p_b.runqhead, p_b.runqtail);
			for (uint32_t i = 0; i < fill; i++) {
				struct g *a = runqget_ring(&p_a), *b = runqget_ring(&p_b);
				REQUIRE(a == b && a == &gs[i + 1], "fill %u: get %u gave G %ld, put and get %ld",
					fill, i, gid(a), gid(b));
			}
			REQUIRE(runqempty(&p_a) && runqempty(&p_b), "fill %u: not empty", fill);
		}
	}
}

/* Collect every G from p_a, p_b and the global queue; check each of
 * gs[0..n) exactly once. */
static void check_exactly_once(const char *what, uint32_t n)
{
	static uint8_t seen[NGS];
	memset(seen, 0, sizeof seen);
	struct g *gp;
	uint32_t total = 0;
	struct gqueue q = { 0 };
	runqdrain(&p_a, &q);
	runqdrain(&p_b, &q);
	host_cpu_init(0);
	spin_lock(&sched.lock);
	globrunqputbatch(&q);
	while ((gp = globrunqget()) != NULL) {
		seen[gid(gp)]++;
		total++;
	}
	spin_unlock(&sched.lock);
	CHECK(total == n, "%s: %u Gs found, %u put", what, total, n);
	for (uint32_t i = 0; i < n; i++)
		CHECK(seen[i] == 1, "%s: G %u seen %u times", what, i, seen[i]);
}

/* The 257th put into an empty P moves half the ring plus itself (129 Gs)
 * to the global queue, oldest first; nothing is lost. */
static void test_overflow_to_global(void)
{
	reset();
	for (uint32_t i = 0; i < RUNQ_SIZE + 1; i++)
		runqput(&p_a, &gs[i], false);
	CHECK(ringlen(&p_a) == RUNQ_SIZE / 2, "ring %u", ringlen(&p_a));
	CHECK(sched.runq.size == RUNQ_SIZE / 2 + 1, "global %d", sched.runq.size);
	struct g *gp = sched.runq.head;
	for (uint32_t i = 0; i < RUNQ_SIZE / 2 && gp; i++, gp = gp->schedlink)
		CHECK(gp == &gs[i], "global[%u] = G %ld", i, gid(gp));
	CHECK(gp == &gs[RUNQ_SIZE], "global tail = G %ld", gid(gp));
	check_exactly_once("257 puts", RUNQ_SIZE + 1);

	/* The half moved from every ring position: where it wraps, the
	 * global queue still has it oldest first. */
	static const uint32_t offs[] = { 1, 100, 128, 129, 200, 255, 0xffffff80u };
	for (unsigned k = 0; k < sizeof offs / sizeof offs[0]; k++) {
		reset();
		p_a.runqhead = p_a.runqtail = offs[k];
		for (uint32_t i = 0; i < RUNQ_SIZE + 1; i++)
			runqput(&p_a, &gs[i], false);
		CHECK(sched.runq.size == RUNQ_SIZE / 2 + 1, "at %u: global %d", offs[k],
		      sched.runq.size);
		gp = sched.runq.head;
		for (uint32_t i = 0; i < RUNQ_SIZE / 2 && gp; i++, gp = gp->schedlink)
			CHECK(gp == &gs[i], "at %u: global[%u] = G %ld", offs[k], i, gid(gp));
		CHECK(gp == &gs[RUNQ_SIZE] && !gp->schedlink && sched.runq.tail == gp,
		      "at %u: global tail = G %ld", offs[k], gid(gp));
		for (uint32_t i = RUNQ_SIZE / 2; i < RUNQ_SIZE; i++)
			CHECK(runqget(&p_a, NULL) == &gs[i], "at %u: ring lost G %u", offs[k], i);
	}

	/* Many overflows in a row, runnext mixed in. */
	reset();
	for (uint32_t i = 0; i < 3000; i++)
		runqput(&p_a, &gs[i], i % 7 == 0);
	check_exactly_once("3000 puts", 3000);
}

/* A steal takes half the ring rounded up (i/2 or i/2+1 of i), the oldest
 * ones, and returns the last of them; runnext only from an empty ring. */
static void test_steal_half(void)
{
	for (int with_next = 0; with_next < 2; with_next++)
	for (int steal_next = 0; steal_next < 2; steal_next++)
	for (uint32_t i = 0; i <= RUNQ_SIZE; i++) {
		reset();
		for (uint32_t k = 0; k < i; k++)
			runqput(&p_a, &gs[k], false);
		if (with_next)
			runqput(&p_a, &gs[2000], true);
		struct g *gp = runqsteal(&p_b, &p_a, steal_next);
		uint32_t want = i - i / 2;
		if (i == 0) {
			if (with_next && steal_next)
				REQUIRE(gp == &gs[2000] && runqempty(&p_a),
					"runnext steal gave %ld", gid(gp));
			else
				REQUIRE(gp == NULL, "empty steal gave %ld", gid(gp));
			REQUIRE(runqempty(&p_b), "thief not empty");
			continue;
		}
		REQUIRE(want == i / 2 || want == i / 2 + 1, "i %u", i);
		REQUIRE(gp == &gs[want - 1], "i %u: returned G %ld, want %u", i,
			gid(gp), want - 1);
		REQUIRE(ringlen(&p_b) == want - 1, "i %u: thief ring %u", i,
			ringlen(&p_b));
		REQUIRE(ringlen(&p_a) == i - want, "i %u: victim ring %u", i,
			ringlen(&p_a));
		REQUIRE(p_a.runnext == (with_next ? (uintptr_t)&gs[2000] : 0),
			"i %u: runnext touched", i);
		for (uint32_t k = 0; k + 1 < want; k++) {
			struct g *t = runqget(&p_b, NULL);
			REQUIRE(t == &gs[k], "i %u: thief got %ld want %u", i, gid(t), k);
		}
		for (uint32_t k = want; k < i; k++) {
			struct g *t = runqget(&p_a, NULL);
			if (with_next && k == want) {
				REQUIRE(t == &gs[2000], "i %u: runnext %ld", i, gid(t));
				t = runqget(&p_a, NULL);
			}
			REQUIRE(t == &gs[k], "i %u: victim got %ld want %u", i, gid(t), k);
		}
	}

	/* Stealing a running P's runnext waits ~3 us first. */
	reset();
	p_a.status = _Prunning;
	runqput(&p_a, &gs[7], true);
	uint64_t t0 = nanotime();
	struct g *gp = runqsteal(&p_b, &p_a, true);
	uint64_t dt = nanotime() - t0;
	CHECK(gp == &gs[7], "got %ld", gid(gp));
	CHECK(dt >= 3000, "backoff only %llu ns", (unsigned long long)dt);
}

static void test_putbatch_and_drain(void)
{
	reset();
	for (uint32_t i = 0; i < 200; i++)
		runqput(&p_a, &gs[i], false);
	struct gqueue q = { 0 };
	for (uint32_t i = 200; i < 300; i++)
		gqueue_pushback(&q, &gs[i]);
	runqputbatch(&p_a, &q);
	CHECK(gqueue_empty(&q) && q.size == 0, "batch left %d", q.size);
	CHECK(ringlen(&p_a) == RUNQ_SIZE, "ring %u", ringlen(&p_a));
	CHECK(sched.runq.size == 300 - RUNQ_SIZE, "global %d", sched.runq.size);
	runqput(&p_a, &gs[300], true);

	struct gqueue out = { 0 };
	runqdrain(&p_a, &out);
	CHECK(out.size == RUNQ_SIZE + 1, "drained %d", out.size);
	CHECK(out.head == &gs[300], "runnext first: %ld", gid(out.head));
	uint32_t k = 0;
	for (struct g *gp = out.head->schedlink; gp; gp = gp->schedlink, k++)
		CHECK(gp == &gs[k], "drain[%u] = %ld", k, gid(gp));
	CHECK(runqempty(&p_a), "not empty after drain");
}

/* n = min(max, size, size/nprocs + 1), first G returned, rest in q. */
static void test_globrunq(void)
{
	static const struct { int32_t size, max; uint32_t nprocs; int32_t want; } c[] = {
		{ 0, 128, 4, 0 },	{ 1, 128, 4, 1 },	{ 100, 128, 4, 26 },
		{ 1000, 128, 1, 128 },	{ 3, 128, 8, 1 },	{ 100, 5, 1, 5 },
		{ 10, 128, 1, 10 },	{ 64, 128, 2, 33 },
	};
	host_cpu_init(0);
	for (unsigned k = 0; k < sizeof c / sizeof c[0]; k++) {
		reset();
		sched.nprocs = c[k].nprocs;
		spin_lock(&sched.lock);
		for (int32_t i = 0; i < c[k].size; i++)
			globrunqput(&gs[i]);
		struct gqueue q = { 0 };
		struct g *gp = globrunqgetbatch(c[k].max, &q);
		int32_t got = gp ? 1 + q.size : 0;
		CHECK(got == c[k].want, "size %d max %d nprocs %u: got %d want %d",
		      c[k].size, c[k].max, c[k].nprocs, got, c[k].want);
		CHECK(!gp || gp == &gs[0], "first %ld", gid(gp));
		CHECK(sched.runq.size == c[k].size - got, "left %d", sched.runq.size);
		globrunqputhead(&gs[3000]);
		CHECK(globrunqget() == &gs[3000], "head put not first");
		spin_unlock(&sched.lock);
	}
}

/*
 * globrunqget_runq: the same n as globrunqgetchain, the first G returned;
 * a take that leaves Gs behind puts the rest on the ring itself (no more
 * than it has room for), in order after what the ring held, from every
 * ring position (wrapping too); a take of the whole queue hands the rest
 * back as a chain. Nothing lost or doubled.
 */
static void test_globrunq_to_ring(void)
{
	static const struct { int32_t size, max; uint32_t nprocs; int32_t want; } c[] = {
		{ 0, 128, 4, 0 },	{ 1, 128, 4, 1 },	{ 100, 128, 4, 26 },
		{ 1000, 128, 1, 128 },	{ 3, 128, 8, 1 },	{ 100, 5, 1, 5 },
		{ 10, 128, 1, 10 },	{ 64, 128, 2, 33 },	{ 129, 128, 1, 128 },
	};
	static const uint32_t fills[] = { 0, 1, 200, 250, 255, 256 };
	static const uint32_t offs[] = { 0, 100, 250, 0xfffffff0u };
	host_cpu_init(0);
	for (unsigned k = 0; k < sizeof c / sizeof c[0]; k++)
	for (unsigned f = 0; f < sizeof fills / sizeof fills[0]; f++)
	for (unsigned o = 0; o < sizeof offs / sizeof offs[0]; o++) {
		reset();
		sched.nprocs = c[k].nprocs;
		uint32_t fill = fills[f];
		p_a.runqhead = p_a.runqtail = offs[o];
		for (uint32_t i = 0; i < fill; i++)
			runqput(&p_a, &gs[3000 + i], false);
		spin_lock(&sched.lock);
		for (int32_t i = 0; i < c[k].size; i++)
			globrunqput(&gs[i]);
		struct g *rest;
		int32_t nrest;
		struct g *gp = globrunqget_runq(&p_a, c[k].max, &rest, &nrest);
		int32_t left = sched.runq.size;
		spin_unlock(&sched.lock);
		char at[96];
		snprintf(at, sizeof at, "size %d max %d nprocs %u fill %u at %u", c[k].size,
			 c[k].max, c[k].nprocs, fill, offs[o]);
		int32_t want = c[k].want;
		bool whole = want == c[k].size;
		if (!whole && (uint32_t)want - 1 > RUNQ_SIZE - fill)
			want = (int32_t)(RUNQ_SIZE - fill) + 1;	/* the ring's room */
		int32_t got = gp ? 1 + nrest : 0;
		CHECK(got == want, "%s: got %d want %d", at, got, want);
		CHECK(!gp || gp == &gs[0], "%s: first %ld", at, gid(gp));
		CHECK(left == c[k].size - got, "%s: left %d", at, left);
		if (whole) {
			/* The rest as a chain, for the caller to put. */
			int32_t n = 0;
			for (struct g *it = rest; it; it = it->schedlink, n++)
				CHECK(it == &gs[1 + n], "%s: chain[%d] = G %ld", at, n, gid(it));
			CHECK(n == nrest, "%s: chain of %d, nrest %d", at, n, nrest);
			CHECK(ringlen(&p_a) == fill, "%s: ring %u", at, ringlen(&p_a));
		} else {
			CHECK(rest == NULL, "%s: a chain left", at);
			CHECK(ringlen(&p_a) == fill + (uint32_t)nrest, "%s: ring %u", at,
			      ringlen(&p_a));
			CHECK(sched.runq.head == &gs[got], "%s: global head G %ld", at,
			      gid(sched.runq.head));
		}
		/* The ring: its own Gs, then the batch, in order. */
		for (uint32_t i = 0; i < fill; i++)
			CHECK(runqget(&p_a, NULL) == &gs[3000 + i], "%s: ring lost G %u", at,
			      3000 + i);
		if (!whole)
			for (int32_t i = 1; i < got; i++)
				CHECK(runqget(&p_a, NULL) == &gs[i], "%s: batch[%d] not next", at, i);
		CHECK(runqempty(&p_a), "%s: ring not empty", at);
	}
}

/* ---- concurrency ------------------------------------------------------ */

static volatile uint32_t stop_flag;

/*
 * runqempty vs. a G moving between runnext and the ring. The owner cycles
 * {runnext=A, ring=[]} -> put(B, next) -> {B, [A]} -> get -> {0, [A]} ->
 * put(B, next) -> {B, [A]} -> steal A -> {B, []}, swapping roles; the
 * queue is never really empty, so the observer must never see it empty.
 */
static uint64_t empty_iters;

static void *empty_observer(void *arg)
{
	uint64_t *spurious = arg;
	host_cpu_init(2);
	while (!atomic_load32(&stop_flag))
		if (runqempty(&p_a))
			(*spurious)++;
	return NULL;
}

static void test_runqempty_never_spurious(void)
{
	reset();
	host_cpu_init(1);
	uint64_t spurious = 0;
	struct g *a = &gs[1], *b = &gs[2];
	runqput(&p_a, a, true);
	atomic_store32(&stop_flag, 0);
	pthread_t th;
	pthread_create(&th, NULL, empty_observer, &spurious);
	for (uint64_t i = 0; i < empty_iters; i++) {
		runqput(&p_a, b, true);		/* {b, [a]} */
		struct g *gp = runqget(&p_a, NULL);	/* {0, [a]} */
		if (gp != b) { CHECK(gp == b, "got %ld", gid(gp)); break; }
		runqput(&p_a, b, true);		/* {b, [a]} */
		gp = runqsteal(&p_b, &p_a, false);	/* {b, []} */
		if (gp != a) { CHECK(gp == a, "stole %ld", gid(gp)); break; }
		struct g *t = a; a = b; b = t;
	}
	atomic_store32(&stop_flag, 1);
	pthread_join(th, NULL);
	CHECK(spurious == 0, "runqempty said empty %llu times in %llu cycles",
	      (unsigned long long)spurious, (unsigned long long)empty_iters);
	printf("    %llu runnext<->ring cycles, %llu spurious empties\n",
	       (unsigned long long)empty_iters, (unsigned long long)spurious);
}

/*
 * Stress: one owner puts (1 in 8 with next) and gets on P0; thieves each
 * own a P, take from the global queue and steal from P0 and each other
 * (runnext included). Every G must be consumed exactly once.
 */
#define NTHIEVES 3
static uint32_t stress_n;
static struct g *sgs;
static uint8_t *sseen;
static struct p sps[1 + NTHIEVES];
static volatile uint64_t consumed;
static volatile uint64_t dups;

struct stats {
	uint64_t puts, nextputs, gets, steals, stolen, globgets, globbatch, fails;
};
static struct stats st[1 + NTHIEVES];

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void consume(struct g *gp)
{
	if (__atomic_fetch_add(&sseen[gp - sgs], 1, __ATOMIC_RELAXED) != 0)
		atomic_xadd64(&dups, 1);
	atomic_xadd64(&consumed, 1);
}

static bool steal_and_consume(unsigned me, uint64_t *rng)
{
	struct p *pp = &sps[me];
	unsigned victim = xorshift(rng) % (1 + NTHIEVES);
	if (victim == me)
		return false;
	uint32_t t0 = pp->runqtail;
	struct g *gp = runqsteal(pp, &sps[victim], true);
	if (gp) {
		st[me].steals++;
		st[me].stolen += 1 + (pp->runqtail - t0);
		consume(gp);
		return true;
	}
	st[me].fails++;
	return false;
}

/*
 * Look for work: local, then steal, then global. findrunnable takes the
 * global queue before stealing; the stress inverts that so that the racy
 * path (thieves against the owner's ring and runnext) carries most Gs.
 */
static bool find_and_consume(unsigned me, uint64_t *rng)
{
	struct p *pp = &sps[me];
	struct g *gp = runqget(pp, NULL);
	if (gp) {
		st[me].gets++;
		consume(gp);
		return true;
	}
	if (steal_and_consume(me, rng))
		return true;
	if (!globrunqempty()) {
		struct gqueue q = { 0 };
		struct g *rest = NULL;
		int32_t nrest = 0;
		/* Every other take puts its batch on the ring under the lock
		 * (findrunnable's), the others after it. */
		bool to_ring = st[me].globgets % 2;
		spin_lock(&sched.lock);
		if (to_ring)
			gp = globrunqget_runq(pp, GLOBRUNQ_BATCH_MAX, &rest, &nrest);
		else
			gp = globrunqgetbatch(GLOBRUNQ_BATCH_MAX, &q);
		spin_unlock(&sched.lock);
		if (gp) {
			st[me].globgets++;
			st[me].globbatch += 1 + (to_ring ? nrest : q.size);
			if (rest)
				runqputchain(pp, rest, NULL, nrest);
			runqputbatch(pp, &q);
			consume(gp);
			return true;
		}
	}
	return false;
}

static void *stress_thief(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	uint64_t rng = 0x9E3779B97F4A7C15ull * (me + 1);
	host_cpu_init(me);
	while (atomic_load64(&consumed) < stress_n)
		if (!find_and_consume(me, &rng))
			sched_yield();
	return NULL;
}

static void test_stress_owner_and_thieves(void)
{
	uint32_t n = stress_n;
	sgs = calloc(n, sizeof *sgs);
	sseen = calloc(n, 1);
	memset(sps, 0, sizeof sps);
	memset(st, 0, sizeof st);
	sched.runq = (struct gqueue){ 0 };
	sched.runqsize = 0;
	sched.nprocs = 1 + NTHIEVES;
	consumed = dups = 0;
	for (unsigned i = 0; i <= NTHIEVES; i++) {
		sps[i].id = i;
		sps[i].status = _Prunning;
	}
	host_cpu_init(0);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_t th[NTHIEVES];
	for (unsigned i = 0; i < NTHIEVES; i++)
		pthread_create(&th[i], NULL, stress_thief, (void *)(uintptr_t)(i + 1));

	uint64_t rng = 12345;
	for (uint32_t i = 0; i < n; i++) {
		bool next = xorshift(&rng) % 8 == 0;
		runqput(&sps[0], &sgs[i], next);
		st[0].puts++;
		st[0].nextputs += next;
		if (xorshift(&rng) % 4 == 0) {
			struct g *gp = runqget(&sps[0], NULL);
			if (gp) {
				st[0].gets++;
				consume(gp);
			}
		}
	}
	while (atomic_load64(&consumed) < n)
		if (!find_and_consume(0, &rng))
			sched_yield();
	for (unsigned i = 0; i < NTHIEVES; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	uint32_t missing = 0;
	for (uint32_t i = 0; i < n; i++)
		missing += sseen[i] == 0;
	CHECK(consumed == n, "consumed %llu of %u", (unsigned long long)consumed, n);
	CHECK(dups == 0, "%llu Gs consumed twice", (unsigned long long)dups);
	CHECK(missing == 0, "%u Gs never consumed", missing);
	CHECK(sched.runq.size == 0, "global queue left %d", sched.runq.size);
	for (unsigned i = 0; i <= NTHIEVES; i++)
		CHECK(runqempty(&sps[i]), "P%u not empty", i);

	struct stats tot = { 0 };
	for (unsigned i = 0; i <= NTHIEVES; i++) {
		printf("    P%u: puts %llu (next %llu) gets %llu steals %llu (%llu Gs) "
		       "global %llu (%llu Gs) failed steals %llu\n", i,
		       (unsigned long long)st[i].puts, (unsigned long long)st[i].nextputs,
		       (unsigned long long)st[i].gets, (unsigned long long)st[i].steals,
		       (unsigned long long)st[i].stolen, (unsigned long long)st[i].globgets,
		       (unsigned long long)st[i].globbatch, (unsigned long long)st[i].fails);
		tot.puts += st[i].puts;
		tot.gets += st[i].gets;
		tot.steals += st[i].steals;
		tot.stolen += st[i].stolen;
		tot.globgets += st[i].globgets;
		tot.fails += st[i].fails;
	}
	double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	uint64_t ops = tot.puts + tot.gets + tot.steals + tot.fails + tot.globgets;
	printf("    %u Gs, 1 owner + %u thieves: %llu operations in %.2f s, "
	       "%llu Gs stolen, every G seen exactly once: %s\n", n, NTHIEVES,
	       (unsigned long long)ops, secs, (unsigned long long)tot.stolen,
	       (dups == 0 && missing == 0) ? "yes" : "NO");
	CHECK(tot.stolen > 0, "no steal succeeded");
	free(sgs);
	free(sseen);
}

/* ---- the kernel underneath: its own spinlock and panic -------------------- */

/* The tests run on kernel/spinlock.c and kernel/panic.c (host.h), not on
 * copies. Runs misuse(l) in a child, which the kernel's panic ends with
 * its report on stdout and exit status 1; checks for want in it. */
static void spinlock_misuse_case(void (*misuse)(struct spinlock *), const char *want)
{
	struct spinlock l = SPINLOCK_INIT("host-test");
	int fds[2];
	char out[2048];
	size_t len = 0;

	REQUIRE(pipe(fds) == 0, "pipe");
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		dup2(fds[1], 1);
		misuse(&l);
		_exit(0);		/* not reached: it panics */
	}
	close(fds[1]);
	ssize_t n;
	while ((n = read(fds[0], out + len, sizeof out - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = 0;
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "child status 0x%x (want 2, Go's)", st);
	CHECK(strstr(out, want), "no '%s' in the child's report; it wrote:\n%s", want, out);
}

static void unlock_unheld(struct spinlock *l) { spin_unlock(l); }
static void lock_twice(struct spinlock *l) { spin_lock(l); spin_lock(l); }
static void unlock_others(struct spinlock *l)
{
	spin_lock(l);
	l->locked = 1 + 7;	/* as if core 7 held it */
	spin_unlock(l);
}

/* Four cores on one lock with hand-offs on after a single failed look
 * (spin_starve_spins = 1): the count must be exact and hand-offs must
 * have happened, so the asking waiter's path is the one tested. Threads
 * that the host runs one after the other do not contend: rounds repeat
 * (up to 50) until some hand-off happened. This test found a deadlock:
 * a waiter handed the lock while the next asker had flagged it did not
 * see that it held the lock. */
#define HANDOFF_THREADS 4
#define HANDOFF_ITERS 200000
#define HANDOFF_ROUNDS 50
static struct spinlock handoff_lock = SPINLOCK_INIT("handoff-test");
static uint64_t handoff_count;
static volatile uint32_t handoff_ready;

static void *handoff_worker(void *arg)
{
	host_cpu_init((unsigned)(uintptr_t)arg);
	__atomic_add_fetch(&handoff_ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&handoff_ready, __ATOMIC_ACQUIRE) < HANDOFF_THREADS)
		;			/* start together */
	for (int i = 0; i < HANDOFF_ITERS; i++) {
		spin_lock(&handoff_lock);
		handoff_count++;	/* plain: the lock alone makes it exact */
		spin_unlock(&handoff_lock);
	}
	return NULL;
}

static void test_kernel_spinlock_hands_off_to_a_starved_waiter(void)
{
	pthread_t th[HANDOFF_THREADS];
	uint32_t saved = spin_starve_spins;
	uint64_t h0 = spin_handoffs, h = 0;
	int round;
	spin_starve_spins = 1;
	for (round = 1; round <= HANDOFF_ROUNDS && h == 0; round++) {
		handoff_count = 0;
		handoff_ready = 0;
		for (uintptr_t i = 0; i < HANDOFF_THREADS; i++)
			REQUIRE(pthread_create(&th[i], NULL, handoff_worker, (void *)(i + 1)) == 0,
				"pthread_create");
		for (int i = 0; i < HANDOFF_THREADS; i++)
			pthread_join(th[i], NULL);
		h = spin_handoffs - h0;
		CHECK(handoff_count == (uint64_t)HANDOFF_THREADS * HANDOFF_ITERS,
		      "round %d: count %llu, want %llu", round, (unsigned long long)handoff_count,
		      (unsigned long long)HANDOFF_THREADS * HANDOFF_ITERS);
	}
	spin_starve_spins = saved;
	printf("    %d x %d locks a round, %d rounds, %llu hand-offs\n", HANDOFF_THREADS,
	       HANDOFF_ITERS, round - 1, (unsigned long long)h);
	CHECK(h > 0, "no hand-off happened in %d rounds", HANDOFF_ROUNDS);
	CHECK(handoff_lock.locked == 0 && handoff_lock.handoff == 0,
	      "lock left as locked=%#x handoff=%u", handoff_lock.locked, handoff_lock.handoff);
}

/* Unlocking a lock nobody holds, or another core's, and taking one this
 * core holds (which would wait for ever): each a panic that says so. */
static void test_kernel_spinlock_misuse_panics(void)
{
	struct spinlock l = SPINLOCK_INIT("host-test");
	spin_lock(&l);
	REQUIRE(spin_held(&l), "spin_held after spin_lock");
	spin_unlock(&l);
	REQUIRE(!spin_held(&l), "spin_held after spin_unlock");
	REQUIRE(spin_trylock(&l), "spin_trylock of a free lock");
	REQUIRE(!spin_trylock(&l), "spin_trylock of a held lock succeeded");
	spin_unlock(&l);

	spinlock_misuse_case(unlock_unheld,
			     "panic: spin_unlock of host-test: not held (unlocked twice?)");
	spinlock_misuse_case(lock_twice,
			     "panic: spin_lock of host-test: this core (0) already holds it");
	spinlock_misuse_case(unlock_others,
			     "panic: spin_unlock of host-test on core 0: held by core 7");
}

/* ---- runner ------------------------------------------------------------- */

/* A test may leave the main thread posing as another core (some run
 * it as core 1 or 2): each test starts again as core 0. */
static void restore_core0(void)
{
	host_cpu_init(0);
}

static const struct host_test tests[] = {
	{ "put_get_order_every_fill", test_put_get_order_every_fill },
	{ "runnext_kick_out", test_runnext_kick_out },
	{ "rotate_alone_is_put_then_get", test_rotate_alone_is_put_then_get },
	{ "overflow_to_global", test_overflow_to_global },
	{ "steal_half", test_steal_half },
	{ "putbatch_and_drain", test_putbatch_and_drain },
	{ "globrunq_batch_size", test_globrunq },
	{ "globrunq_to_ring", test_globrunq_to_ring },
	{ "runqempty_never_spurious", test_runqempty_never_spurious },
	{ "stress_owner_and_thieves", test_stress_owner_and_thieves },
	{ "kernel_spinlock_misuse_panics", test_kernel_spinlock_misuse_panics },
	{ "kernel_spinlock_hands_off_to_a_starved_waiter", test_kernel_spinlock_hands_off_to_a_starved_waiter },
};

int main(int argc, char **argv)
{
	stress_n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 2000000;
	empty_iters = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
	host_tests_init(1 + NTHIEVES);

	return host_run_tests(tests, HOST_NTESTS(tests), restore_core0);
}
