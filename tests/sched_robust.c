/*
 * The scheduler's robustness (issue 9): each test names the defect it
 * would catch if it came back. Where the defect is a race, the test is a
 * stress test that counts, and its comment says what it catches and how
 * often.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/spinlock.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "sched/chan.h"
#include "sched/sched.h"
#include "sched/sema.h"
#include "sched/sync.h"
#include "sched/timer.h"
#include "tests/preempt_testutil.h"

/* ---- spinners: Gs that never yield, one per P -------------------------- */

static volatile uint32_t spin_running, spin_stop;
static struct waitgroup spin_wg;

static void spin_g(void *arg)
{
	(void)arg;
	atomic_xadd32(&spin_running, 1);
	while (!atomic_load32(&spin_stop))
		spin_registers(SPIN_CHUNK / 16);
	waitgroup_done(&spin_wg);
}

/* n spinners, and return once every one has started (this G gets a core
 * back when a spinner's slice ends). */
static void spinners_begin(uint32_t n)
{
	atomic_store32(&spin_running, 0);
	atomic_store32(&spin_stop, 0);
	waitgroup_add(&spin_wg, (int32_t)n);
	for (uint32_t i = 0; i < n; i++)
		go(spin_g, NULL);
	while (atomic_load32(&spin_running) < n)
		gosched();
}

static void spinners_end(void)
{
	atomic_store32(&spin_stop, 1);
	waitgroup_wait(&spin_wg);
}

/* ---- 1: a G readied by a due timer runs at once ------------------------- */

/*
 * Every P busy with a spinner, one G sleeping 1 ms again and again. The
 * tick preempts the sleeper's P's spinner for the timer, and the woken G
 * must run before any other G starts on that P: the fairness pick, every
 * 61st schedtick, must not take the global queue's head (a spinner
 * preempted before) for a whole new slice while the woken G waits in
 * runnext. The
 * scheduler counts exactly that (struct p's ntimerbypass: another G
 * started on a P while the G a due timer had just readied waited in its
 * runnext), and it must not happen. 150 sleeps give about two fairness
 * picks on the sleeper's P (one schedtick per sleep); each wake-up
 * preempts a spinner (the scenario happened). The lateness is printed,
 * not asserted: under QEMU's round-robin TCG (more vCPUs than host cores)
 * a spinning vCPU keeps the emulator for up to 100 ms, and the sleeper's
 * core cannot take its timer meanwhile.
 */
#define WAKE_SLEEPS	150u

static volatile uint64_t wake_late_max, wake_late_sum;
static struct waitgroup wake_wg;

static void wake_sleeper(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < WAKE_SLEEPS; i++) {
		uint64_t t0 = nanotime();
		sleep_ns(NSEC_PER_MSEC);
		uint64_t late = nanotime() - t0 - NSEC_PER_MSEC;
		wake_late_sum += late;
		if (late > wake_late_max)
			wake_late_max = late;
	}
	waitgroup_done(&wake_wg);
}

TEST(sched_timer_wakeup_is_not_held_a_slice_by_the_fairness_pick)
{
	test_needs_async_preempt();	/* its Gs spin-wait for each other */
	uint32_t np = sched_nprocs();
	wake_late_max = wake_late_sum = 0;
	spinners_begin(np);
	uint64_t by0 = SUM_P(ntimerbypass), glob0 = SUM_P(nglobget);
	uint64_t pre0 = SUM_P(npreempt) + SUM_P(npreemptsafe);
	waitgroup_add(&wake_wg, 1);
	go(wake_sleeper, NULL);
	waitgroup_wait(&wake_wg);
	uint64_t bypass = SUM_P(ntimerbypass) - by0;
	uint64_t glob = SUM_P(nglobget) - glob0;
	uint64_t pre = SUM_P(npreempt) + SUM_P(npreemptsafe) - pre0;
	spinners_end();
	printf("# %u sleeps of 1 ms beside %u spinners: mean %llu us late, worst "
	       "%llu us; %llu preemptions, %llu Gs from the global queue; a "
	       "timer's G passed over %llu times\n", WAKE_SLEEPS, np,
	       (unsigned long long)(wake_late_sum / WAKE_SLEEPS / NSEC_PER_USEC),
	       (unsigned long long)(wake_late_max / NSEC_PER_USEC),
	       (unsigned long long)pre, (unsigned long long)glob,
	       (unsigned long long)bypass);
	EXPECT_GE(pre, WAKE_SLEEPS / 2);	/* the scenario happened */
	EXPECT_EQ(bypass, 0);
}

/* ---- 2: a cross-P timer_reset reaches a busy core ----------------------- */

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
 * no lost reset (this test failed so at load 13 when it bounded wall
 * time). A reset that reached the core fires after ~1 ms of the owner's
 * running; a lost one after whatever is left of an 8 s slice. The bound is
 * half a slice of the owner's spinning at its rate over the whole test
 * (an underestimate when its vCPU was descheduled, which only raises the
 * bar for a false failure).
 */
/* Named timer_*, not sched_*: make test's exact-replay boots run sched_* and
 * under round-robin icount a long-slice spinner keeps the emulator for whole
 * slices, so 200 rounds take many minutes there. */
#define RESET_ROUNDS	200u
#define RESET_SLICE_NS	(8000 * NSEC_PER_MSEC)
#define RESET_WAIT_NS	(3 * RESET_SLICE_NS)	/* then the reset was lost */
#define RESET_OVER_MAX	8u	/* rounds over the bound before giving up */

static struct timer reset_t;
static volatile uint32_t reset_armed, reset_stop, reset_req, reset_ack;
static volatile uint64_t reset_fired_at, reset_progress;
static uint64_t reset_delta[RESET_ROUNDS];
static struct waitgroup reset_wg;

static void reset_fire(void *arg)
{
	(void)arg;
	atomic_store64(&reset_fired_at, nanotime());
}

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
		spinners_begin(np - 2);
	uint32_t lost = 0;
	uint64_t worst_ns = 0;
	uint64_t t0 = nanotime(), prog0 = atomic_load64(&reset_progress);
	/* Past 2 Ps every P spins, which under an emulator with fewer host
	 * CPUs than vCPUs makes a round slow (~0.5 s at 4): fewer rounds. */
	uint32_t rounds = np == 2 ? RESET_ROUNDS : RESET_ROUNDS / 12;
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
		spinners_end();
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

/* ---- 3: a non-blocking receive racing a close (Go's TestNonblockRecvRace) */

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

/* ---- 4 and 5: spinning Ms and the delicate dance ------------------------ */

/*
 * Rounds of short Gs that go through the global queue (gosched) while the
 * other Ps go idle and wake: every round must end (a G left on the global
 * queue with every P idle hangs the boot: item 4), and once the machine
 * is idle no M may still be counted as spinning (a woken M that missed
 * its spinning hand-off never decrements nmspinning, and wakep then
 * never starts another: item 5). A stress test; the races have windows
 * of a few instructions, so a boot catches them only now and then.
 */
#define DANCE_ROUNDS	1500u
#define DANCE_GS	4u

static struct waitgroup dance_wg;
static volatile uint64_t dance_runs;

static void dance_g(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	for (uintptr_t i = 0; i <= k % 3; i++)
		gosched();
	atomic_xadd64(&dance_runs, 1);
	waitgroup_done(&dance_wg);
}

TEST(sched_every_runnable_g_runs_and_spinning_ms_are_counted_back)
{
	dance_runs = 0;
	for (uintptr_t r = 0; r < DANCE_ROUNDS; r++) {
		waitgroup_add(&dance_wg, DANCE_GS);
		for (uintptr_t k = 0; k < DANCE_GS; k++)
			go(dance_g, (void *)(r + k));
		waitgroup_wait(&dance_wg);
		if (r % 100 == 0)
			sleep_ns(200 * NSEC_PER_USEC);	/* let the Ms go idle */
	}
	ASSERT_EQ(dance_runs, (uint64_t)DANCE_ROUNDS * DANCE_GS);
	/* Idle: this G runs, nobody else does; a spinner gives up within a
	 * few steal passes. Look, busy, until it has (sleeping or yielding
	 * would wake a new spinner each time: wakep), or for 10 s. */
	uint32_t nms = 0;
	uint64_t t0 = nanotime();
	while ((nms = atomic_load32(&sched.nmspinning)) != 0 &&
	       nanotime() - t0 < 10 * NSEC_PER_SEC)
		arch_cpu_relax();
	EXPECT_EQ(nms, 0);
}

/* ---- 6: runqputslow on a small stack ------------------------------------ */

/*
 * A G on a 2 KiB stack fills its P's run queue (the Gs it starts), then
 * marks a WaitGroup done whose waiter is parked: waitgroup_done ->
 * semrelease -> goready -> runqput finds the ring full and spills half of
 * it to the global queue (runqputslow) on this G's stack. Its batch used
 * to be a 1 KiB array there: the canary at the stack's bottom was
 * overwritten and the G died with "stack overflow" at its next switch.
 * Other Ps may steal from the ring meanwhile; the G tries until it saw
 * the ring full at the done (and says how often it did). Every G must
 * run exactly once.
 */
#define SPILL_TRIES	50u

static struct waitgroup spill_wg, spill_waiter;
static volatile uint64_t spill_ran;
static volatile uint32_t spill_full;
static uint64_t spill_spawned;

static void spill_child(void *arg)
{
	(void)arg;
	atomic_xadd64(&spill_ran, 1);
	waitgroup_done(&spill_wg);
}

#define STACK_PAINT	0xa5a5a5a5a5a5a5a5ull
static volatile uint64_t spill_depth;

/* Paint this G's unused stack below the caller's frame, to measure later
 * how deep it went (the canary's word is left alone). */
static __attribute__((noinline)) void stack_paint(void)
{
	struct g *gp = getg();
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0) - 128;
	for (uintptr_t a = gp->stack_lo + 8; a < sp; a += 8)
		*(volatile uint64_t *)a = STACK_PAINT;
}

static uint64_t stack_depth_used(void)
{
	struct g *gp = getg();
	uintptr_t a = gp->stack_lo + 8;
	while (a < gp->stack_hi && *(volatile uint64_t *)a == STACK_PAINT)
		a += 8;
	return gp->stack_hi - a;
}

static void spill_parent(void *arg)
{
	(void)arg;
	bool done = false;
	stack_paint();
	for (uint32_t t = 0; t < SPILL_TRIES && !done; t++) {
		preempt_disable();	/* this P's queue, as its owner */
		struct p *pp = sched_p(this_p_id());
		for (uint32_t i = 0; i < 2 * RUNQ_SIZE; i++) {
			if (pp->runqtail - atomic_load32(&pp->runqhead) == RUNQ_SIZE)
				break;
			waitgroup_add(&spill_wg, 1);
			go_stack(spill_child, NULL, G_STACK_SMALL);
			spill_spawned++;
		}
		if (pp->runqtail - atomic_load32(&pp->runqhead) == RUNQ_SIZE &&
		    atomic_loaduintptr(&pp->runnext) != 0) {
			spill_full++;
			waitgroup_done(&spill_waiter);	/* readies the waiter */
			spill_depth = stack_depth_used();
			done = true;
		}
		preempt_enable();
		if (!done)
			gosched();	/* let the queue drain, try again */
	}
	if (!done)
		waitgroup_done(&spill_waiter);
	waitgroup_done(&spill_wg);
}

TEST(sched_small_stack_g_spills_its_run_queue_without_overflowing)
{
	test_needs_small_stacks();
	spill_ran = 0;
	spill_full = 0;
	spill_spawned = 0;
	waitgroup_add(&spill_wg, 1);
	waitgroup_add(&spill_waiter, 1);
	go_stack(spill_parent, NULL, G_STACK_SMALL);
	waitgroup_wait(&spill_waiter);
	waitgroup_wait(&spill_wg);
	printf("# %llu of %llu Gs ran; the ring was full at the done: %s; "
	       "deepest stack use %llu of %u bytes\n",
	       (unsigned long long)spill_ran, (unsigned long long)spill_spawned,
	       spill_full ? "yes" : "no", (unsigned long long)spill_depth,
	       G_STACK_SMALL);
	EXPECT_EQ(spill_ran, spill_spawned);
	/* The spill path must leave a small stack most of its room: it
	 * took more than 1 KiB with the batch on the stack. */
	if (spill_full)
		EXPECT_LT(spill_depth, G_STACK_SMALL / 2);
}

/* ---- 7: semaphore hand-off where the releaser may not switch ------------ */

/*
 * semrelease1(handoff) yields to the waiter it readied (Go's goyield) --
 * only where it may. From a timer callback (on g0) it used to panic in
 * mcall ("mcall called on g0"), and under a spinlock in schedule ("a G
 * switched out holding a spinlock?").
 */
static volatile uint32_t hs_sem, hs_parking;
static volatile uint64_t hs_woke;
static struct waitgroup hs_wg;

static void hs_waiter(void *arg)
{
	(void)arg;
	atomic_store32(&hs_parking, 1);
	semacquire1(&hs_sem, false, waitReasonSemacquire);
	atomic_xadd64(&hs_woke, 1);
	waitgroup_done(&hs_wg);
}

static void hs_release_fn(void *arg)
{
	(void)arg;
	semrelease1(&hs_sem, true);	/* on g0, in timers_run */
}

/* Start a waiter and give it time to park (it is then on the semaphore's
 * queue; if it has not parked, the release is a plain increment and the
 * test still passes, exercising less). */
static void hs_start_waiter(void)
{
	hs_parking = 0;
	waitgroup_add(&hs_wg, 1);
	go(hs_waiter, NULL);
	while (!atomic_load32(&hs_parking))
		sleep_ns(100 * NSEC_PER_USEC);
	sleep_ns(2 * NSEC_PER_MSEC);
}

TEST(sema_handoff_from_a_timer_callback_or_under_a_spinlock_does_not_yield)
{
	static struct spinlock l = SPINLOCK_INIT("hs");
	struct timer t;
	hs_woke = 0;

	hs_start_waiter();
	timer_init(&t, hs_release_fn, NULL);
	timer_start(&t, nanotime() + NSEC_PER_MSEC);
	waitgroup_wait(&hs_wg);

	hs_start_waiter();
	spin_lock(&l);
	semrelease1(&hs_sem, true);
	spin_unlock(&l);
	waitgroup_wait(&hs_wg);
	EXPECT_EQ(hs_woke, 2);
}

/* ---- 8: one idle core wakes for a timer, not all ------------------------ */

/*
 * This G sleeps while nothing else runs: every P is idle. One idle M
 * keeps time; before, every idle core armed its timer for the same
 * deadline and all of them woke (nprocs interrupts per sleep).
 */
#define IDLE_SLEEPS	20u

TEST(sched_one_idle_core_wakes_per_timer)
{
	uint32_t np = sched_nprocs();
	sleep_ns(5 * NSEC_PER_MSEC);	/* let the others settle idle */
	uint64_t irq0[MAX_CPUS], irqs = 0;
	for (unsigned i = 0; i < ncpus; i++)
		irq0[i] = atomic_load64(&cpus[i].timer_irqs);
	uint64_t t0 = nanotime();
	for (uint32_t i = 0; i < IDLE_SLEEPS; i++)
		sleep_ns(5 * NSEC_PER_MSEC);
	uint64_t took = nanotime() - t0;
	char per[8 * MAX_CPUS] = "";
	for (unsigned i = 0, len = 0; i < ncpus; i++) {
		uint64_t n = atomic_load64(&cpus[i].timer_irqs) - irq0[i];
		irqs += n;
		if (len < sizeof per)
			len += (unsigned)snprintf(per + len, sizeof per - len, " %llu",
						  (unsigned long long)n);
	}
	printf("# %u sleeps with %u Ps idle: %llu timer interrupts on %u cores "
	       "(per core:%s) in %llu ms\n", IDLE_SLEEPS, np, (unsigned long long)irqs,
	       ncpus, per, (unsigned long long)(took / NSEC_PER_MSEC));
	/* One per sleep, up to two where the timer fires a little before
	 * its deadline and is re-armed for the rest (seen on x86 with the
	 * host loaded); nprocs per sleep before, so at 3 Ps or more the two
	 * differ. */
	if (np >= 3)
		EXPECT_LE(irqs, 2 * IDLE_SLEEPS + 2);
}

/* ---- 9: a core lost with interrupts masked ------------------------------ */

/*
 * A G masks interrupts and spins for MASK_NS. Before it masks, it starts
 * a timer on its own P, due MASK_TIMER_NS later, whose callback wakes Gs
 * parked on semaphores: Gs asleep on the lost core's timers. Those timers
 * were fired only by that P's own tick (or a spinning M), so before the
 * fix the Gs woke when the core came back, and a machine whose other Gs
 * all slept looked hung. Now the idle time-keeper fires a busy P's
 * overdue timers, and the watchdog names the G. Properties: every parked
 * G woke while the core was still lost, no later than half the masked
 * time after its deadline (its return is what they used to wait for),
 * and the watchdog reported the core. Nothing else runs meanwhile (this
 * G waits on a WaitGroup, not by sleeping): a spinning M's steal pass
 * would fire the timer too, and hide the defect.
 */
#define MASK_NS		(1500 * NSEC_PER_MSEC)
#define MASK_TIMER_NS	(5 * NSEC_PER_MSEC)
#define MASK_WAITERS	3u
#define MASK_SLEEP_NS	(5 * NSEC_PER_MSEC)

static volatile uint32_t mask_on;
static volatile uint32_t mask_sem[MASK_WAITERS];
static volatile uint64_t mask_when, mask_woke_at[MASK_WAITERS];
static volatile uint32_t mask_woke_during[MASK_WAITERS];
static struct waitgroup mask_wg;
static struct timer mask_t;

static void mask_fire(void *arg)
{
	(void)arg;
	for (uint32_t k = 0; k < MASK_WAITERS; k++)
		semrelease(&mask_sem[k]);
}

static void mask_waiter(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	semacquire(&mask_sem[k]);
	mask_woke_at[k] = nanotime();
	mask_woke_during[k] = atomic_load32(&mask_on);
	waitgroup_done(&mask_wg);
}

static void mask_g(void *arg)
{
	(void)arg;
	preempt_disable();	/* the timer goes on the P this core keeps */
	/* "Lost" from before the timer starts: under round-robin TCG this
	 * vCPU may stall past the deadline before it masks, and another
	 * core then rightly fires the timer. */
	atomic_store32(&mask_on, 1);
	mask_when = nanotime() + MASK_TIMER_NS;
	timer_init(&mask_t, mask_fire, NULL);
	timer_start(&mask_t, mask_when);
	unsigned long flags = arch_irq_save();
	preempt_enable();	/* masked: nothing switches us now */
	uint64_t t0 = nanotime();
	while (nanotime() - t0 < MASK_NS)
		arch_cpu_relax();
	atomic_store32(&mask_on, 0);
	arch_irq_restore(flags);
	waitgroup_done(&mask_wg);
}

TEST(sched_a_core_lost_with_interrupts_masked_stops_nobody_and_is_reported)
{
	uint32_t np = sched_nprocs();
	if (np < 2) {
		printf("# needs 2 Ps\n");
		return;
	}
	uint64_t rep0 = sched_watchdog_reports();
	mask_on = 0;
	waitgroup_add(&mask_wg, 1 + MASK_WAITERS);
	for (uintptr_t k = 0; k < MASK_WAITERS; k++) {
		mask_sem[k] = 0;
		mask_woke_at[k] = mask_woke_during[k] = 0;
		go(mask_waiter, (void *)k);
	}
	sleep_ns(MASK_SLEEP_NS);	/* let them park */
	go(mask_g, NULL);
	waitgroup_wait(&mask_wg);
	uint64_t reports = sched_watchdog_reports() - rep0;
	for (uint32_t k = 0; k < MASK_WAITERS; k++) {
		uint64_t late = mask_woke_at[k] - mask_when;
		printf("# waiter %u: woke %llu ms after the lost core's timer was "
		       "due, %s\n", k, (unsigned long long)(late / NSEC_PER_MSEC),
		       mask_woke_during[k] ? "while the core was lost" :
					     "after the core came back");
		EXPECT_EQ(mask_woke_during[k], 1);
		EXPECT_LT(late, MASK_NS / 2);
	}
	printf("# watchdog reports: %llu\n", (unsigned long long)reports);
	EXPECT_GE(reports, 1);
}
