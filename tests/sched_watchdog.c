/*
 * The scheduler's watchdog (sched/proc.c): a core lost with interrupts
 * masked holds up no G asleep on its timers and is reported, and the
 * report says where the core was.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/preempt.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "lib/sync.h"
#include "sched/sched.h"
#include "sched/sema.h"
#include "sched/timer.h"

/* The watchdog's report says where the stuck core was: the PC its last
 * tick interrupted, or, for a core that never ticked, that it never did
 * (not "PC 0x0", an address nothing ran at). */
TEST(sched_watchdog_report_names_the_pc_or_a_core_that_never_ticked)
{
	char buf[64];

	sched_watchdog_last_seen(buf, sizeof buf, 0, 0);
	EXPECT(strstr(buf, "never ticked") != NULL);
	EXPECT(strstr(buf, "PC") == NULL);
	sched_watchdog_last_seen(buf, sizeof buf, 12345, 0x40201234);
	EXPECT(strstr(buf, "PC 0x40201234") != NULL);
	EXPECT(strstr(buf, "never") == NULL);
}

/*
 * A G masks interrupts and spins for MASK_NS. Before it masks, it starts
 * a timer on its own P, due MASK_TIMER_NS later, whose callback wakes Gs
 * parked on semaphores: Gs asleep on the lost core's timers. Were those
 * timers fired only by that P's own tick (or a spinning M), the Gs would
 * wake when the core came back, and a machine whose other Gs all slept
 * would look hung: the idle time-keeper fires a busy P's overdue timers,
 * and the watchdog names the G. Properties: every parked
 * G woke while the core was still lost, no later than half the masked
 * time after its deadline (its return is what they would wait for otherwise),
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
