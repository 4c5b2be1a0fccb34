/*
 * sync.Mutex and RWMutex: mutual exclusion under contention from every
 * core, and starvation mode bounding a waiter's wait.
 */
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/test.h"
#include "tests/chan_testutil.h"

#define GS_PER_CORE	8
/* Increments per G. */
#define MUTEX_ITERS	100000

struct counter {
	struct mutex mu;
	uint64_t n;			/* protected by mu; plain on purpose */
	volatile uint32_t inside;	/* > 1 would be a violation */
	volatile uint32_t violations;
	struct waitgroup wg;
	uint32_t iters;
};

static void incrementer(void *p)
{
	struct counter *c = p;

	for (uint32_t i = 0; i < c->iters; i++) {
		mutex_lock(&c->mu);
		if (atomic_xadd32(&c->inside, 1) != 1)
			atomic_xadd32(&c->violations, 1);
		c->n++;
		atomic_xadd32(&c->inside, -1);
		mutex_unlock(&c->mu);
	}
	waitgroup_done(&c->wg);
}

TEST(sync_mutex_counter_exact)
{
	static struct counter c;
	uint32_t ngs = GS_PER_CORE * ncpus_online;
	uint64_t t0 = nanotime();

	c = (struct counter){ .iters = MUTEX_ITERS };
	waitgroup_add(&c.wg, (int32_t)ngs);
	for (uint32_t i = 0; i < ngs; i++)
		go(incrementer, &c);
	waitgroup_wait(&c.wg);
	uint64_t ms = (nanotime() - t0) / NSEC_PER_MSEC;
	printf("# %u Gs x %u lock/unlock: %llu ms\n", ngs, MUTEX_ITERS,
	       (unsigned long long)ms);
	ASSERT_EQ(c.violations, 0);
	ASSERT_EQ(c.n, (uint64_t)ngs * MUTEX_ITERS);
	ASSERT_EQ(c.mu.state, 0);
}

TEST(sync_mutex_trylock)
{
	struct mutex mu = { 0 };

	ASSERT(mutex_trylock(&mu));
	ASSERT(!mutex_trylock(&mu));
	mutex_unlock(&mu);
	ASSERT(mutex_trylock(&mu));
	mutex_unlock(&mu);
	ASSERT_EQ(mu.state, 0);
}

/*
 * Starvation: HOGS Gs take the lock over and over and give up their core
 * while holding it (as a preempted holder would); on unlock, each relocks
 * at once, barging ahead of the woken waiter. In normal mode the victim
 * could lose every race for the whole run; after waiting 1 ms it switches
 * the mutex to starvation mode and the next unlock hands it over.
 */
#define HOGS		4
#define HOLD_NS		(20 * NSEC_PER_USEC)
#define VICTIM_ROUNDS	5
/* Without starvation mode the victim can lose every race until the hogs
 * give up (HOG_RUN_NS); with it, it waits a few ms (a few hundred under a
 * badly overloaded emulator host). The bound sits between the two. */
#define HOG_RUN_NS	(3 * NSEC_PER_SEC)
#define VICTIM_BOUND_NS	(1 * NSEC_PER_SEC)

struct starve {
	struct mutex mu;
	volatile uint32_t stop;
	uint64_t deadline;		/* hogs give up then, whatever happens */
	volatile uint32_t saw_starving;		/* a hog held it in starvation mode */
	volatile uint32_t victim_saw_starving;	/* the victim did */
	struct waitgroup wg;
};

static void hog(void *p)
{
	struct starve *s = p;

	while (!atomic_load32(&s->stop) && nanotime() < s->deadline) {
		mutex_lock(&s->mu);
		if (atomic_load32(&s->mu.state) & MUTEX_STARVING)
			atomic_store32(&s->saw_starving, 1);
		delay_ns(HOLD_NS);
		gosched();		/* descheduled while holding it */
		mutex_unlock(&s->mu);
	}
	waitgroup_done(&s->wg);
}

TEST(sync_mutex_starvation_mode_bounds_wait)
{
	static struct starve s;
	uint64_t worst = 0;

	s = (struct starve){ .deadline = nanotime() + HOG_RUN_NS };
	waitgroup_add(&s.wg, HOGS);
	for (int i = 0; i < HOGS; i++)
		go(hog, &s);
	yield_for(5 * NSEC_PER_MSEC);		/* let them get going */
	for (int r = 0; r < VICTIM_ROUNDS; r++) {
		uint64_t t0 = nanotime();
		mutex_lock(&s.mu);
		uint64_t waited = nanotime() - t0;
		/* Handed over in starvation mode, with hogs still waiting
		 * (the mode stays on while this G, which starved, holds it).
		 * The hogs look too, but a hog that took it over after a
		 * short wait turns the mode off as it takes it, so they may
		 * never see it: 1 boot in ~125 at arm64 smp 2. */
		if (atomic_load32(&s.mu.state) & MUTEX_STARVING)
			atomic_store32(&s.victim_saw_starving, 1);
		mutex_unlock(&s.mu);
		if (waited > worst)
			worst = waited;
		yield_for(2 * NSEC_PER_MSEC);
	}
	atomic_store32(&s.stop, 1);
	waitgroup_wait(&s.wg);
	printf("# longest wait for the lock: %llu us; starvation mode seen by a hog: %u, "
	       "by the victim: %u\n", (unsigned long long)(worst / NSEC_PER_USEC),
	       s.saw_starving, s.victim_saw_starving);
	ASSERT_LT(worst, VICTIM_BOUND_NS);
	/* The mode is the victim's once it has waited past the threshold;
	 * a slow build (ThreadSanitizer) may let it win a race before. */
	if (worst > MUTEX_STARVATION_THRESHOLD_NS)
		ASSERT_EQ(s.saw_starving | s.victim_saw_starving, 1);
	ASSERT_EQ(s.mu.state, 0);
}

/* ---- RWMutex: readers share, a writer excludes everyone ---- */

#define RW_READERS	16
#define RW_WRITERS	4
#define RW_ITERS	500

struct rwtest {
	struct rwmutex rw;
	volatile uint32_t readers, writers;
	volatile uint32_t bad;
	volatile uint32_t max_readers;
	uint64_t value;
	struct waitgroup wg;
};

static void rw_reader(void *p)
{
	struct rwtest *t = p;

	for (int i = 0; i < RW_ITERS; i++) {
		rwmutex_rlock(&t->rw);
		uint32_t r = atomic_xadd32(&t->readers, 1);
		if (atomic_load32(&t->writers))
			atomic_xadd32(&t->bad, 1);
		uint32_t m = atomic_load32(&t->max_readers);
		if (r > m)
			atomic_cas32(&t->max_readers, m, r);
		if (i % 16 == 0)
			gosched();	/* hold it across a switch sometimes */
		atomic_xadd32(&t->readers, -1);
		rwmutex_runlock(&t->rw);
	}
	waitgroup_done(&t->wg);
}

static void rw_writer(void *p)
{
	struct rwtest *t = p;

	for (int i = 0; i < RW_ITERS; i++) {
		rwmutex_lock(&t->rw);
		if (atomic_xadd32(&t->writers, 1) != 1 || atomic_load32(&t->readers))
			atomic_xadd32(&t->bad, 1);
		t->value++;
		atomic_xadd32(&t->writers, -1);
		rwmutex_unlock(&t->rw);
	}
	waitgroup_done(&t->wg);
}

/* A reader that comes while another holds the read lock (and no writer
 * waits) gets in at once. */
static volatile uint32_t rw_probe_in;

static void rw_probe(void *p)
{
	struct rwtest *t = p;

	rwmutex_rlock(&t->rw);
	atomic_store32(&rw_probe_in, 1);
	rwmutex_runlock(&t->rw);
	waitgroup_done(&t->wg);
}

/*
 * Sharing is checked on its own, deterministically: this G holds the read
 * lock while a second reader must get in. The stress below checks that
 * writers exclude everyone; how many readers it finds inside at once is
 * printed, not asserted: it asserted >= 2 until a hog-loaded arm64 boot
 * at 2 cores found 1 (a writer was waiting at every reader's switch, so
 * Go's rule held the next readers back each time, as it must).
 */
TEST(sync_rwmutex_readers_share_writers_exclude)
{
	static struct rwtest t;

	t = (struct rwtest){ 0 };
	atomic_store32(&rw_probe_in, 0);
	rwmutex_rlock(&t.rw);
	waitgroup_add(&t.wg, 1);
	go(rw_probe, &t);
	uint64_t end = nanotime() + 5 * NSEC_PER_SEC;
	while (!atomic_load32(&rw_probe_in) && nanotime() < end)
		sleep_ns(100 * NSEC_PER_USEC);
	uint32_t shared = atomic_load32(&rw_probe_in);
	rwmutex_runlock(&t.rw);		/* lets an excluded probe finish */
	waitgroup_wait(&t.wg);
	ASSERT_EQ(shared, 1);		/* readers share */

	waitgroup_add(&t.wg, RW_READERS + RW_WRITERS);
	for (int i = 0; i < RW_READERS; i++)
		go(rw_reader, &t);
	for (int i = 0; i < RW_WRITERS; i++)
		go(rw_writer, &t);
	waitgroup_wait(&t.wg);
	printf("# most readers inside at once: %u\n", t.max_readers);
	ASSERT_EQ(t.bad, 0);
	ASSERT_EQ(t.value, (uint64_t)RW_WRITERS * RW_ITERS);
	ASSERT_EQ(t.rw.reader_count, 0);
}
