/*
 * The scheduler's wake-up paths: each test names the defect it would
 * catch if it came back. A race is forced where a test hook can hold one
 * side at the point where the other must slip in (sched_race_hook); the
 * rest count, and bound time only in slices with wide margins, as said
 * beside each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/ipi.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "lib/sync.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/timechan.h"
#include "tests/preempt_testutil.h"
#include "tests/sched_testutil.h"

extern void (*ipi_ping_hook)(void);	/* kernel/ipi.c: tests' IPI_PING */

/* Spin, in an interrupt handler or on g0, until *w reaches want or ns
 * pass; returns the last value seen. */
static uint64_t spin_until64(volatile uint64_t *w, uint64_t want, uint64_t ns)
{
	uint64_t end = nanotime() + ns, v;
	while ((v = __atomic_load_n(w, __ATOMIC_ACQUIRE)) < want && nanotime() < end)
		arch_cpu_relax();
	return v;
}

/* Every P's timer heap empty (checkdead, below, returns at a pending
 * timer before it looks at the poller); waits up to 2 s. */
static bool no_timers_pending(void)
{
	uint64_t end = nanotime() + 2 * NSEC_PER_SEC;
	for (;;) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < sched_nprocs(); i++)
			n += timers_len(sched_p(i));
		if (n == 0)
			return true;
		if (nanotime() >= end)
			return false;
		sleep_ns(NSEC_PER_MSEC);
	}
}

/* ---- the poller's kick counters are exact under every core ----------- */

/*
 * netpoll_kick and netpoll_wake count, from any core's interrupt handler,
 * how they got readied Gs run (netpoll_kicks[]). A plain increment there
 * loses counts when two cores bump the same one. Here every P runs a G
 * that calls netpoll_wake KICK_CALLS times at once, with a readied G on
 * the poller's list and no P idle: each call must count one
 * NETPOLL_KICK_NONE. The slice is made long so that no tick preempts a
 * kicker (a preemption takes the readied G off the list, and the calls
 * after it count nothing); a round where the list was taken anyway (a
 * leftover timer of another test, a P between two Gs) is run again.
 */
#define KICK_CALLS	100000u
#define KICK_ROUNDS	3
#define KICK_SLICE_NS	(10 * NSEC_PER_SEC)

static struct pollDesc kick_pd;
static volatile uint32_t kick_started, kick_go, kick_done, kick_drained;
static struct waitgroup kick_wg;

static void kick_waiter(void *arg)
{
	(void)arg;
	poll_wait(&kick_pd, 'r');
	waitgroup_done(&kick_wg);
}

/* The calls, then whether the readied G was still on the list after the
 * last (it leaves only once: then every call before saw it). */
static void kick_calls(void)
{
	for (uint32_t i = 0; i < KICK_CALLS; i++)
		netpoll_wake();
	if (!netpoll_pending())
		atomic_store32(&kick_drained, 1);
	atomic_xadd32(&kick_done, 1);
}

static void kicker(void *arg)
{
	uint32_t np = (uint32_t)(uintptr_t)arg;
	atomic_xadd32(&kick_started, 1);
	while (!atomic_load32(&kick_go))
		;	/* spin: this P stays busy (the tick lets others run) */
	kick_calls();
	/* Spin until every kicker is done: a P that schedules now would
	 * take the readied G off the list under the others' calls. */
	while (atomic_load32(&kick_done) < np)
		;
	waitgroup_done(&kick_wg);
}

TEST(sched_wakeup_netpoll_kick_counts_are_exact_from_every_core)
{
	uint32_t np = sched_nprocs();
	if (np < 2)
		test_skip("needs 2 Ps: the counters race between cores");
	uint64_t got = 0, want = (uint64_t)np * KICK_CALLS;
	int round;
	for (round = 0; round < KICK_ROUNDS; round++) {
		memset(&kick_pd, 0, sizeof kick_pd);
		atomic_store32(&kick_started, 0);
		atomic_store32(&kick_go, 0);
		atomic_store32(&kick_done, 0);
		atomic_store32(&kick_drained, 0);
		waitgroup_add(&kick_wg, (int32_t)np);	/* np - 1 kickers, the waiter */
		go(kick_waiter, NULL);
		while (!pd_parked(&kick_pd, 'r'))
			sleep_ns(NSEC_PER_MSEC);
		for (uint32_t i = 0; i + 1 < np; i++)
			go(kicker, (void *)(uintptr_t)np);
		while (atomic_load32(&kick_started) < np - 1 ||
		       atomic_load32(&sched.npidle) != 0)
			gosched();
		/* Every other P runs a kicker now, and this G one: no P idle. */
		uint64_t old = sched_set_slice(KICK_SLICE_NS);
		uint64_t none0 = atomic_load64(&netpoll_kicks[NETPOLL_KICK_NONE]);
		netpollready(&kick_pd, 'r');	/* as a device's interrupt would */
		atomic_store32(&kick_go, 1);
		kick_calls();
		while (atomic_load32(&kick_done) < np)
			;
		got = atomic_load64(&netpoll_kicks[NETPOLL_KICK_NONE]) - none0;
		bool taken = atomic_load32(&kick_drained);
		sched_set_slice(old);
		waitgroup_wait(&kick_wg);
		printf("# round %d: %u cores x %u calls: %llu counted%s\n", round, np,
		       KICK_CALLS, (unsigned long long)got,
		       taken ? " (the readied G was taken meanwhile: again)" : "");
		if (!taken)
			break;
	}
	if (round == KICK_ROUNDS)	/* never the precondition: nothing to check */
		test_skip("a P took the readied G off the list in every round "
			  "(an emulator running the cores by turns)");
	EXPECT_EQ(got, want);
}

/* ---- a G a device readied is no deadlock while it moves ---------------- */

/*
 * netpollready (a device's interrupt) takes the waiting G off its
 * descriptor, pushes it on the poller's ready list and takes it out of
 * the waiter count. checkdead, run when the last M goes idle, calls the
 * machine dead unless a G waits on a device or sits on that list: with
 * the count lowered before the push, a G between the two was in
 * neither, and an M going idle then stopped the program with "all
 * goroutines are asleep - deadlock!" while a device had just woken one.
 *
 * Forced here: the waiter parks in poll_wait, this G parks too, and the
 * readying runs in an IPI handler on another core once every M is idle.
 * The race hook, between the two steps, runs checkdead there as the
 * last M going idle would. Both modes: 'r' (console input) and 'w' (the
 * transmit interrupt's writers) take the same path.
 */
/* Tries per mode: an M that wakes between the last look and checkdead
 * (a stray timer) takes the readied G, and checkdead then returns at
 * once; the next try goes on. */
#define DL_TRIES 5

static struct pollDesc dl_pd;
static volatile uint32_t dl_mode, dl_armed;
static volatile uint64_t dl_window_checks, dl_idle;
static struct waitgroup dl_wg;

static void dl_waiter(void *arg)
{
	(void)arg;
	poll_wait(&dl_pd, (int)dl_mode);
	waitgroup_done(&dl_wg);
}

static void dl_race(enum sched_race_point pt)
{
	if (pt != SCHED_RACE_NETPOLL_READIED || !atomic_xchg32(&dl_armed, 0))
		return;
	/* Every M is idle (dl_ping waited for it): what the last one to go
	 * idle would do now, in mput. */
	spin_lock(&sched.lock);
	uint64_t w0 = checkdead_netpoll_waits;
	bool all_idle = sched.nmidle == sched.nprocs;
	checkdead();
	/* Counted only where checkdead got to the poller with every M idle
	 * (an M that woke meanwhile, and took the G, makes it return first). */
	if (all_idle && checkdead_netpoll_waits != w0)
		atomic_xadd64(&dl_window_checks, 1);
	spin_unlock(&sched.lock);
}

/* Every M idle, and every other core with one halted (not in a stopm
 * round that would see the readied G and take it). The idle list under
 * sched.lock: this runs where stopm's halt took the interrupt, which
 * holds no lock. */
static bool all_ms_idle_and_halted(void)
{
	spin_lock(&sched.lock);
	bool all = sched.nmidle == sched.nprocs;
	spin_unlock(&sched.lock);
	if (!all)
		return false;
	for (unsigned i = 0; i < ncpus; i++)
		if (cpus[i].m && &cpus[i] != this_cpu() &&
		    atomic_load64(&cpus[i].halted_since) == 0)
			return false;
	return true;
}

/* IPI_PING on an idle core: once every M is idle, the device's part.
 * The core was halted when it was picked, but may have woken since (a
 * startm) and be in a sched.lock section of its own with interrupts on:
 * then the wait, which takes the lock, is left out, and this try misses
 * the window (the test tries again). */
static void dl_ping(void)
{
	spin_until64(&dl_idle, 1, 2 * NSEC_PER_SEC);
	uint64_t end = nanotime() + 2 * NSEC_PER_SEC;
	while (!spin_held(&sched.lock) && !all_ms_idle_and_halted() && nanotime() < end)
		arch_cpu_relax();
	netpollready(&dl_pd, (int)dl_mode);
	netpoll_wake();
}

/* A core other than this one, halted, whose M is on the idle list (not
 * being handed a P), or that has no M. */
static int idle_core(void)
{
	uint64_t end = nanotime() + 2 * NSEC_PER_SEC;
	do {
		int found = -1;
		spin_lock(&sched.lock);	/* the idle list; preemption off too */
		unsigned me = this_cpu()->id;
		for (unsigned i = 0; i < ncpus && found < 0; i++) {
			if (i == me || !cpus[i].online ||
			    atomic_load64(&cpus[i].halted_since) == 0)
				continue;
			if (!cpus[i].m)
				found = (int)i;
			for (struct m *mp = sched.midle; mp && found < 0; mp = mp->schedlink)
				if (mp == cpus[i].m)
					found = (int)i;
		}
		spin_unlock(&sched.lock);
		if (found >= 0)
			return found;
		sleep_ns(NSEC_PER_MSEC);
	} while (nanotime() < end);
	return -1;
}

TEST(sched_wakeup_netpoll_readied_g_is_no_deadlock_between_list_and_count)
{
	if (ncpus_online < 2)
		test_skip("needs a second core to take the device's interrupt");
	static const char modes[] = { 'r', 'w' };
	uint32_t reached = 0, tries = 0;
	for (int k = 0; k < 2; k++)
	for (int t = 0; t < DL_TRIES; t++) {
		uint64_t checks0 = atomic_load64(&dl_window_checks);
		tries++;
		if (!no_timers_pending())
			test_skip("a timer stays pending: checkdead would not look at the poller");
		memset(&dl_pd, 0, sizeof dl_pd);
		dl_mode = (uint32_t)modes[k];
		waitgroup_add(&dl_wg, 1);
		go(dl_waiter, NULL);
		while (!pd_parked(&dl_pd, (int)dl_mode))
			gosched();
		int target = idle_core();
		if (target < 0)
			test_skip("no other core went idle");
		atomic_store64(&dl_idle, 0);
		atomic_store32(&dl_armed, 1);
		__atomic_store_n(&sched_race_hook, dl_race, __ATOMIC_RELEASE);
		__atomic_store_n(&ipi_ping_hook, dl_ping, __ATOMIC_RELEASE);
		ipi_send((unsigned)target, IPI_PING);
		atomic_store64(&dl_idle, 1);
		waitgroup_wait(&dl_wg);		/* this M goes idle: the last */
		/* The hook runs after netpollready's push: an M awake then
		 * (the try that misses the window) may take the readied G and
		 * the waiter finish first. It still runs: wait for it. */
		uint64_t hook_end = nanotime() + 10 * NSEC_PER_SEC;
		while (atomic_load32(&dl_armed) != 0 && nanotime() < hook_end)
			sleep_ns(100 * NSEC_PER_USEC);
		__atomic_store_n(&ipi_ping_hook, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&sched_race_hook, NULL, __ATOMIC_RELEASE);
		EXPECT_EQ(atomic_load32(&dl_armed), 0);	/* the hook ran */
		if (atomic_load64(&dl_window_checks) != checks0) {
			reached++;
			break;
		}
	}
	printf("# checkdead ran with every M idle and the readied G between the "
	       "list and the count for %u of 2 modes (%u tries); no deadlock "
	       "reported\n", reached, tries);
	EXPECT_EQ(reached, 2);
	/* The count came back to 0 (a console writer that waits for room,
	 * counted too, leaves once the line drains). */
	uint64_t end = nanotime() + 10 * NSEC_PER_SEC;
	while (netpoll_waiters() != 0 && nanotime() < end)
		sleep_ns(NSEC_PER_MSEC);
	EXPECT_EQ(netpoll_waiters(), 0);
}

/* ---- a spinner that finds two Gs leaves none beside a P gone idle ----- */

/*
 * 2 Ps. M1 spins (it found nothing) and M2, not spinning (one spinner is
 * enough for two busy Ps), is about to give up its P. Then M1 finds two
 * Gs (here the global queue: a batch of GA and GB; a last steal pass that
 * fires another P's timers is the same), runs GA and leaves GB on its
 * queue, and as it stops spinning calls wakep for GB. No P is idle yet:
 * with a bare `npidle == 0` test wakep returned, M2 then dropped its P,
 * and GB waited beside it until GA's slice ended. Go's wakep sets
 * needspinning under sched.lock, and the M dropping its P reads it there
 * and spins instead: it steals GB while GA still runs.
 *
 * The race hook holds M1 (spinning) where it would give up its P, lets
 * M2 (not spinning) arrive there and put GA and GB on the global queue,
 * then holds M2 until M1's wakep is done. GA spins until GB has run (or
 * three slices). The slice is long (500 ms) and the check counts, not
 * times: GB must run before GA's P has preempted anything, i.e. within
 * GA's first slice, unless the other core was not halted meanwhile (a
 * loaded host stopped it: no P was idle); the latency is printed.
 */
#define NS_ROUNDS	3
#define NS_SLICE_NS	(500 * NSEC_PER_MSEC)
#define NS_HOLD_NS	(2 * NSEC_PER_SEC)	/* most a hook waits for the other side */

enum { NS_ARMED, NS_SPINNER_HELD, NS_INJECTING, NS_INJECTED, NS_WOKE };
static volatile uint32_t ns_phase = NS_WOKE;	/* not armed */
static volatile uint32_t ns_g2_running, ns_ga_started, ns_ga_p, ns_gb_ran, ns_gb_late;
static volatile uint64_t ns_ga_pre0, ns_injected_at, ns_gb_wait, ns_idle_at, ns_gb_idle;

/* Every core's halted time (kernel/time.h's cpu_idle_ns), summed. */
static uint64_t ns_idle_sum(void)
{
	uint64_t sum = 0;
	for (unsigned c = 0; c < ncpus; c++)
		sum += cpu_idle_ns(&cpus[c]);
	return sum;
}
static struct waitgroup ns_wg;

static uint64_t p_preemptions(uint32_t id)
{
	struct p *pp = sched_p(id);
	return __atomic_load_n(&pp->npreempt, __ATOMIC_RELAXED) +
	       __atomic_load_n(&pp->npreemptsafe, __ATOMIC_RELAXED);
}

static void ns_spin_until(volatile uint32_t *w, uint32_t want)
{
	uint64_t end = nanotime() + NS_HOLD_NS;
	while (atomic_load32(w) < want && nanotime() < end)
		arch_cpu_relax();
}

static void ns_ga(void *arg)
{
	(void)arg;
	preempt_disable();
	uint32_t id = this_p_id();
	preempt_enable();
	ns_ga_p = id;
	ns_ga_pre0 = p_preemptions(id);
	atomic_store32(&ns_ga_started, 1);
	uint64_t end = nanotime() + 3 * NS_SLICE_NS;
	while (!atomic_load32(&ns_gb_ran) && nanotime() < end)
		;
	waitgroup_done(&ns_wg);
}

static void ns_gb(void *arg)
{
	(void)arg;
	ns_gb_wait = nanotime() - ns_injected_at;
	ns_gb_idle = ns_idle_sum() - ns_idle_at;
	/* GA's P preempted something since GA started: GB waited for the
	 * end of GA's slice (GA not started yet: it has not), and the other
	 * core spent most of that wait halted, its P idle beside GB. A core
	 * the host stopped instead (a loaded host: its thread or vCPU not
	 * run) is not halted: that wait is the host's, not a P left idle. */
	ns_gb_late = atomic_load32(&ns_ga_started) &&
		     p_preemptions(ns_ga_p) != ns_ga_pre0 &&
		     ns_gb_idle >= ns_gb_wait / 2;
	atomic_store32(&ns_gb_ran, 1);
	waitgroup_done(&ns_wg);
}

/* On g0 of the M at the point (its P held, no lock). */
static void ns_race(enum sched_race_point pt)
{
	struct m *mp = getg()->m;
	if (pt == SCHED_RACE_SPINNER_WOKE) {
		atomic_cas32(&ns_phase, NS_INJECTED, NS_WOKE);
		return;
	}
	if (pt != SCHED_RACE_DROP_P)
		return;
	if (mp->spinning && atomic_cas32(&ns_phase, NS_ARMED, NS_SPINNER_HELD)) {
		ns_spin_until(&ns_phase, NS_INJECTED);
	} else if (!mp->spinning && atomic_cas32(&ns_phase, NS_SPINNER_HELD, NS_INJECTING)) {
		struct g *ga = newproc1(ns_ga, NULL, G_STACK_DEFAULT, false);
		struct g *gb = newproc1(ns_gb, NULL, G_STACK_DEFAULT, false);
		spin_lock_nopreempt(&sched.lock);
		globrunqput(ga);
		globrunqput(gb);
		spin_unlock_nopreempt(&sched.lock);
		ns_idle_at = ns_idle_sum();
		ns_injected_at = nanotime();
		atomic_store32(&ns_phase, NS_INJECTED);
		ns_spin_until(&ns_phase, NS_WOKE);
	}
}

static void ns_g2(void *arg)
{
	(void)arg;
	atomic_store32(&ns_g2_running, 1);
	/* This P stays busy until the other M is held as a spinner; then
	 * this G ends and its M, finding nothing, goes to drop the P. */
	ns_spin_until(&ns_phase, NS_SPINNER_HELD);
}

TEST(sched_wakeup_a_spinner_that_finds_two_gs_leaves_none_beside_an_idle_p)
{
	if (sched_nprocs() != 2)
		test_skip("needs exactly 2 Ps (make test boots nprocs=2)");
	uint64_t old = sched_set_slice(NS_SLICE_NS);
	uint32_t late = 0, staged = 0;
	uint64_t worst = 0;
	__atomic_store_n(&sched_race_hook, ns_race, __ATOMIC_RELEASE);
	for (int r = 0; r < NS_ROUNDS; r++) {
		atomic_store32(&ns_g2_running, 0);
		atomic_store32(&ns_ga_started, 0);
		atomic_store32(&ns_gb_ran, 0);
		waitgroup_add(&ns_wg, 2);	/* GA and GB */
		atomic_store32(&ns_phase, NS_ARMED);
		go(ns_g2, NULL);
		while (!atomic_load32(&ns_g2_running))
			gosched();
		waitgroup_wait(&ns_wg);		/* this M goes spinning: M1 */
		staged += atomic_load32(&ns_phase) == NS_WOKE;
		atomic_store32(&ns_phase, NS_WOKE);
		late += ns_gb_late;
		if (ns_gb_wait > worst)
			worst = ns_gb_wait;
	}
	__atomic_store_n(&sched_race_hook, NULL, __ATOMIC_RELEASE);
	sched_set_slice(old);
	printf("# %u of %d rounds staged; GB ran after GA's slice ended in %u; "
	       "longest wait %llu us (slice %llu ms)\n", staged, NS_ROUNDS, late,
	       (unsigned long long)(worst / NSEC_PER_USEC),
	       (unsigned long long)(NS_SLICE_NS / NSEC_PER_MSEC));
	EXPECT_EQ(staged, NS_ROUNDS);
	EXPECT_EQ(late, 0);
}

/* ---- a G sleeping 1 ns in a loop does not keep its P ------------------- */

/*
 * One P. G1 sleeps the shortest sleep in a loop: each time it parks, the
 * scheduler fires its timer at once and G1 comes back through runnext,
 * inheriting the slice. This G meanwhile yields (gosched: to the global
 * queue) SL_ROUNDS times. The chain of G1's wake-ups must end with its
 * slice and let this G run: Go's sysmon preempts a G still on the same
 * schedtick after 10 ms. Caught: a chain that goes on with a new slice
 * whenever the local ring is empty, while the 61st-tick pick of the
 * global queue is skipped on every round in which a timer readied a G
 * (this G then waits seconds, for a round without one).
 *
 * Counted in slices, not time: the P's schedtick (new slices) may move
 * at most SL_TICKS_PER_ROUND a round (one of G1's chain, one of ours,
 * and room for a preemption or two). G1 stops after SL_MAX_NS so that a
 * failure ends, and this G's yields must all have come by then (a few
 * slices' worth: a chain that kept schedtick as it went on would pass
 * the count, and hold this G until G1 gave up).
 */
#define SL_ROUNDS		20u
#define SL_TICKS_PER_ROUND	4u
#define SL_MAX_NS		(10 * NSEC_PER_SEC)

static volatile uint32_t sl_stop, sl_gaveup;
static volatile uint64_t sl_loops;
static struct waitgroup sl_wg;

static void sl_sleeper(void *arg)
{
	(void)arg;
	uint64_t end = nanotime() + SL_MAX_NS;
	while (!atomic_load32(&sl_stop)) {
		if (nanotime() >= end) {
			atomic_store32(&sl_gaveup, 1);
			break;
		}
		sleep_ns(1);
		sl_loops++;
	}
	waitgroup_done(&sl_wg);
}

TEST(sched_wakeup_a_g_sleeping_1ns_in_a_loop_leaves_its_p_each_slice)
{
	if (sched_nprocs() != 1)
		test_skip("needs nprocs=1: with more Ps another P runs this G");
	struct p *pp = sched_p(0);
	atomic_store32(&sl_stop, 0);
	atomic_store32(&sl_gaveup, 0);
	sl_loops = 0;
	waitgroup_add(&sl_wg, 1);
	uint32_t tick0 = __atomic_load_n(&pp->schedtick, __ATOMIC_RELAXED);
	uint64_t t0 = nanotime();
	go(sl_sleeper, NULL);		/* runs at our first yield */
	uint32_t rounds = 0;
	for (; rounds < SL_ROUNDS; rounds++)
		gosched();
	uint32_t ticks = __atomic_load_n(&pp->schedtick, __ATOMIC_RELAXED) - tick0;
	uint64_t ms = (nanotime() - t0) / NSEC_PER_MSEC;
	atomic_store32(&sl_stop, 1);
	waitgroup_wait(&sl_wg);
	printf("# %u yields beside a G looping on sleep_ns(1): %u new slices, %llu ms, "
	       "%llu sleeps\n", rounds, ticks, (unsigned long long)ms,
	       (unsigned long long)sl_loops);
	EXPECT_LE(ticks, SL_ROUNDS * SL_TICKS_PER_ROUND);
	EXPECT_EQ(sl_gaveup, 0);
}

/* ---- a sleeper with every P busy wakes within about a slice ------------ */

/*
 * BUSY_PER_P CPU-bound Gs per P and one G that sleeps one slice at a time.
 * The tick preempts the spinner on the sleeper's P for its timer; with the
 * timer due right at that spinner's slice end the tick finds both, the
 * spinner's slice is over, and the woken G in runnext "inherits" a slice
 * used up. It is the next G and must start a slice of its own: put
 * behind the whole local ring, it would wake (BUSY_PER_P - 1) slices
 * late.
 *
 * The figure is the scheduler's share of each wake-up's lateness: the
 * interrupt's own lateness (the emulator's or the host's: the core's
 * timer interrupt came after the deadline it was armed for) is taken off,
 * as bench latency does. Its median must be under one slice (behind the
 * ring, it is two).
 */
#define BUSY_PER_P	3u
#define BUSY_SLEEPS	30u
#define BUSY_SLACK_NS	(20 * NSEC_PER_USEC)	/* sleep_ns's deadline is a little after t0 + d */

static volatile uint32_t busy_stop;
static struct waitgroup busy_wg;

static void busy_g(void *arg)
{
	(void)arg;
	while (!atomic_load32(&busy_stop))
		spin_registers(SPIN_CHUNK / 16);
	waitgroup_done(&busy_wg);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

TEST(sched_wakeup_a_sleeper_with_every_p_busy_wakes_within_a_slice)
{
	test_needs_async_preempt();	/* the spinners never yield */
	uint32_t np = sched_nprocs(), n = np * BUSY_PER_P;
	uint64_t slice = sched_slice_ns();
	static uint64_t late[BUSY_SLEEPS], sched_late[BUSY_SLEEPS];
	atomic_store32(&busy_stop, 0);
	waitgroup_add(&busy_wg, (int32_t)n);
	for (uint32_t i = 0; i < n; i++)
		go(busy_g, NULL);
	sleep_ns(5 * slice);		/* they take every P */
	for (uint32_t i = 0; i < BUSY_SLEEPS; i++) {
		uint64_t t0 = nanotime(), when = t0 + slice;
		sleep_ns(slice);
		uint64_t now = nanotime();
		late[i] = now - when;
		/* The interrupt that woke it, if it came here after the
		 * deadline (interrupts off: the tick does not move). */
		unsigned long flags = arch_irq_save();
		struct cpu *c = this_cpu();
		uint64_t at, armed, irq = 0;
		if (timer_tick_find(c, 1, when + BUSY_SLACK_NS, when, now, &at, &armed))
			irq = at - (armed > when ? armed : when);
		arch_irq_restore(flags);
		sched_late[i] = late[i] - irq;
	}
	atomic_store32(&busy_stop, 1);
	waitgroup_wait(&busy_wg);
	qsort(late, BUSY_SLEEPS, sizeof late[0], cmp_u64);
	qsort(sched_late, BUSY_SLEEPS, sizeof sched_late[0], cmp_u64);
	printf("# %u sleeps of one slice (%llu ms) beside %u spinners on %u Ps: late by "
	       "median %llu us, worst %llu us; the scheduler's share: median %llu us, "
	       "worst %llu us\n", BUSY_SLEEPS, (unsigned long long)(slice / NSEC_PER_MSEC),
	       n, np, (unsigned long long)(late[BUSY_SLEEPS / 2] / NSEC_PER_USEC),
	       (unsigned long long)(late[BUSY_SLEEPS - 1] / NSEC_PER_USEC),
	       (unsigned long long)(sched_late[BUSY_SLEEPS / 2] / NSEC_PER_USEC),
	       (unsigned long long)(sched_late[BUSY_SLEEPS - 1] / NSEC_PER_USEC));
	EXPECT_LT(sched_late[BUSY_SLEEPS / 2], slice);
}

/* ---- a slice is dated after the timer callbacks that came before it ---- */

/*
 * The G that runs after a long timer callback (or a schedtrace print, or
 * the watchdog's report) must get a whole slice. The scheduler dated a
 * new slice with the clock read it made as the round began, before the
 * callbacks: after a callback of three quarters of a slice, the G it
 * readied was preempted a quarter slice after it began (at once, where
 * the callback took a slice or more and the tick came after the switch).
 *
 * One P, idle: S is parked and this G waits. A timer's callback
 * busy-waits three quarters of a slice (callbacks run on the scheduler
 * and must not park, but may take that long) and then readies S, which
 * starts a slice. S spins until its P preempts it: that must come at
 * least half a slice after the callback's end. The host stopping the core
 * can only make it later (the tick counts wall time), never earlier.
 */
#define LC_TRIALS	4

static struct timer lc_timer;
static volatile uintptr_t lc_parked;
static volatile uint64_t lc_cb_preempts, lc_cb_end, lc_ran_min;
static struct waitgroup lc_wg;

static void lc_callback(void *arg)
{
	(void)arg;
	delay_ns(sched_slice_ns() * 3 / 4);
	lc_cb_preempts = p_preemptions(0);
	lc_cb_end = nanotime();
	goready((struct g *)atomic_loaduintptr(&lc_parked));
}

static void lc_spinner(void *arg)
{
	(void)arg;
	gopark(publish_parked, (void *)&lc_parked, waitReasonTest);
	/* Readied by the callback: how long after it until the tick takes
	 * the core (seen once this G is back)? From the callback's end: a
	 * stall of the core before this G runs counts as its time, as the
	 * tick counts it. */
	uint64_t slice = sched_slice_ns(), ran = 0;
	while (nanotime() - lc_cb_end < 4 * slice)
		if (p_preemptions(0) != lc_cb_preempts) {
			ran = nanotime() - lc_cb_end;
			break;
		}
	if (ran && ran < lc_ran_min)
		lc_ran_min = ran;
	waitgroup_done(&lc_wg);
}

TEST(sched_wakeup_the_slice_after_a_long_timer_callback_is_whole)
{
	test_needs_async_preempt();	/* the spinner never yields */
	if (sched_nprocs() != 1)
		test_skip("needs nprocs=1: the G after the callback must be on its P");
	lc_ran_min = UINT64_MAX;
	for (int i = 0; i < LC_TRIALS; i++) {
		atomic_storeuintptr(&lc_parked, 0);
		waitgroup_add(&lc_wg, 1);
		go(lc_spinner, NULL);
		while (!atomic_loaduintptr(&lc_parked))
			gosched();
		timer_init(&lc_timer, lc_callback, NULL);
		/* Two slices on: the P's last slice (ours) is long over, and
		 * S starts a new one. */
		timer_start(&lc_timer, nanotime() + 2 * sched_slice_ns());
		waitgroup_wait(&lc_wg);
	}
	printf("# %d trials: a G readied by a callback of 3/4 slice ran at least "
	       "%llu us before its first preemption (slice %llu us)\n", LC_TRIALS,
	       (unsigned long long)(lc_ran_min / NSEC_PER_USEC),
	       (unsigned long long)(sched_slice_ns() / NSEC_PER_USEC));
	EXPECT_GE(lc_ran_min, sched_slice_ns() / 2);
}

/* ---- a G preempted for a timer resumes before the ring it filled -------- */

/*
 * One P. A CPU-bound G runs; RS_SLEEPERS Gs sleep until one deadline,
 * half a slice on. The tick takes the core for their timer, the timer
 * readies them all (the last into runnext, the rest onto the ring), and
 * the CPU-bound G went to the global queue's tail: every G on the ring
 * ran before it got its core back, at every due timer. Go never
 * preempts for a timer; gmk does, but the G keeps the rest of its slice
 * and resumes after the woken G in runnext (p->resumeg), before the ring.
 *
 * Counted: how many sleepers had run when the CPU-bound G saw it had
 * been off its core. A trial where its slice was over by then (the host
 * stopped the core past it: a preemption at the slice's end, which does
 * send it to the global queue) is not counted.
 */
#define RS_SLEEPERS	20u
#define RS_TRIALS	3
/* Up to RS_MAX_TRIALS, or RS_BUDGET_NS of trials: on a loaded host a
 * trial counts only where the host ran the core through it, and 8
 * trials once counted none (hosted smp 1, in a soak beside a busy loop
 * per host CPU). */
#define RS_MAX_TRIALS	48
#define RS_BUDGET_NS	(4 * NSEC_PER_SEC)

static volatile uint64_t rs_woke, rs_deadline;
static volatile uint32_t rs_seen, rs_counted;
static struct waitgroup rs_wg;

static void rs_sleeper(void *arg)
{
	(void)arg;
	/* Past the deadline already (a host that stopped this core): no
	 * sleep, where rs_deadline - now would wrap round to a sleep for
	 * good. The timers then fire before the spinner starts, which sees
	 * no preemption for them: the trial is not counted. */
	uint64_t now = nanotime();
	sleep_ns(rs_deadline > now ? rs_deadline - now : 0);
	atomic_xadd64(&rs_woke, 1);
	waitgroup_done(&rs_wg);
}

static void rs_spinner(void *arg)
{
	(void)arg;
	uint64_t slice = sched_slice_ns(), t0 = nanotime();
	uint64_t pre0 = p_preemptions(0), woke = 0, seen = 0;
	while (nanotime() - t0 < 4 * slice)
		if (p_preemptions(0) != pre0) {
			woke = atomic_load64(&rs_woke);
			seen = nanotime();
			break;
		}
	if (seen && seen - t0 < slice) {
		rs_counted++;
		if (woke > rs_seen)
			rs_seen = (uint32_t)woke;
	}
	waitgroup_done(&rs_wg);
}

TEST(sched_wakeup_a_g_preempted_for_a_timer_resumes_before_the_ring_it_filled)
{
	test_needs_async_preempt();	/* the spinner never yields */
	if (sched_nprocs() != 1)
		test_skip("needs nprocs=1: the sleepers and the spinner on one P");
	rs_seen = rs_counted = 0;
	uint64_t until = nanotime() + RS_BUDGET_NS;
	int trials = 0;
	for (; trials < RS_MAX_TRIALS && rs_counted < RS_TRIALS && nanotime() < until; trials++) {
		atomic_store64(&rs_woke, 0);
		rs_deadline = nanotime() + sched_slice_ns() / 2;
		waitgroup_add(&rs_wg, (int32_t)RS_SLEEPERS + 1);
		for (uint32_t k = 0; k < RS_SLEEPERS; k++)
			go(rs_sleeper, NULL);
		gosched();		/* they run and park */
		go(rs_spinner, NULL);
		waitgroup_wait(&rs_wg);
	}
	printf("# %u of %d trials counted: when the G preempted for %u Gs' timer saw its "
	       "core again, at most %u of them had run\n", rs_counted, trials, RS_SLEEPERS,
	       rs_seen);
	ASSERT_GE(rs_counted, 1);
	EXPECT_LE(rs_seen, 1);
}

/* ---- an idle P's timer: late only where the core's interrupt was ------- */

/*
 * Every other P idle, this G waits IDLE_SLEEPS times for a timer of
 * IDLE_SLEEP_NS (a sleep, with a deadline it can read back): the idle
 * time-keeper (stopm) arms its core's timer for the deadline and
 * halts; the interrupt wakes it, it takes this G's P and runs the timer.
 * A wake-up much later than its deadline while every P is idle (seen on
 * the hosted board at more cores than host CPUs, on a loaded host) is a
 * lost one, unless a core that was to run the timer was itself run late
 * (its thread not scheduled; a vCPU the emulator did not run).
 *
 * Each late wake-up is told apart by what the kernel recorded (bench
 * latency's split), on any core:
 *  - a timer interrupt (timer_tick_find) armed for this deadline or an
 *    earlier one that came after it. The keeper arms for a busy P's
 *    timer TIMER_OVERDUE_NS late (its own core goes first), and this G's
 *    P was busy when the timer was set: so up to that much later too.
 *    An interrupt held pending while its core re-armed (going idle) is
 *    recorded for the deadline it came for (kernel_timer_interrupt);
 *  - an IPI_WAKE sent by the deadline and taken after it
 *    (ipi_wake_find): the keeper told of the earlier timer (the P going
 *    idle, timers_notify_idle_locked) and not run by the host;
 *  - a timer still armed for it (its interrupt later still: a core
 *    woken otherwise ran the timer first).
 * More than the last interrupt: between it and this G running, a host
 * that stopped a core can let more come first. The lateness up to the
 * interrupt is the host's (or the emulator's); what follows, from the
 * interrupt to this G running, the scheduler's (or the host's again: a
 * core stopped holding sched.lock). A wake-up more than IDLE_LATE_NS late
 * with none of these is a lost one (nobody was to run the timer; the G
 * woke by some other event): there must be none. The split is printed
 * for the late ones.
 */
#define IDLE_SLEEPS	100u
#define IDLE_SLEEP_NS	(10 * NSEC_PER_MSEC)
#define IDLE_LATE_NS	(5 * NSEC_PER_MSEC)
#define IDLE_SLACK_NS	(50 * NSEC_PER_USEC)	/* sleep_ns's deadline is a little after t0 + d */

#ifdef GMK_HOSTED
#include "arch/x86_64-linux/host.h"
#endif

TEST(sched_wakeup_an_idle_ps_timer_is_late_only_where_its_interrupt_is)
{
#ifdef GMK_HOSTED
	uint64_t hw0, hl0, hr0;
	host_idle_lateness(&hw0, &hl0, &hr0);
#endif
	uint32_t late = 0, by_irq = 0, by_ipi = 0, lost = 0;
	uint64_t worst = 0, worst_irq = 0, worst_sched = 0;
	for (uint32_t i = 0; i < IDLE_SLEEPS; i++) {
		/* A timer's channel rather than sleep_ns: its deadline is
		 * known to lie between t0 + d and t1 + d, even when the host
		 * stops this core between reading the clock and arming. */
		uint64_t t0 = nanotime();
		struct time_timer *tm = time_newtimer(IDLE_SLEEP_NS);
		uint64_t t1 = nanotime(), when = t1 + IDLE_SLEEP_NS, fired;
		chan_recv(tm->C, &fired);
		time_timer_free(tm);
		uint64_t now = nanotime(), l = now > when ? now - when : 0;
		if (l <= IDLE_LATE_NS)
			continue;
		late++;
		/* A core whose timer, armed for this deadline or an earlier
		 * one (that core's next, say), fired only after it, or that
		 * was sent an IPI_WAKE by the deadline and took it after: the
		 * core that was to run the timer was itself late; or one armed
		 * for it whose interrupt has not come yet (a core woken
		 * otherwise, by an IPI, ran the timer first: the armed one is
		 * later still). Interrupts off, so that this core's tick does
		 * not move. */
		uint64_t at = 0, armed = 0, lo = t0 + IDLE_SLEEP_NS;
		bool ipi = false;
		uint64_t hi = when + IDLE_SLACK_NS + TIMER_OVERDUE_NS;
		unsigned long flags = arch_irq_save();
		/* An interrupt that came after this G ran (between now and
		 * here) was as late as the wake-up, at least. */
		uint64_t chk = nanotime();
		for (unsigned c = 0; c < ncpus; c++) {
			uint64_t a, d;
			uint64_t pend = atomic_load64(&cpus[c].timer_deadline_ns);
			if (timer_tick_find(&cpus[c], 1, hi, lo, chk, &a, &d)) {
				at = a < now ? a : now;
				armed = d > lo ? d : lo;
			} else if (ipi_wake_find(&cpus[c], when + IDLE_SLACK_NS, lo, chk, &a, &d)) {
				at = d < now ? d : now;	/* a: sent, d: taken */
				armed = a > lo ? a : lo;
				ipi = true;
			} else if (!at && pend != 0 && pend <= hi) {
				at = now;	/* at least this late */
				armed = pend > lo ? pend : lo;
			}
		}
		arch_irq_restore(flags);
		if (!at) {
			if (lost++ < 4)
				printf("# sleep %u: %llu us late, and no core's timer "
				       "interrupt armed for its deadline, nor IPI_WAKE sent "
				       "by it, served it\n", i,
				       (unsigned long long)(l / NSEC_PER_USEC));
			continue;
		}
		by_irq++;
		by_ipi += ipi;
		uint64_t irq = at - armed, sched = now - at;
		if (l > worst) {
			worst = l;
			worst_irq = irq;
			worst_sched = sched;
		}
	}
	printf("# %u sleeps of %llu ms on an idle machine: %u over %llu ms late, %u of "
	       "them served by an interrupt armed for the deadline (%u an IPI_WAKE sent by "
	       "it; worst %llu us: the interrupt %llu us late, then %llu us to run), %u "
	       "not\n", IDLE_SLEEPS,
	       (unsigned long long)(IDLE_SLEEP_NS / NSEC_PER_MSEC), late,
	       (unsigned long long)(IDLE_LATE_NS / NSEC_PER_MSEC), by_irq, by_ipi,
	       (unsigned long long)(worst / NSEC_PER_USEC),
	       (unsigned long long)(worst_irq / NSEC_PER_USEC),
	       (unsigned long long)(worst_sched / NSEC_PER_USEC), lost);
#ifdef GMK_HOSTED
	/* The hosted board's idle waits (a futex and a POSIX timer): how
	 * much of their lateness Linux kept the core's thread runnable and
	 * not running. */
	uint64_t hw, hl, hr;
	host_idle_lateness(&hw, &hl, &hr);
	printf("# hosted: %llu idle waits ended over 1 ms past their deadline, %llu us in "
	       "all; Linux kept their threads runnable, not running, %llu us of it\n",
	       (unsigned long long)(hw - hw0), (unsigned long long)((hl - hl0) / NSEC_PER_USEC),
	       (unsigned long long)((hr - hr0) / NSEC_PER_USEC));
#endif
	EXPECT_EQ(lost, 0);
}
