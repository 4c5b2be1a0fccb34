/*
 * The scheduler's wake-up paths: each test names the defect it would
 * catch if it came back. A race is forced where a test hook can hold one
 * side at the point where the other must slip in (sched_race_hook); the
 * rest count, and bound time only in slices with wide margins, as said
 * beside each.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/ipi.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/sync.h"
#include "tests/preempt_testutil.h"

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
 * leftover timer of another test, say) is run again.
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
		while (netpoll_waiters() == 0)
			sleep_ns(NSEC_PER_MSEC);
		for (uint32_t i = 0; i + 1 < np; i++)
			go(kicker, (void *)(uintptr_t)np);
		while (atomic_load32(&kick_started) < np - 1)
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
	ASSERT_LT(round, KICK_ROUNDS);
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
 * round that would see the readied G and take it). */
static bool all_ms_idle_and_halted(void)
{
	if (__atomic_load_n(&sched.nmidle, __ATOMIC_RELAXED) < sched_nprocs())
		return false;
	for (unsigned i = 0; i < ncpus; i++)
		if (cpus[i].m && &cpus[i] != this_cpu() &&
		    atomic_load64(&cpus[i].halted_since) == 0)
			return false;
	return true;
}

/* IPI_PING on an idle core: once every M is idle, the device's part. */
static void dl_ping(void)
{
	spin_until64(&dl_idle, 1, 2 * NSEC_PER_SEC);
	uint64_t end = nanotime() + 2 * NSEC_PER_SEC;
	while (!all_ms_idle_and_halted() && nanotime() < end)
		arch_cpu_relax();
	netpollready(&dl_pd, (int)dl_mode);
	netpoll_wake();
}

/* A core other than this one, halted, whose M is idle and not being
 * handed a P (or that has no M). */
static int idle_core(void)
{
	uint64_t end = nanotime() + 2 * NSEC_PER_SEC;
	do {
		preempt_disable();
		unsigned me = this_cpu()->id;
		preempt_enable();
		for (unsigned i = 0; i < ncpus; i++) {
			struct m *mp = cpus[i].m;
			if (i == me || !cpus[i].online ||
			    atomic_load64(&cpus[i].halted_since) == 0)
				continue;
			if (!mp || (!__atomic_load_n(&mp->p, __ATOMIC_ACQUIRE) &&
				    !__atomic_load_n(&mp->nextp, __ATOMIC_ACQUIRE) &&
				    !atomic_load32(&mp->park)))
				return (int)i;
		}
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
		while (netpoll_waiters() == 0)
			gosched();
		ASSERT_EQ(netpoll_waiters(), 1);
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
 * GA's first slice; the latency is printed.
 */
#define NS_ROUNDS	3
#define NS_SLICE_NS	(500 * NSEC_PER_MSEC)
#define NS_HOLD_NS	(2 * NSEC_PER_SEC)	/* most a hook waits for the other side */

enum { NS_ARMED, NS_SPINNER_HELD, NS_INJECTING, NS_INJECTED, NS_WOKE };
static volatile uint32_t ns_phase = NS_WOKE;	/* not armed */
static volatile uint32_t ns_g2_running, ns_ga_started, ns_ga_p, ns_gb_ran, ns_gb_late;
static volatile uint64_t ns_ga_pre0, ns_injected_at, ns_gb_wait;
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
	/* GA's P preempted something since GA started: GB waited for the
	 * end of GA's slice. (GA not started yet: it has not.) */
	ns_gb_late = atomic_load32(&ns_ga_started) &&
		     p_preemptions(ns_ga_p) != ns_ga_pre0;
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
		struct g *ga = newproc1(ns_ga, NULL, G_STACK_DEFAULT);
		struct g *gb = newproc1(ns_gb, NULL, G_STACK_DEFAULT);
		spin_lock_nopreempt(&sched.lock);
		globrunqput(ga);
		globrunqput(gb);
		spin_unlock_nopreempt(&sched.lock);
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
