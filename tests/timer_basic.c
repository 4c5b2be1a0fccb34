/*
 * Timers and sleep (sched/timer.c): deadlines are never early, each P's
 * timers fire in deadline order, stopped timers never fire, a reset moves
 * the deadline, a timer fires while every P spams hand-offs (Go's
 * TestTimerFairness), a fully idle system is tickless but still wakes,
 * and a reset from another P reaches the timer's busy core.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/test.h"
#include "tests/preempt_testutil.h"
#include "tests/sched_testutil.h"

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static void rng_seed(void)
{
	rng_state = sched_seed() | 1;
}

/* ---- sleep ----------------------------------------------------------- */

#define SLEEP_GS	8
#define SLEEPS_PER_G	25
#define SLEEP_MAX_NS	(3 * NSEC_PER_MSEC)

static volatile uint64_t sleep_early, sleep_done;

static void sleeper(void *arg)
{
	uint64_t x = (uintptr_t)arg * 0x9E3779B97F4A7C15ull | 1;
	for (int i = 0; i < SLEEPS_PER_G; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t d = x % SLEEP_MAX_NS;
		uint64_t t0 = nanotime();
		sleep_ns(d);
		if (nanotime() - t0 < d)
			atomic_xadd64(&sleep_early, 1);
	}
	atomic_xadd64(&sleep_done, 1);
}

TEST(timer_sleep_never_wakes_early)
{
	atomic_store64(&sleep_early, 0);
	atomic_store64(&sleep_done, 0);
	for (uintptr_t i = 0; i < SLEEP_GS; i++)
		go(sleeper, (void *)(i + 1));
	ASSERT_EQ(sleep_until_count(&sleep_done, SLEEP_GS, 10 * NSEC_PER_SEC), SLEEP_GS);
	EXPECT_EQ(sleep_early, 0);
}

/* ---- ordering ---------------------------------------------------------- */

#define NTIMERS		10000
#define ORDER_BASE_NS	(30 * NSEC_PER_MSEC)
#define ORDER_SPREAD_NS	(30 * NSEC_PER_MSEC)

static struct timer order_t[NTIMERS];
static uint64_t order_when[NTIMERS], order_fired_at[NTIMERS];
static uint32_t order_p[NTIMERS], order_seq[NTIMERS], order_byseq[NTIMERS];
static volatile uint32_t order_nseq;
static volatile uint64_t order_count;

static void order_fire(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	order_fired_at[i] = nanotime();
	order_seq[i] = atomic_xadd32(&order_nseq, 1);	/* 1..NTIMERS */
	atomic_xadd64(&order_count, 1);
}

/*
 * The property: a P's timers fire in deadline order. It holds among the
 * timers pending together; a timer started after a later one fired is
 * no disorder. Under a loaded emulator, starting 10,000 timers can take
 * longer than ORDER_BASE_NS, and the first then fire while later-started
 * ones with earlier deadlines are still being added (that, not the heap,
 * was the "2 disordered at x86 smp 2"; timers never move between heaps,
 * and one firer at a time runs a heap: timers_run's `running`). So the
 * deadlines start after the start loop has ended, by a margin taken
 * from how long the loop was measured to take: a round whose loop
 * overran its first deadline is measured again with twice the margin.
 */
static bool order_round(uint64_t margin, unsigned *early, unsigned *disorder,
			uint64_t *loop_ns)
{
	atomic_store32(&order_nseq, 0);
	atomic_store64(&order_count, 0);
	uint64_t t0 = nanotime();
	uint64_t base = t0 + margin;
	for (uintptr_t i = 0; i < NTIMERS; i++) {
		timer_init(&order_t[i], order_fire, (void *)i);
		order_when[i] = base + rng() % ORDER_SPREAD_NS;
		order_seq[i] = 0;
		preempt_disable();	/* record the P the timer goes on */
		order_p[i] = this_p_id();
		timer_start(&order_t[i], order_when[i]);
		preempt_enable();
	}
	*loop_ns = nanotime() - t0;
	bool whole = nanotime() < base;	/* all pending before any fired */
	/* Until the last deadline, then 10 s: a slow start loop makes the
	 * margin, and so the wait, longer than any fixed bound. */
	uint64_t now = nanotime();
	uint64_t n = sleep_until_count(&order_count, NTIMERS,
				       (base > now ? base - now : 0) + ORDER_SPREAD_NS +
				       10 * NSEC_PER_SEC);
	if (n != NTIMERS) {
		test_fail(__FILE__, __LINE__, "%llu of %u timers fired",
			  (unsigned long long)n, NTIMERS);
		return true;
	}
	if (!whole)
		return false;
	*early = *disorder = 0;
	for (uint32_t i = 0; i < NTIMERS; i++) {
		*early += order_fired_at[i] < order_when[i];
		order_byseq[order_seq[i] - 1] = i;
	}
	uint64_t last[MAX_CPUS] = { 0 };
	for (uint32_t s = 0; s < NTIMERS; s++) {
		uint32_t i = order_byseq[s];
		*disorder += order_when[i] < last[order_p[i]];
		last[order_p[i]] = order_when[i];
	}
	return true;
}

TEST(timer_10000_started_in_random_order_fire_in_deadline_order_per_p)
{
	rng_seed();
	uint64_t margin = ORDER_BASE_NS, loop_ns = 0;
	unsigned early = 0, disorder = 0, tries = 0;
	while (!order_round(margin, &early, &disorder, &loop_ns)) {
		printf("# starting %u timers took %llu ms, past the first deadline: "
		       "again with twice that margin\n", NTIMERS,
		       (unsigned long long)(loop_ns / NSEC_PER_MSEC));
		margin = 2 * loop_ns;
		ASSERT_LT(++tries, 5);
	}
	EXPECT_EQ(early, 0);
	EXPECT_EQ(disorder, 0);
}

/* ---- stop and reset ---------------------------------------------------- */

#define NSTOP		1000
static struct timer stop_t[NSTOP];
static volatile uint32_t stop_fired[NSTOP];
static volatile uint64_t stop_count;

static void stop_fire(void *arg)
{
	atomic_xadd32(&stop_fired[(uintptr_t)arg], 1);
	atomic_xadd64(&stop_count, 1);
}

/* Stops the odd timers from another G, while the even ones fire. */
static volatile uint64_t stopper_done, stopper_ok;
static bool stop_ret[NSTOP];
static void stopper(void *arg)
{
	(void)arg;
	uint64_t ok = 0;
	for (uint32_t i = 1; i < NSTOP; i += 2) {
		stop_ret[i] = timer_stop(&stop_t[i]);
		ok += stop_ret[i];
	}
	atomic_store64(&stopper_ok, ok);
	atomic_xadd64(&stopper_done, 1);
}

TEST(timer_stopped_timers_never_fire)
{
	rng_seed();
	memset((void *)stop_fired, 0, sizeof stop_fired);
	atomic_store64(&stop_count, 0);
	atomic_store64(&stopper_done, 0);
	/*
	 * The property: a timer that timer_stop stopped (true) never fires,
	 * and one it found gone (false) fired exactly once. The stopper
	 * races the firing on purpose; under a loaded emulator it may come
	 * after some odd deadlines (a 20 ms start left 38 of 500 to fire at
	 * arm smp 8), so the count it stopped is what was measured, not
	 * NSTOP / 2. The 100 ms start lets it stop most of them.
	 */
	uint64_t base = nanotime() + 100 * NSEC_PER_MSEC;
	for (uintptr_t i = 0; i < NSTOP; i++) {
		stop_ret[i] = false;
		timer_init(&stop_t[i], stop_fire, (void *)i);
		timer_start(&stop_t[i], base + rng() % (20 * NSEC_PER_MSEC));
	}
	go(stopper, NULL);
	ASSERT_EQ(sleep_until_count(&stopper_done, 1, 5 * NSEC_PER_SEC), 1);
	uint64_t ok = stopper_ok, expect = NSTOP - ok;
	printf("# the stopper stopped %llu of %u odd timers before they fired\n",
	       (unsigned long long)ok, NSTOP / 2);
	EXPECT_GE(ok, 1);
	ASSERT_EQ(sleep_until_count(&stop_count, expect, 5 * NSEC_PER_SEC), expect);
	sleep_ns(30 * NSEC_PER_MSEC);
	unsigned wrong = 0;
	for (uint32_t i = 0; i < NSTOP; i++)
		wrong += stop_fired[i] != (i % 2 == 0 || !stop_ret[i] ? 1u : 0u);
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(stop_count, expect);
	/* Stopping a fired or stopped timer says it was not pending. */
	EXPECT(!timer_stop(&stop_t[0]));
	EXPECT(!timer_stop(&stop_t[1]));
}

/* The reset tests' timer callback: when it fired. */
static volatile uint64_t reset_fired_at;
static void reset_fire(void *arg)
{
	(void)arg;
	atomic_store64(&reset_fired_at, nanotime());
}

TEST(timer_reset_moves_a_pending_deadline)
{
	static struct timer t;
	atomic_store64(&reset_fired_at, 0);
	timer_init(&t, reset_fire, NULL);
	uint64_t t0 = nanotime();
	timer_start(&t, t0 + 10 * NSEC_PER_SEC);
	uint64_t when = nanotime() + 5 * NSEC_PER_MSEC;
	EXPECT(timer_reset(&t, when));		/* earlier: was pending */
	sleep_ns(20 * NSEC_PER_MSEC);
	uint64_t at = atomic_load64(&reset_fired_at);
	EXPECT_NE(at, 0);
	EXPECT_GE(at, when);
	EXPECT(!timer_stop(&t));
}

/* ---- fairness ---------------------------------------------------------- */

/* Go's TestTimerFairness: Gs spamming hand-offs on every P do not keep a
 * 20 ms timer (this G's sleep) from firing. */
static volatile uint32_t spam_stop;
static volatile uint64_t spam_exited, spam_handoffs;

struct spam_pair {
	volatile uintptr_t parked;
	volatile uint32_t exited;
};
static struct spam_pair spam[MAX_CPUS];

static void spam_wake(struct spam_pair *sp)
{
	uintptr_t w;
	while ((w = atomic_xchguintptr(&sp->parked, 0)) == 0)
		arch_cpu_relax();
	goready((struct g *)w);
}

static void spam_run(struct spam_pair *sp, bool start_parked)
{
	if (start_parked)
		gopark(publish_parked, (void *)&sp->parked, waitReasonTest);
	while (!atomic_load32(&spam_stop)) {
		atomic_xadd64(&spam_handoffs, 1);
		spam_wake(sp);
		gopark(publish_parked, (void *)&sp->parked, waitReasonTest);
	}
	if (atomic_xadd32(&sp->exited, 1) == 1)
		spam_wake(sp);
	atomic_xadd64(&spam_exited, 1);
}

static void spam_a(void *arg) { spam_run(arg, false); }
static void spam_b(void *arg) { spam_run(arg, true); }

TEST(timer_fires_while_every_p_spams_handoffs)
{
	test_needs_async_preempt();	/* spam_wake spins for its partner */
	uint32_t np = sched_nprocs();
	atomic_store32(&spam_stop, 0);
	atomic_store64(&spam_exited, 0);
	atomic_store64(&spam_handoffs, 0);
	for (uint32_t i = 0; i < np; i++) {
		spam[i].parked = 0;
		spam[i].exited = 0;
		go(spam_b, &spam[i]);
		go(spam_a, &spam[i]);
	}
	uint64_t t0 = nanotime();
	sleep_ns(20 * NSEC_PER_MSEC);
	uint64_t slept = nanotime() - t0;
	atomic_store32(&spam_stop, 1);
	ASSERT_EQ(sleep_until_count(&spam_exited, 2 * np, 10 * NSEC_PER_SEC), 2 * np);
	printf("# slept %llu us among %llu hand-offs\n",
	       (unsigned long long)(slept / NSEC_PER_USEC),
	       (unsigned long long)spam_handoffs);
	EXPECT_GE(slept, 20 * NSEC_PER_MSEC);
	EXPECT_GT(spam_handoffs, 0);
}

/* ---- tickless ---------------------------------------------------------- */

/* Nothing runs while the only G sleeps: every core halts with its timer
 * off or set for the sleep's deadline (no periodic tick), and the timer
 * still wakes the G (and checkdead does not call it a deadlock). */
TEST(timer_idle_system_is_tickless_and_still_wakes)
{
	uint64_t irqs0 = 0, irqs1 = 0;
	const uint64_t d = 100 * NSEC_PER_MSEC;

	sleep_ns(5 * NSEC_PER_MSEC);	/* let other cores settle into idle */
	for (unsigned i = 0; i < ncpus; i++)
		irqs0 += atomic_load64(&cpus[i].timer_irqs);
	uint64_t t0 = nanotime();
	sleep_ns(d);
	uint64_t slept = nanotime() - t0;
	for (unsigned i = 0; i < ncpus; i++)
		irqs1 += atomic_load64(&cpus[i].timer_irqs);
	printf("# slept %llu ms; %llu timer interrupts on %u cores meanwhile\n",
	       (unsigned long long)(slept / NSEC_PER_MSEC),
	       (unsigned long long)(irqs1 - irqs0), ncpus);
	EXPECT_GE(slept, d);
	/* A 1 ms tick would be ~100 per core. */
	EXPECT_LE(irqs1 - irqs0, 4 * ncpus + 4);
}

/* ---- a cross-P timer_reset reaches a busy core ------------------------ */

/*
 * A spinner starts a timer for the far future on the P it runs on; a G
 * on another P resets it to 1 ms from now; again and again. The reset must reach
 * the busy core (an IPI re-arms its tick). The race it guards (x86 lets
 * timers_notify's load of the owner's deadline pass its store of when0
 * while the owner's tick does the converse) has a window of a few
 * instructions: this stress test catches it now and then without the
 * barriers, and for certain a notify that skips the IPI altogether.
 *
 * Every P is kept busy (the resetter waits with gosched, spinners take
 * the other Ps): an idle core would keep time and fire the busy P's timer
 * 1 ms late as a backup, and hide a lost reset. The long slice makes a
 * lost reset plain: the owner then spins on to its slice's end.
 *
 * Lateness is measured in the owner's own progress (chunks of spinning
 * done between the reset and the firing), not in wall time: on a loaded
 * host an emulator's vCPU can be off the host CPU for a second, which is
 * no lost reset. A reset that reached the core fires after ~1 ms of the owner's
 * running; a lost one after whatever is left of an 8 s slice. The bound is
 * half a slice of the owner's spinning at its rate over the whole test
 * (an underestimate when its vCPU was descheduled, which only raises the
 * bar for a false failure).
 */
/* Not for make test's exact-replay boots (REPLAY_TESTS): under round-robin
 * icount a long-slice spinner keeps the emulator for whole slices, so 200
 * rounds take many minutes there. */
#define RESET_ROUNDS	200u
#define RESET_SLICE_NS	(8000 * NSEC_PER_MSEC)
#define RESET_WAIT_NS	(3 * RESET_SLICE_NS)	/* then the reset was lost */
#define RESET_OVER_MAX	8u	/* rounds over the bound before giving up */

static struct timer reset_t;
static volatile uint32_t reset_armed, reset_stop, reset_req, reset_ack;
static volatile uint64_t reset_progress;
static uint64_t reset_delta[RESET_ROUNDS];
static struct waitgroup reset_wg;
static struct spinners reset_spinners;

static void reset_owner(void *arg)
{
	(void)arg;
	timer_init(&reset_t, reset_fire, NULL);
	atomic_store32(&reset_armed, 1);
	for (uint32_t r = 0; !atomic_load32(&reset_stop);) {
		/* Asked: (re)start the timer on the P this G spins on now,
		 * for the far future; the resetter then resets it from its
		 * own P (two running Gs are on two Ps). */
		if (atomic_load32(&reset_req) != r) {
			r = atomic_load32(&reset_req);
			timer_stop(&reset_t);
			timer_start(&reset_t, nanotime() + 1000 * NSEC_PER_SEC);
			atomic_store32(&reset_ack, r);
		}
		spin_registers(SPIN_CHUNK / 256);
		atomic_store64(&reset_progress, reset_progress + 1);
	}
	timer_stop(&reset_t);
	waitgroup_done(&reset_wg);
}

TEST(timer_reset_from_another_p_reaches_the_busy_core)
{
	test_needs_async_preempt();	/* the owner never reaches a safe point */
	uint32_t np = sched_nprocs();
	if (np < 2) {
		printf("# needs 2 Ps\n");
		return;
	}
	uint64_t old = sched_set_slice(RESET_SLICE_NS);
	reset_armed = reset_stop = reset_req = reset_ack = 0;
	waitgroup_add(&reset_wg, 1);
	go(reset_owner, NULL);
	while (!atomic_load32(&reset_armed))
		sleep_ns(NSEC_PER_MSEC);
	if (np > 2)
		spinners_begin(&reset_spinners, np - 2);
	uint32_t lost = 0;
	uint64_t worst_ns = 0;
	uint64_t t0 = nanotime(), prog0 = atomic_load64(&reset_progress);
	/* Past 2 Ps every P spins, which under an emulator with fewer host
	 * CPUs than vCPUs makes a round slow (0.7-1.4 s at 4 and 8 on two
	 * host CPUs): fewer rounds there; the 2-P boots make all of them. */
	uint32_t rounds = np == 2 ? RESET_ROUNDS : RESET_ROUNDS / 32;
	uint32_t done = 0, over = 0;
	for (uint32_t r = 0; r < rounds && over < RESET_OVER_MAX; r++) {
		atomic_store32(&reset_req, r + 1);
		while (atomic_load32(&reset_ack) != r + 1)
			gosched();
		atomic_store64(&reset_fired_at, 0);
		uint64_t p0 = atomic_load64(&reset_progress);
		uint64_t when = nanotime() + NSEC_PER_MSEC;
		timer_reset(&reset_t, when);
		while (atomic_load64(&reset_fired_at) == 0 && nanotime() < when + RESET_WAIT_NS)
			gosched();	/* not sleep: this P stays busy */
		uint64_t at = atomic_load64(&reset_fired_at);
		reset_delta[r] = atomic_load64(&reset_progress) - p0;
		done++;
		if (!at) {
			lost++;
			break;
		}
		worst_ns = at - when > worst_ns ? at - when : worst_ns;
		/* Broken, plainly (each lost reset costs up to a slice): stop. */
		uint64_t so_far = (uint64_t)((__uint128_t)(atomic_load64(&reset_progress) - prog0) *
					     (RESET_SLICE_NS / 2) / (nanotime() - t0));
		over += reset_delta[r] > so_far + 1;
	}
	uint64_t elapsed = nanotime() - t0, chunks = atomic_load64(&reset_progress) - prog0;
	atomic_store32(&reset_stop, 1);
	if (np > 2)
		spinners_end(&reset_spinners);
	waitgroup_wait(&reset_wg);
	sched_set_slice(old);

	/*
	 * Half a slice of the owner's spinning at its mean rate. A lost
	 * reset leaves the owner spinning to its slice's end, so most rounds
	 * go past this; a working one fires after ~1 ms of the owner's
	 * spinning. Asserted on the median round: with more vCPUs than host
	 * CPUs an emulator delivers a timer interrupt up to ~0.5 s late now
	 * and then (measured with a 2 s slice and a quarter-slice bound: 24
	 * rounds of 200 over it at 4 vCPUs on 2 host CPUs, the median 1.4x
	 * below it; hence the 8 s slice and half of it), and the mean rate
	 * counts the time the vCPU was off the host CPU. With the IPI taken
	 * out of timers_notify the median round is 0.7-0.9 of a slice (the
	 * hosted board at 2 and 4 cores): it fails at 1.8x the bound.
	 */
	uint64_t bound = (uint64_t)((__uint128_t)chunks * (RESET_SLICE_NS / 2) / elapsed) + 1;
	uint32_t late = 0;
	for (uint32_t r = 0; r < done; r++)
		late += reset_delta[r] > bound;
	for (uint32_t i = 1; i < done; i++)	/* insertion sort: a few hundred */
		for (uint32_t j = i; j > 0 && reset_delta[j - 1] > reset_delta[j]; j--) {
			uint64_t t = reset_delta[j];
			reset_delta[j] = reset_delta[j - 1];
			reset_delta[j - 1] = t;
		}
	uint64_t median = reset_delta[done / 2], worst = reset_delta[done - 1];
	printf("# %u cross-P resets, every P busy: the owner spun a median %llu chunks "
	       "between a reset and its firing, worst %llu (bound %llu: half a slice "
	       "at its rate, %llu chunks in %llu ms); %u rounds over, %u lost; worst "
	       "%llu us late in wall time\n",
	       done, (unsigned long long)median, (unsigned long long)worst,
	       (unsigned long long)bound, (unsigned long long)chunks,
	       (unsigned long long)(elapsed / NSEC_PER_MSEC), late, lost,
	       (unsigned long long)(worst_ns / NSEC_PER_USEC));
	EXPECT_EQ(lost, 0);
	EXPECT_LE(median, bound);
}

/* ---- a timer interrupt that outlives its deadline --------------------- */

/*
 * A core that replaces a deadline after it came due, interrupts masked
 * (an idle core re-arming in stopm, say), still takes its interrupt: the
 * hardware held it pending. It must be recorded as armed for the deadline
 * it came for, not for the core's new one (0: none): the idle-timer test
 * (sched_wakeup.c) tells a late core from a lost wake-up by it. Where the
 * board withdraws a disarmed timer's interrupt (a level-triggered line)
 * nothing comes, and there is nothing to check.
 */
TEST(timer_interrupt_pending_past_a_disarm_records_its_deadline)
{
	preempt_disable();		/* this core's timer, this core's record */
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	uint32_t seq0 = atomic_load32(&c->tick_seq);
	uint64_t d = nanotime() + 100 * NSEC_PER_USEC;
	timer_set_deadline(d);
	while (nanotime() < d + 2 * NSEC_PER_MSEC)
		arch_cpu_relax();	/* due: held pending while masked */
	timer_set_deadline(0);
	arch_irq_restore(flags);	/* it comes here, if it is kept */
	uint64_t end = nanotime() + 100 * NSEC_PER_MSEC;
	while (atomic_load32(&c->tick_seq) == seq0 && nanotime() < end)
		arch_cpu_relax();
	uint32_t seq1 = atomic_load32(&c->tick_seq);
	uint64_t at = 0, armed = 0;
	/* The first interrupt after the deadline: the one it came for. */
	bool found = false;
	for (uint64_t hi = nanotime(); timer_tick_find(c, 0, UINT64_MAX, d, hi, &at, &armed);
	     hi = at - 1)
		found = true;
	preempt_enable();
	if (seq1 == seq0)
		test_skip("the board withdrew the disarmed timer's interrupt");
	ASSERT_EQ(found, true);
	printf("# the interrupt came %llu us after its deadline\n",
	       (unsigned long long)((at - d) / NSEC_PER_USEC));
	EXPECT_EQ(armed, d);
}
