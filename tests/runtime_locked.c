/*
 * lockosthread, Go's runtime.LockOSThread with a core for the thread: a
 * locked G runs on no other core, whatever it does (yield, sleep, block
 * on a channel, be preempted, be stolen, lose its core's P to a
 * gomaxprocs); it gets its core as soon as it is readied, from another
 * core or its own; calls nest as Go's; and the lock ends with the G.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/percpu.h"
#include "kernel/test.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "tests/chan_testutil.h"
#include "tests/sched_testutil.h"

/* The core this G runs on, read where it cannot move. */
static uint32_t core_now(void)
{
	preempt_disable();
	uint32_t id = this_cpu()->id;
	preempt_enable();
	return id;
}

/* Gs locked to each core, by the Ms' own counts. */
static uint32_t nlocked_all(void)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		n += __atomic_load_n(&allm[i].nlocked, __ATOMIC_RELAXED);
	return n;
}

static uint64_t nlockedgive_all(void)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		n += __atomic_load_n(&allm[i].nlockedgive, __ATOMIC_RELAXED);
	return n;
}

TEST(runtime_locked_nests_as_go)
{
	uint32_t base = nlocked_all();

	ASSERT_EQ(lockedcore(), -1);
	unlockosthread();		/* not locked: a no-op, as in Go */
	ASSERT_EQ(lockedcore(), -1);
	lockosthread();
	int c = lockedcore();
	ASSERT_EQ((uint32_t)c, core_now());
	ASSERT_EQ(nlocked_all(), base + 1);
	lockosthread();			/* nested: one more unlock to undo */
	for (int i = 0; i < 100; i++) {
		gosched();		/* to the global queue, and back here */
		sleep_ns(10 * NSEC_PER_USEC);
		ASSERT_EQ(core_now(), (uint32_t)c);
	}
	unlockosthread();
	ASSERT_EQ(lockedcore(), c);	/* still locked */
	ASSERT_EQ(core_now(), (uint32_t)c);
	unlockosthread();
	ASSERT_EQ(lockedcore(), -1);
	ASSERT_EQ(nlocked_all(), base);
	unlockosthread();
	ASSERT_EQ(lockedcore(), -1);
	ASSERT_EQ(nlocked_all(), base);
}

/* ---- a locked G never runs on another core, and every one runs to its end ---- */

#define PIN_ITERS	1500

struct pin {
	volatile uint32_t wrong;	/* a locked G seen off its core */
	volatile uint64_t iters;	/* every locked G's iterations */
	volatile uint64_t pings;	/* answered by the partners */
	volatile uint32_t cores;	/* bit per core some G locked to */
	volatile uint32_t ndone;
	chan_t done;
	uint32_t nlocked;
	struct waitgroup others;	/* the partners and the load */
};

struct pin_arg {
	struct pin *s;
	chan_t ping, pong;		/* to its unlocked partner, and back */
	uint32_t id;
	volatile uint32_t ran;		/* times it ran to its end */
};

/* An unlocked G that answers its locked G's pings, wherever it runs. */
static void pin_partner(void *p)
{
	struct pin_arg *a = p;
	uint32_t v;

	while (chan_recv(a->ping, &v)) {
		atomic_xadd64(&a->s->pings, 1);
		chan_send(a->pong, &v);
	}
	waitgroup_done(&a->s->others);
}

/* Moves first (a few yields), locks where it lands, then yields, sleeps
 * (a timer), blocks on a channel with a partner on any core, and spins
 * long enough to be preempted, checking its core after each. */
static void pin_worker(void *p)
{
	struct pin_arg *a = p;
	struct pin *s = a->s;

	for (uint32_t k = 0; k < a->id % 7; k++)
		gosched();
	lockosthread();
	uint32_t c = (uint32_t)lockedcore();
	atomic_or32(&s->cores, 1u << c);
	for (uint32_t i = 0; i < PIN_ITERS; i++) {
		switch ((i + a->id) % 5) {
		case 0: gosched(); break;
		case 1: sleep_ns(5 * NSEC_PER_USEC); break;
		case 2: {
			uint32_t v = i, w = 0;
			chan_send(a->ping, &v);
			chan_recv(a->pong, &w);
			if (w != i)
				atomic_xadd32(&s->wrong, 1000000);
			break;
		}
		case 3:
			for (volatile int k = 0; k < 3000; k++)
				;
			break;
		case 4: goyield(); break;
		}
		if (core_now() != c)
			atomic_xadd32(&s->wrong, 1);
		atomic_xadd64(&s->iters, 1);
	}
	unlockosthread();
	chan_close(a->ping);
	atomic_xadd32(&a->ran, 1);
	if (atomic_xadd32(&s->ndone, 1) == s->nlocked)	/* the new value */
		chan_close(s->done);
}

/* CPU-bound Gs beside them, so that every core has other work to give
 * up for a locked G, and thieves about. */
static void pin_load(void *p)
{
	struct pin *s = p;

	while (atomic_load32(&s->ndone) < s->nlocked) {
		for (volatile int k = 0; k < 20000; k++)
			;
		if (cheaprand() % 4 == 0)
			gosched();
	}
	waitgroup_done(&s->others);
}

TEST(runtime_locked_g_runs_only_on_its_core)
{
	static struct pin s;
	uint32_t n = 2 * sched_nprocs() + 2;
	struct pin_arg *args = kmalloc(sizeof *args * n);

	s = (struct pin){ .done = chan_make(0, 0), .nlocked = n };
	waitgroup_add(&s.others, sched_nprocs() + n);
	for (uint32_t i = 0; i < sched_nprocs(); i++)
		go(pin_load, &s);
	for (uint32_t i = 0; i < n; i++) {
		args[i] = (struct pin_arg){ .s = &s, .id = i,
			.ping = chan_make(sizeof(uint32_t), 0),
			.pong = chan_make(sizeof(uint32_t), 0) };
		go(pin_partner, &args[i]);
		go(pin_worker, &args[i]);
	}
	ASSERT(!chan_recv(s.done, NULL));	/* closed when all have ended */
	uint32_t ncores = (uint32_t)__builtin_popcount(s.cores);
	printf("# %u locked Gs on %u cores: %llu iterations, %llu pings "
	       "answered, %u seen off their core\n", n, ncores,
	       (unsigned long long)s.iters, (unsigned long long)s.pings, s.wrong);
	EXPECT_EQ(s.wrong, 0);
	EXPECT_EQ(s.iters, (uint64_t)n * PIN_ITERS);
	uint64_t want_pings = 0;
	for (uint32_t i = 0; i < n; i++) {
		EXPECT_EQ(args[i].ran, 1);
		for (uint32_t k = 0; k < PIN_ITERS; k++)
			want_pings += (k + i) % 5 == 2;
	}
	EXPECT_EQ(s.pings, want_pings);
	EXPECT_GE(ncores, 1);
	EXPECT_EQ(nlocked_all(), 0);
	waitgroup_wait(&s.others);	/* the partners and the load end */
	for (uint32_t i = 0; i < n; i++) {
		chan_free(args[i].ping);
		chan_free(args[i].pong);
	}
	chan_free(s.done);
	kfree(args);
}

/* ---- readied, it takes its core at once ---- */

/*
 * Two Gs locked to one core. The waiter locks first and starts the
 * spinner, which runs next on its core (runnext) unless a thief takes it
 * elsewhere (then the waiter starts another). The spinner acks on an
 * unbuffered channel: the waiter, readied on its own core, must have run
 * when the send returns. Then, remote: the spinner spins with a slice far
 * longer than the test (nothing but the wake-up takes the core from it)
 * until the waiter has run or SPIN_GIVEUP_NS has passed, while the test's
 * G wakes the waiter from another core; the test passes only when the
 * waiter ran while the spinner still spun. Local: the spinner wakes the
 * waiter itself, which again must have run when the send returns.
 */
#define LONG_SLICE_NS	(60 * NSEC_PER_SEC)
#define SPIN_GIVEUP_NS	(20 * NSEC_PER_SEC)

struct pair {
	chan_t ack, wake;
	struct pollDesc pd;		/* the device's, for a device's wake-up */
	bool remote, device;
	volatile uint32_t core;		/* the waiter's */
	volatile uint32_t acked;	/* the waiter has taken the ack */
	volatile uint32_t spinning;
	volatile uint32_t waiter_ran;	/* the waiter has run after its wake */
	volatile uint32_t spinner_gaveup;
	volatile uint32_t seen_after_ack, seen_after_wake;
	volatile uint32_t tries, wrong;
	struct waitgroup wg;
};

static void pair_spinner(void *p)
{
	struct pair *s = p;

	lockosthread();
	uint32_t ok = core_now() == s->core;
	chan_send(s->ack, &ok);
	if (ok) {
		s->seen_after_ack = atomic_load32(&s->acked);
		if (s->remote) {
			uint64_t end = nanotime() + SPIN_GIVEUP_NS;
			atomic_store32(&s->spinning, 1);
			while (!atomic_load32(&s->waiter_ran)) {
				if (nanotime() > end) {
					atomic_store32(&s->spinner_gaveup, 1);
					break;
				}
			}
		} else {
			chan_send(s->wake, NULL);
			s->seen_after_wake = atomic_load32(&s->waiter_ran);
		}
		if (core_now() != s->core)
			atomic_xadd32(&s->wrong, 1);
	}
	unlockosthread();
	waitgroup_done(&s->wg);
}

static void pair_waiter(void *p)
{
	struct pair *s = p;

	lockosthread();
	s->core = core_now();
	for (;;) {
		uint32_t ok = 0;
		s->tries++;
		waitgroup_add(&s->wg, 1);
		go(pair_spinner, s);
		chan_recv(s->ack, &ok);
		if (ok)
			break;
	}
	atomic_store32(&s->acked, 1);
	if (s->device)
		poll_wait(&s->pd, 'r');
	else
		chan_recv(s->wake, NULL);
	atomic_store32(&s->waiter_ran, 1);
	if (core_now() != s->core)
		atomic_xadd32(&s->wrong, 1);
	unlockosthread();
	waitgroup_done(&s->wg);
}

static void pair_run(struct pair *s, bool remote, bool device)
{
	*s = (struct pair){ .ack = chan_make(sizeof(uint32_t), 0),
			    .wake = chan_make(0, 0), .core = ~0u, .remote = remote,
			    .device = device };
	waitgroup_add(&s->wg, 1);
	go(pair_waiter, s);
	if (remote) {
		/* The spinner holds the waiter's core: we run on another. */
		uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
		while (!atomic_load32(&s->spinning) && nanotime() < end)
			gosched();
		ASSERT_EQ(s->spinning, 1);
		/* From its own core (a timer's G took it for a moment and we
		 * followed) the wake-up preempts us instead: the same test. */
		if (device) {
			/* As a device's interrupt would: the G to the ready
			 * list, an idle core woken for it if there is one.
			 * Else our P polls as we wait below (the netpoll step
			 * of findrunnable, or its look at an overdue list). */
			netpollready(&s->pd, 'r');
			netpoll_wake();
		} else {
			chan_send(s->wake, NULL);
		}
	}
	waitgroup_wait(&s->wg);
	chan_free(s->ack);
	chan_free(s->wake);
}

TEST(runtime_locked_g_readied_elsewhere_takes_its_core_at_once)
{
	static struct pair s;

	test_needs_async_preempt();	/* the spinner has no safe point */
	if (sched_nprocs() < 2)
		test_skip("one P: the waker would need the spinner's core");
	uint64_t old = sched_set_slice(LONG_SLICE_NS);
	pair_run(&s, true, false);
	sched_set_slice(old);
	printf("# waiter on core %u (spinner's try %u) ran while the spinner "
	       "held its core: %s\n", s.core, s.tries, s.spinner_gaveup ? "no" : "yes");
	EXPECT_EQ(s.seen_after_ack, 1);
	EXPECT_EQ(s.spinner_gaveup, 0);
	EXPECT_EQ(s.waiter_ran, 1);
	EXPECT_EQ(s.wrong, 0);
}

/* The same, the waiter readied by its device (poll_wait, netpollready):
 * the poller makes it runnable without ready() (injectglist, the netpoll
 * step), and it must take its core as at once, with the same bound. */
TEST(runtime_locked_g_readied_by_its_device_takes_its_core_at_once)
{
	static struct pair s;

	test_needs_async_preempt();	/* the spinner has no safe point */
	if (sched_nprocs() < 2)
		test_skip("one P: the waker would need the spinner's core");
	uint64_t old = sched_set_slice(LONG_SLICE_NS);
	pair_run(&s, true, true);
	sched_set_slice(old);
	printf("# waiter on core %u (spinner's try %u) ran while the spinner "
	       "held its core: %s\n", s.core, s.tries, s.spinner_gaveup ? "no" : "yes");
	EXPECT_EQ(s.seen_after_ack, 1);
	EXPECT_EQ(s.spinner_gaveup, 0);
	EXPECT_EQ(s.waiter_ran, 1);
	EXPECT_EQ(s.wrong, 0);
}

TEST(runtime_locked_g_readied_on_its_own_core_runs_before_the_readier_goes_on)
{
	static struct pair s;

	pair_run(&s, false, false);
	printf("# the waiter had run when each send returned: %s, %s\n",
	       s.seen_after_ack ? "yes" : "no", s.seen_after_wake ? "yes" : "no");
	EXPECT_EQ(s.seen_after_ack, 1);
	EXPECT_EQ(s.seen_after_wake, 1);
	EXPECT_EQ(s.waiter_ran, 1);
	EXPECT_EQ(s.wrong, 0);
}

/* ---- two CPU-bound Gs locked to one core share it ---- */

/*
 * Each spins, counting its work, and counts a turn whenever it sees that
 * the other has worked since its own last look (the core went to the
 * other and back). A locked G whose slice ends waits its turn as any G
 * does, and runs again on its core at the owner's next switch: neither
 * may keep the core from the other. Passes when each has a tenth of the
 * work or more. The shares are near halves; a host that deschedules the
 * core's thread during one G's slices skews them (the hosted board at 8
 * cores on 2 host CPUs under a hog has shown 0.22).
 */
#define SHARE_TURNS	60
#define SHARE_SLICE_NS	(2 * NSEC_PER_MSEC)

struct share {
	chan_t ack;
	volatile uint32_t core;
	volatile uint64_t work[2], turns;
	volatile uint32_t stop, wrong;
	struct waitgroup wg;
};

static void share_spin(struct share *s, int me)
{
	uint64_t seen = atomic_load64(&s->work[!me]);
	while (!atomic_load32(&s->stop)) {
		for (volatile int k = 0; k < 500; k++)
			;
		atomic_store64(&s->work[me], s->work[me] + 1);
		uint64_t o = atomic_load64(&s->work[!me]);
		if (o != seen) {
			seen = o;
			if (atomic_xadd64(&s->turns, 1) + 1 >= SHARE_TURNS)
				atomic_store32(&s->stop, 1);
		}
	}
	if (core_now() != s->core)
		atomic_xadd32(&s->wrong, 1);
	unlockosthread();
	waitgroup_done(&s->wg);
}

static void share_second(void *p)
{
	struct share *s = p;

	lockosthread();
	uint32_t ok = core_now() == s->core;
	chan_send(s->ack, &ok);
	if (!ok) {
		unlockosthread();
		waitgroup_done(&s->wg);
		return;
	}
	share_spin(s, 1);
}

static void share_first(void *p)
{
	struct share *s = p;

	lockosthread();
	s->core = core_now();
	for (uint32_t ok = 0; !ok;) {
		waitgroup_add(&s->wg, 1);
		go(share_second, s);	/* next here, unless a thief takes it */
		chan_recv(s->ack, &ok);
	}
	share_spin(s, 0);
}

TEST(runtime_locked_cpu_bound_gs_on_one_core_share_it)
{
	static struct share s;

	test_needs_async_preempt();	/* two spinners, one core */
	uint64_t old = sched_set_slice(SHARE_SLICE_NS);
	s = (struct share){ .ack = chan_make(sizeof(uint32_t), 0) };
	waitgroup_add(&s.wg, 1);
	go(share_first, &s);
	waitgroup_wait(&s.wg);
	sched_set_slice(old);
	uint64_t total = s.work[0] + s.work[1];
	printf("# two locked Gs on core %u: work %llu and %llu in %llu turns\n",
	       s.core, (unsigned long long)s.work[0], (unsigned long long)s.work[1],
	       (unsigned long long)s.turns);
	EXPECT_EQ(s.wrong, 0);
	EXPECT_GE(s.work[0] * 10, total);
	EXPECT_GE(s.work[1] * 10, total);
	chan_free(s.ack);
}

/* ---- resizes: a locked G keeps its core when the core loses its P ---- */

#define RESIZE_ROUNDS	300

struct rsz {
	volatile uint32_t wrong;
	volatile uint64_t answered;
	uint32_t cores;
};

struct rsz_arg {
	struct rsz *s;
	chan_t ping, pong;
	volatile uint32_t core, ready;
	uint32_t spread;
	volatile uint64_t got;		/* pings it answered */
};

static void rsz_worker(void *p)
{
	struct rsz_arg *a = p;

	/* Spread over the cores: yield (to the global queue, which any core
	 * takes from) until on the one this G was given, or for a while. */
	uint64_t end = nanotime() + 200 * NSEC_PER_MSEC;
	while (core_now() != a->spread && nanotime() < end)
		gosched();
	lockosthread();
	a->core = core_now();
	atomic_store32(&a->ready, 1);
	uint32_t v;
	while (chan_recv(a->ping, &v)) {
		if (core_now() != a->core)
			atomic_xadd32(&a->s->wrong, 1);
		a->got++;
		atomic_xadd64(&a->s->answered, 1);
		chan_send(a->pong, &v);
	}
	unlockosthread();
	atomic_store32(&a->ready, 2);
}

TEST(runtime_locked_g_keeps_its_core_across_resizes)
{
	static struct rsz s;
	uint32_t online = ncpus_online;
	int n0 = gomaxprocs(0);
	uint32_t nw = 2 * online;
	struct rsz_arg *args = kmalloc(sizeof *args * nw);
	uint64_t seed = sched_seed() | 1, give0 = nlockedgive_all();
	uint32_t rounds1 = 0;

	if (online < 2)
		test_skip("one core: no P to take from a locked G's core");
	gomaxprocs((int)online);
	s = (struct rsz){ 0 };
	for (uint32_t i = 0; i < nw; i++) {
		args[i] = (struct rsz_arg){ .s = &s, .spread = i % online,
			.ping = chan_make(sizeof(uint32_t), 0),
			.pong = chan_make(sizeof(uint32_t), 0) };
		go(rsz_worker, &args[i]);
	}
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	for (uint32_t i = 0; i < nw; i++) {
		while (!atomic_load32(&args[i].ready) && nanotime() < end)
			gosched();
		ASSERT_EQ(args[i].ready, 1);
		s.cores |= 1u << args[i].core;
	}
	for (uint32_t r = 0; r < RESIZE_ROUNDS; r++) {
		/* Every third round one P: the locked Gs' cores but one have
		 * none, and must be given one to run them. */
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t n = r % 3 == 0 ? 1 : 1 + (uint32_t)((seed >> 33) % online);
		gomaxprocs((int)n);
		rounds1 += n == 1;
		for (uint32_t i = 0; i < nw; i++) {
			uint32_t v = r * nw + i, w = ~0u;
			chan_send(args[i].ping, &v);
			chan_recv(args[i].pong, &w);
			ASSERT_EQ(w, v);
		}
	}
	for (uint32_t i = 0; i < nw; i++)
		chan_close(args[i].ping);
	for (uint32_t i = 0; i < nw; i++) {
		end = nanotime() + WAIT_TIMEOUT_NS;
		while (atomic_load32(&args[i].ready) != 2 && nanotime() < end)
			gosched();
		EXPECT_EQ(args[i].ready, 2);
		EXPECT_EQ(args[i].got, RESIZE_ROUNDS);
	}
	uint64_t gives = nlockedgive_all() - give0;
	printf("# %u locked Gs on %u cores, %u rounds (%u with one P): %llu "
	       "answers, %u off their core, %llu Ps handed to a locked G's core\n",
	       nw, (uint32_t)__builtin_popcount(s.cores), RESIZE_ROUNDS, rounds1,
	       (unsigned long long)s.answered, s.wrong, (unsigned long long)gives);
	EXPECT_EQ(s.wrong, 0);
	EXPECT_EQ(s.answered, (uint64_t)nw * RESIZE_ROUNDS);
	/* Two or more cores locked and rounds with one P: some locked G's
	 * core had no P when its G was readied, and got the one there was. */
	if (__builtin_popcount(s.cores) >= 2)
		EXPECT_GT(gives, 0);
	gomaxprocs(n0);
	for (uint32_t i = 0; i < nw; i++) {
		chan_free(args[i].ping);
		chan_free(args[i].pong);
	}
	kfree(args);
}

/*
 * ---- a G locked to this M readied while it hands its P over ----
 *
 * The M that finds a G locked to an idle M, with no idle P to give that
 * M, gives its own and joins the idle Ms (startlockedm). A G locked to
 * the giving M that was readied onto its queue after its findrunnable
 * looked must keep that M from going idle: it would wait on the queue
 * of an M that halts, for good. Staged at one P on two cores: the test's
 * G, locked to its core, readies a partner locked to the other (idle)
 * core, which goes to the global queue, and parks; its M finds the
 * partner, and the race hook, at startlockedm's start, readies the test's
 * G there, as a channel send on another core would.
 */
static struct strand {
	chan_t wake_b, reply, wake_t;
	struct g *gb;
	struct m *mb;
	uint32_t avoid;
	volatile uint32_t core_b, ready_b, armed, fired;
} strand;

static void strand_partner(void *p)
{
	struct strand *s = p;
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (core_now() == s->avoid && nanotime() < end)
		gosched();
	lockosthread();
	s->gb = getg();
	s->mb = getm();
	s->core_b = core_now();
	atomic_store32(&s->ready_b, 1);
	uint32_t v;
	chan_recv(s->wake_b, &v);
	chan_send(s->reply, &v);
	unlockosthread();
}

/* On g0 of the M that found the partner: the test's G is parked on
 * wake_t (armed just before its park), and this readies it. */
static void strand_race(enum sched_race_point pt)
{
	uint32_t v = 2;
	if (pt == SCHED_RACE_STARTLOCKEDM && atomic_cas32(&strand.armed, 1, 0) &&
	    chan_trysend(strand.wake_t, &v))
		atomic_store32(&strand.fired, 1);
}

static bool m_is_idle(struct m *mp)
{
	bool idle = false;
	spin_lock(&sched.lock);
	for (struct m *it = sched.midle; it; it = it->schedlink)
		idle |= it == mp;
	spin_unlock(&sched.lock);
	return idle;
}

TEST(runtime_locked_g_readied_as_its_m_gives_its_p_away_runs)
{
	struct strand *s = &strand;
	int n0 = gomaxprocs(0);

	if (ncpus_online < 2)
		test_skip("one core: no other core to lock the partner to");
	gomaxprocs(2);
	lockosthread();
	uint32_t me = core_now();
	*s = (struct strand){ .avoid = me,
		.wake_b = chan_make(sizeof(uint32_t), 0),
		.reply = chan_make(sizeof(uint32_t), 0),
		.wake_t = chan_make(sizeof(uint32_t), 0) };
	go(strand_partner, s);
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (!(atomic_load32(&s->ready_b) && readgstatus(s->gb) == _Gwaiting) &&
	       nanotime() < end)
		sleep_ns(100 * NSEC_PER_USEC);
	ASSERT_EQ(s->ready_b, 1);
	ASSERT_EQ(readgstatus(s->gb), _Gwaiting);
	ASSERT_NE(s->core_b, me);
	gomaxprocs(1);		/* we keep the P; the partner's M goes idle */
	end = nanotime() + WAIT_TIMEOUT_NS;
	while (!m_is_idle(s->mb) && nanotime() < end)
		sleep_ns(100 * NSEC_PER_USEC);
	ASSERT_EQ(m_is_idle(s->mb), true);
	ASSERT_EQ(core_now(), me);

	atomic_store32(&s->armed, 1);
	__atomic_store_n(&sched_race_hook, strand_race, __ATOMIC_RELEASE);
	uint32_t v = 1, w = 0;
	chan_send(s->wake_b, &v);	/* its M idle, no P free: the global queue */
	chan_recv(s->wake_t, &w);	/* our M finds it; the hook readies us */
	__atomic_store_n(&sched_race_hook, NULL, __ATOMIC_RELEASE);
	EXPECT_EQ(s->fired, 1);
	EXPECT_EQ(w, 2);
	EXPECT_EQ(core_now(), me);
	chan_recv(s->reply, &w);	/* and the partner ran on its own core */
	EXPECT_EQ(w, 1);
	unlockosthread();
	gomaxprocs(n0);
	chan_free(s->wake_b);
	chan_free(s->reply);
	chan_free(s->wake_t);
}

/* ---- the lock ends with the G ---- */

static void lock_and_exit(void *p)
{
	struct waitgroup *wg = p;

	lockosthread();
	lockosthread();
	waitgroup_done(wg);
}

static struct waitgroup report_wg;

static void report_lock(void *p)
{
	volatile int *out = p;

	*out = lockedcore();
	waitgroup_done(&report_wg);
}

TEST(runtime_locked_g_that_exits_ends_its_lock)
{
	static struct waitgroup wg;
	static volatile int seen[64];
	uint32_t base = nlocked_all();

	waitgroup_add(&wg, 64);
	for (int i = 0; i < 64; i++)
		go(lock_and_exit, &wg);
	waitgroup_wait(&wg);
	/* Done is their last word before the exit: wait for the exits. */
	uint64_t end = nanotime() + WAIT_TIMEOUT_NS;
	while (nlocked_all() != base && nanotime() < end)
		gosched();
	EXPECT_EQ(nlocked_all(), base);
	/* New Gs reuse the records: none starts locked. */
	waitgroup_add(&report_wg, 64);
	for (int i = 0; i < 64; i++) {
		seen[i] = -2;
		go(report_lock, (void *)&seen[i]);
	}
	waitgroup_wait(&report_wg);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(seen[i], -1);
}

/* ---- misuse ---- */

static void lock_from_a_timer(void *arg)
{
	(void)arg;
	lockosthread();
}

TEST_FATAL(runtime_locked_in_a_timer_callback_is_named,
	   "lockosthread in timer callback lock_from_a_timer (callbacks run "
	   "on the scheduler, not in a goroutine)")
{
	fire_timer_callback(lock_from_a_timer);
}

/* A deadlock's goroutine list says which G is locked, and to which core
 * (Go: "locked to thread"). */
TEST_FATAL(runtime_locked_g_in_a_deadlock_is_named_locked,
	   "all goroutines are asleep - deadlock!")
{
	int v;

	lockosthread();
	test_expect_traceback("goroutine * [chan receive (nil chan), locked to core %d]:",
			      lockedcore());
	chan_recv(NULL, &v);
}
