/*
 * Pool (sched/pool.h, Go's sync.Pool): what was put comes back, New
 * fills in when empty; an object is never handed to two holders at once,
 * however many Gs get and put on however many Ps; every object made is
 * freed exactly once, dropped for want of room or by pool_drain; and a
 * get/put pair costs less than the kmalloc/kfree pair it saves.
 */
#include <stdio.h>

#include "kernel/kmalloc.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/sched_testutil.h"

#define OBJ_MAGIC 0x706f6f6c6f626a31ull		/* "poolobj1" */

struct obj {
	uint64_t magic;
	volatile uint32_t held;		/* 1 while a holder has it */
	volatile uint32_t freed;
	uint8_t payload[48];
};

static volatile uint64_t nnew, nfree, nbad;

static void *new_obj(void *arg)
{
	(void)arg;
	struct obj *o = kmalloc(sizeof *o);
	o->magic = OBJ_MAGIC;
	atomic_xadd64(&nnew, 1);
	return o;
}

static void free_obj(void *x, void *arg)
{
	(void)arg;
	struct obj *o = x;
	if (o->magic != OBJ_MAGIC || atomic_xchg32(&o->freed, 1) != 0 || o->held)
		atomic_xadd64(&nbad, 1);	/* freed twice, or while held */
	atomic_xadd64(&nfree, 1);
	o->magic = 0;
	kfree(o);
}

static void reset_counts(void)
{
	atomic_store64(&nnew, 0);
	atomic_store64(&nfree, 0);
	atomic_store64(&nbad, 0);
}

TEST(sync_pool_gives_back_what_was_put_and_new_when_empty)
{
	static struct pool p = POOL_INIT(new_obj, free_obj, NULL);
	reset_counts();
	struct obj *a = pool_get(&p);
	EXPECT_EQ(atomic_load64(&nnew), 1);
	pool_put(&p, a);
	preempt_disable();			/* stay on this P for the get */
	struct obj *b = pool_get(&p);
	preempt_enable();
	EXPECT(b == a);
	struct obj *c = pool_get(&p);
	EXPECT(c != a);
	EXPECT_EQ(atomic_load64(&nnew), 2);
	pool_put(&p, b);
	pool_put(&p, c);
	pool_put(&p, NULL);			/* ignored */
	pool_drain(&p);
	EXPECT_EQ(atomic_load64(&nfree), 2);
	struct obj *d = pool_get(&p);		/* empty again: New */
	EXPECT_EQ(atomic_load64(&nnew), 3);
	pool_put(&p, d);
	pool_destroy(&p);
	EXPECT_EQ(atomic_load64(&nfree), 3);
	EXPECT_EQ(atomic_load64(&nbad), 0);

	static struct pool nonew;		/* no New: NULL when empty */
	EXPECT(pool_get(&nonew) == NULL);
	pool_destroy(&nonew);
}

/* 200 objects put in a row: one P keeps its private slot and its ring
 * (65), the rest are dropped and freed at once; the drain frees what was
 * kept. Every one is freed exactly once. */
TEST(sync_pool_drops_what_it_has_no_room_for)
{
	static struct pool p = POOL_INIT(new_obj, free_obj, NULL);
	static struct obj *objs[200];
	reset_counts();
	for (int i = 0; i < 200; i++)
		objs[i] = new_obj(NULL);
	for (int i = 0; i < 200; i++)
		pool_put(&p, objs[i]);
	uint64_t dropped = atomic_load64(&nfree);
	printf("# 200 put: %llu dropped\n", (unsigned long long)dropped);
	EXPECT_LE(dropped, 200 - 65);		/* a P keeps 65 */
	pool_drain(&p);
	EXPECT_EQ(atomic_load64(&nfree), 200);
	EXPECT_EQ(atomic_load64(&nbad), 0);
	pool_destroy(&p);
}

/*
 * 8 Gs on every P, 20,000 gets and puts each, holding up to 3 objects at
 * a time across yields: each get finds its object not held (a CAS from 0
 * to 1 on its flag) and not freed, so no object is ever handed to two
 * holders; after the drain, every object New made was freed exactly once
 * (nothing lost, nothing freed twice or while held).
 */
#define POOL_GS		8
#define POOL_OPS	20000

static struct pool shared = POOL_INIT(new_obj, free_obj, NULL);
static struct waitgroup pool_wg;
static volatile uint64_t nhits;

static void pool_user(void *arg)
{
	uint64_t r = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull + 3;
	struct obj *mine[3];
	int n = 0;
	for (int i = 0; i < POOL_OPS; i++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		if (n < 3 && (n == 0 || r & 1)) {
			uint64_t made = atomic_load64(&nnew);
			struct obj *o = pool_get(&shared);
			if (o->magic != OBJ_MAGIC || o->freed || !atomic_cas32(&o->held, 0, 1))
				atomic_xadd64(&nbad, 1);
			if (atomic_load64(&nnew) == made)
				atomic_xadd64(&nhits, 1);	/* roughly: not new */
			o->payload[0] = (uint8_t)i;
			mine[n++] = o;
		} else {
			struct obj *o = mine[--n];
			atomic_store32(&o->held, 0);
			pool_put(&shared, o);
		}
		if ((r & 0x30) == 0)
			gosched();
	}
	while (n > 0) {
		struct obj *o = mine[--n];
		atomic_store32(&o->held, 0);
		pool_put(&shared, o);
	}
	waitgroup_done(&pool_wg);
}

TEST(sync_pool_hands_each_object_to_one_holder_at_a_time)
{
	reset_counts();
	atomic_store64(&nhits, 0);
	waitgroup_add(&pool_wg, POOL_GS);
	for (uintptr_t i = 0; i < POOL_GS; i++)
		go(pool_user, (void *)(i + 1));
	waitgroup_wait(&pool_wg);
	uint64_t made = atomic_load64(&nnew);
	pool_drain(&shared);
	printf("# %u gets: %llu objects made, about %llu gets served from the pool\n",
	       POOL_GS * POOL_OPS / 2, (unsigned long long)made,
	       (unsigned long long)atomic_load64(&nhits));
	EXPECT_EQ(atomic_load64(&nbad), 0);
	EXPECT_EQ(atomic_load64(&nfree), made);
	/* Each G holds at most 3: a pool that kept nothing would make one
	 * object per get (80,000). */
	EXPECT_LT(made, POOL_GS * POOL_OPS / 20);
	pool_destroy(&shared);
}

/* What a get/put pair saves: from one G, after the first put, every get
 * is served from the pool but when the G has moved to another P (counted,
 * not timed: a test never fails because the
 * machine was slow; the pair's cost beside kmalloc's is printed, and
 * measured by the benchmarks). */
TEST(sync_pool_get_put_from_one_g_is_served_from_the_pool)
{
	static struct pool p = POOL_INIT(new_obj, free_obj, NULL);
	enum { ROUNDS = 8, N = 20000 };
	uint64_t best_pool = UINT64_MAX, best_kmalloc = UINT64_MAX;
	pool_put(&p, new_obj(NULL));
	uint64_t made0 = atomic_load64(&nnew);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = nanotime();
		for (int i = 0; i < N; i++)
			pool_put(&p, pool_get(&p));
		uint64_t t1 = nanotime();
		for (int i = 0; i < N; i++)
			kfree(kmalloc(sizeof(struct obj)));
		uint64_t t2 = nanotime();
		if (t1 - t0 < best_pool)
			best_pool = t1 - t0;
		if (t2 - t1 < best_kmalloc)
			best_kmalloc = t2 - t1;
	}
	printf("# get+put %llu ns, kmalloc+kfree %llu ns (per pair, best of %d rounds of %d)\n",
	       (unsigned long long)(best_pool / N), (unsigned long long)(best_kmalloc / N),
	       ROUNDS, N);
	/* A G that moves to another P meets that P's cache, empty, once:
	 * a pool that kept nothing would make one object per get (160,000). */
	EXPECT_LE(atomic_load64(&nnew) - made0, (uint64_t)sched_nprocs() * ROUNDS);
	pool_destroy(&p);
}
