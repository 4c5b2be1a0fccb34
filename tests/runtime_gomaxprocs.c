/*
 * gomaxprocs(n), Go's GOMAXPROCS at run time: it returns the old count and
 * n <= 0 only asks; a count over the cores online is refused; the removed
 * Ps' Gs, timers and free Gs move, so that every G still runs exactly once
 * and every sleeper wakes; the cores left without a P run nothing; and the
 * idle list and counts are whole after any number of resizes.
 */
#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/percpu.h"
#include "kernel/test.h"
#include "sched/schedimpl.h"
#include "tests/chan_testutil.h"

/* A deterministic sequence of P counts in [1, online]. */
static uint32_t next_n(uint64_t *seed, uint32_t online)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return 1 + (uint32_t)((*seed >> 33) % online);
}

/* Yield until every P but ours is idle: the idle list then holds exactly
 * nprocs - 1 Ps, each of them _Pidle. False after timeout_ns. */
static bool ps_settle(uint64_t timeout_ns)
{
	uint64_t end = nanotime() + timeout_ns;

	while (atomic_load32(&sched.npidle) != sched_nprocs() - 1) {
		if (nanotime() > end)
			return false;
		gosched();
	}
	return true;
}

/* The idle list against the counts, under sched.lock. */
static void check_idle_list(void)
{
	uint32_t n = 0;
	bool ok = true;

	spin_lock(&sched.lock);
	for (struct p *pp = sched.pidle; pp; pp = pp->link) {
		n++;
		ok = ok && pp->id < sched.nprocs && pp->status == _Pidle;
	}
	uint32_t npidle = sched.npidle, nprocs = sched.nprocs, gcw = sched.gcwaiting;
	uint32_t nmidle = sched.nmidle, mcount = sched.mcount;
	spin_unlock(&sched.lock);
	EXPECT(ok);			/* only live Ps, all idle */
	EXPECT_EQ(n, npidle);
	EXPECT_LT(npidle, nprocs);	/* ours is not idle */
	EXPECT_EQ(gcw, 0);
	EXPECT_GE(mcount, nprocs);	/* an M for every P */
	EXPECT_GE(nmidle, npidle);	/* an idle M for every idle P */
}

TEST(runtime_gomaxprocs_returns_the_old_count_and_zero_only_asks)
{
	int n0 = gomaxprocs(0);
	uint32_t online = ncpus_online;

	ASSERT_EQ((uint32_t)n0, sched_nprocs());
	ASSERT_EQ(gomaxprocs(-3), n0);
	ASSERT_EQ(gomaxprocs(1), n0);
	ASSERT_EQ(gomaxprocs(0), 1);
	ASSERT_EQ(sched_nprocs(), 1);
	ASSERT_EQ(gomaxprocs((int)online), 1);
	ASSERT_EQ(sched_nprocs(), online);
	/* More Ps than cores: refused, silently; nothing changes. */
	ASSERT_EQ(gomaxprocs((int)online + 1), (int)online);
	ASSERT_EQ(sched_nprocs(), online);
	ASSERT_EQ(gomaxprocs(n0), (int)online);
	ASSERT_EQ(gomaxprocs(0), n0);
	ASSERT(ps_settle(WAIT_TIMEOUT_NS));
	check_idle_list();
}

/* ---- every G runs exactly once across resizes under load ---- */

#define ONCE_GS		2000
#define ONCE_STEPS	20

struct runonce {
	volatile uint32_t ran[ONCE_GS];		/* times each G ran to its end */
	volatile uint32_t ndone;
	chan_t done;
};

struct once_arg {
	struct runonce *o;
	uint32_t id;
};

/* Yields, sleeps (a timer on whichever P it is on) and spins, so that at
 * any resize some Gs are queued, some in runnext, some asleep. */
static void once_worker(void *p)
{
	struct once_arg *a = p;
	struct runonce *o = a->o;

	for (int s = 0; s < ONCE_STEPS; s++) {
		if ((a->id + s) % 5 == 0)
			sleep_ns(20 * NSEC_PER_USEC);
		else
			gosched();
	}
	atomic_xadd32(&o->ran[a->id], 1);
	if (atomic_xadd32(&o->ndone, 1) == ONCE_GS)	/* the new value */
		chan_close(o->done);
}

TEST(runtime_gomaxprocs_every_g_runs_exactly_once_across_resizes)
{
	struct runonce *o = kmalloc(sizeof *o);
	struct once_arg *args = kmalloc(sizeof *args * ONCE_GS);
	uint32_t online = ncpus_online;
	int n0 = gomaxprocs(0);
	uint64_t seed = sched_seed() | 1;
	uint32_t resizes = 0;

	o->done = chan_make(0, 0);
	for (uint32_t i = 0; i < ONCE_GS; i++) {
		args[i] = (struct once_arg){ o, i };
		go(once_worker, &args[i]);
	}
	/* Resize back to back while they run, until all have ended. */
	uint64_t end = nanotime() + 60 * NSEC_PER_SEC;
	while (atomic_load32(&o->ndone) < ONCE_GS && nanotime() < end) {
		uint32_t n = next_n(&seed, online);
		gomaxprocs((int)n);
		ASSERT_EQ(sched_nprocs(), n);
		resizes++;
	}
	ASSERT(!chan_recv(o->done, NULL));	/* closed: parks until then */
	for (uint32_t i = 0; i < ONCE_GS; i++)
		ASSERT_EQ(o->ran[i], 1);
	printf("# %u Gs each ran once across %u resizes (1..%u Ps)\n",
	       ONCE_GS, resizes, online);
	gomaxprocs(n0);
	ASSERT(ps_settle(WAIT_TIMEOUT_NS));
	check_idle_list();
	chan_free(o->done);
	kfree(args);
	kfree(o);
}

/* ---- 1,000 resizes in a loop with Gs running ---- */

#define LOOP_RESIZES	1000
#define LOOP_SPINNERS	8

struct loop {
	volatile uint32_t stop;
	volatile uint64_t work[LOOP_SPINNERS];
	struct waitgroup wg;
};

struct loop_arg {
	struct loop *l;
	uint32_t id;
};

/* CPU-bound with a yield now and then, and a short sleep: the resizes
 * preempt it, move it and its timer. */
static void loop_spinner(void *p)
{
	struct loop_arg *a = p;

	while (!atomic_load32(&a->l->stop)) {
		for (volatile int k = 0; k < 200; k++)
			;
		a->l->work[a->id]++;
		if (a->l->work[a->id] % 16 == 0)
			sleep_ns(10 * NSEC_PER_USEC);
		else if (a->l->work[a->id] % 4 == 0)
			gosched();
	}
	waitgroup_done(&a->l->wg);
}

TEST(runtime_gomaxprocs_1000_resizes_with_gs_running)
{
	static struct loop l;
	static struct loop_arg args[LOOP_SPINNERS];
	uint32_t online = ncpus_online;
	int n0 = gomaxprocs(0);
	uint64_t seed = sched_seed() ^ 0x5bd1e995;

	l = (struct loop){ 0 };
	waitgroup_add(&l.wg, LOOP_SPINNERS);
	for (uint32_t i = 0; i < LOOP_SPINNERS; i++) {
		args[i] = (struct loop_arg){ &l, i };
		go(loop_spinner, &args[i]);
	}
	uint32_t prev = (uint32_t)n0;
	for (int r = 0; r < LOOP_RESIZES; r++) {
		uint32_t n = next_n(&seed, online);
		ASSERT_EQ((uint32_t)gomaxprocs((int)n), prev);
		ASSERT_EQ(sched_nprocs(), n);
		prev = n;
		gosched();	/* the spinners' turn, even with one P */
	}
	atomic_store32(&l.stop, 1);
	waitgroup_wait(&l.wg);		/* every spinner still runs, and ends */
	uint64_t total = 0;
	for (int i = 0; i < LOOP_SPINNERS; i++) {
		EXPECT_GT(l.work[i], 0);
		total += l.work[i];
	}
	printf("# %d resizes, %llu units of work by %d Gs\n", LOOP_RESIZES,
	       (unsigned long long)total, LOOP_SPINNERS);
	gomaxprocs(n0);
	ASSERT(ps_settle(WAIT_TIMEOUT_NS));
	check_idle_list();
}

/* ---- no more Gs at once than Ps ---- */

#define CONC_GS 8

struct conc {
	volatile uint32_t running, max;
	volatile uint32_t stop;
	struct waitgroup wg;
};

/* Each round holds its core (preemption off) for a moment and counts the
 * Gs inside at once: a core runs a G only with a P, so never more than
 * the P count, whichever cores hold the Ps. */
static void conc_spinner(void *p)
{
	struct conc *c = p;

	while (!atomic_load32(&c->stop)) {
		preempt_disable();
		uint32_t now = atomic_xadd32(&c->running, 1);	/* the new value */
		uint32_t m = atomic_load32(&c->max);
		while (now > m && !atomic_cas32(&c->max, m, now))
			m = atomic_load32(&c->max);
		for (volatile int k = 0; k < 2000; k++)
			;
		atomic_xadd32(&c->running, -1);
		preempt_enable();
		gosched();
	}
	waitgroup_done(&c->wg);
}

TEST(runtime_gomaxprocs_no_more_gs_at_once_than_ps)
{
	static struct conc c;
	int n0 = gomaxprocs(0);
	uint32_t online = ncpus_online;

	for (uint32_t n = 1; n <= online; n++) {
		gomaxprocs((int)n);
		c = (struct conc){ 0 };
		waitgroup_add(&c.wg, CONC_GS);
		for (int i = 0; i < CONC_GS; i++)
			go(conc_spinner, &c);
		yield_for(50 * NSEC_PER_MSEC);
		atomic_store32(&c.stop, 1);
		waitgroup_wait(&c.wg);
		printf("# %u Ps: at most %u Gs at once\n", n, c.max);
		EXPECT_LE(c.max, n);
		EXPECT_GE(c.max, 1);
	}
	gomaxprocs(n0);
}

/* ---- the removed Ps' timers move: their sleepers still wake ---- */

#define SLEEPERS 64

struct sleepers {
	volatile uint32_t asleep, offp0, woken;
	chan_t done;
};

static void sleeper(void *p)
{
	struct sleepers *s = p;
	uint64_t end = nanotime() + NSEC_PER_SEC;

	/* Off P0, where the test's G runs, if another P takes us from the
	 * global queue within a second (almost always at once). */
	for (;;) {
		preempt_disable();
		bool p0 = getm()->p->id == 0;
		preempt_enable();
		if (!p0 || nanotime() > end)
			break;
		gosched();
	}
	preempt_disable();
	if (getm()->p->id != 0)
		atomic_xadd32(&s->offp0, 1);
	atomic_xadd32(&s->asleep, 1);
	preempt_enable();
	/* Its timer is on this P until it fires; 50 ms leaves the test
	 * time to shrink the P count while it waits. */
	sleep_ns(50 * NSEC_PER_MSEC);
	if (atomic_xadd32(&s->woken, 1) == SLEEPERS)	/* the new value */
		chan_close(s->done);
}

TEST(runtime_gomaxprocs_shrink_moves_timers_sleepers_wake)
{
	static struct sleepers s;
	int n0 = gomaxprocs(0);
	uint32_t online = ncpus_online;

	if (online < 2)
		test_skip("one core: no P to remove");
	gomaxprocs((int)online);
	s = (struct sleepers){ .done = chan_make(0, 0) };
	for (int i = 0; i < SLEEPERS; i++)
		go(sleeper, &s);
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (atomic_load32(&s.asleep) < SLEEPERS && nanotime() < end)
		gosched();
	ASSERT_EQ(s.asleep, SLEEPERS);
	gomaxprocs(1);			/* P1.. go, with their timers */
	/* 10 s for 50 ms sleeps: only a timer left on a removed P (that
	 * nobody fires any more) takes longer. */
	struct select_case cs[] = { SELECT_RECV(s.done, NULL), SELECT_AFTER(10 * NSEC_PER_SEC) };
	int k = chan_select(cs, 2, false);
	printf("# %u of %u sleepers slept on a P that was removed; %u woke\n",
	       s.offp0, SLEEPERS, s.woken);
	ASSERT_EQ(k, 0);
	ASSERT_EQ(s.woken, SLEEPERS);
	gomaxprocs(n0);
	chan_free(s.done);
}

/* ---- the removed Ps' run queues move: their Gs still run ---- */

#define SPAWN_CHILDREN 32

struct spawn {
	volatile uint32_t spawned, ran, total;
	chan_t done;
};

static void spin_us(uint64_t us)
{
	uint64_t end = nanotime() + us * NSEC_PER_USEC;

	while (nanotime() < end)
		;
}

static void spawn_child(void *p)
{
	struct spawn *s = p;

	spin_us(200);
	if (atomic_xadd32(&s->ran, 1) == s->total)	/* the new value */
		chan_close(s->done);
}

/* Spawns its children onto its own P's queue (go: runnext and the ring). */
static void spawn_parent(void *p)
{
	struct spawn *s = p;

	spin_us(200);			/* long enough for other Ps to steal us */
	for (int i = 0; i < SPAWN_CHILDREN; i++)
		go(spawn_child, s);
	atomic_xadd32(&s->spawned, 1);
}

TEST(runtime_gomaxprocs_shrink_moves_run_queues_their_gs_run)
{
	static struct spawn s;
	int n0 = gomaxprocs(0);
	uint32_t online = ncpus_online;
	uint32_t parents = 4 * online;

	if (online < 2)
		test_skip("one core: no P to remove");
	gomaxprocs((int)online);
	s = (struct spawn){ .total = parents * SPAWN_CHILDREN, .done = chan_make(0, 0) };
	for (uint32_t i = 0; i < parents; i++)
		go(spawn_parent, &s);
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (atomic_load32(&s.spawned) < parents && nanotime() < end)
		gosched();
	ASSERT_EQ(s.spawned, parents);
	gomaxprocs(1);			/* P1.. go, with their queues */
	uint32_t pending = s.total - atomic_load32(&s.ran);
	/* 10 s for a few ms of work: only Gs left on a removed P's queue
	 * (that nobody runs or steals any more) take longer. */
	struct select_case cs[] = { SELECT_RECV(s.done, NULL), SELECT_AFTER(10 * NSEC_PER_SEC) };
	int k = chan_select(cs, 2, false);
	printf("# %u of %u Gs not yet run at the shrink to 1 P; %u ran in all\n",
	       pending, s.total, s.ran);
	ASSERT_EQ(k, 0);
	ASSERT_EQ(s.ran, s.total);
	gomaxprocs(n0);
	chan_free(s.done);
}
