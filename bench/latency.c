/*
 * latency: nprocs Gs that never yield (a loop with no calls), so every P
 * is busy, plus one G that sleeps 1 ms 1,000 times. Figure: how late it
 * wakes (actual sleep - 1 ms), p99 in microseconds, with p50, the worst
 * case and the time slice beside it. The sleeper gets a core back only by
 * preemption: the tick preempts a running G when its P's timer is due,
 * and otherwise at the end of its slice.
 *
 * Each lateness is split in two, so that an emulator's (or a host's)
 * delay in delivering the timer interrupt is not blamed on the scheduler:
 * irq = when the interrupt that woke the sleeper came - the deadline the
 * core's timer was armed for (the interrupt controller's and the
 * machine's share), sched = the rest (arming the timer late, running the
 * timers, preempting, switching: the scheduler's share). A wake-up that
 * did not come by this core's timer interrupt counts wholly as sched.
 */
#include "kernel/percpu.h"
#include "bench/bench.h"

#define LATENCY_SLEEPS		1000u
#define LATENCY_SLEEP_NS	(1 * NSEC_PER_MSEC)
#define LATENCY_SPIN_STEPS	64u	/* LCG steps between looks at stop */
/* sleep_ns computes its deadline a little after t0: an armed deadline
 * this close after t0 + 1 ms is the sleeper's own. */
#define LATENCY_ARM_SLACK_NS	(20 * NSEC_PER_USEC)

static int64_t latency_late[LATENCY_SLEEPS];	/* ns, one per sleep */
static int64_t latency_irq[LATENCY_SLEEPS];	/* of which the interrupt's */
static int64_t latency_sched[LATENCY_SLEEPS];	/* of which the scheduler's */

struct latency {
	uint32_t n;			/* sleeps */
	volatile uint32_t running;	/* spinners that have started */
	volatile uint32_t stop;		/* spinners: end now */
	uint32_t slept;			/* sleeps done; the sleeper's own */
	uint64_t spins[MAX_CPUS];	/* each spinner's loops, its own slot */
	struct waitgroup sleeper_done, spinners_done;
};

struct spinner_arg {
	struct latency *lt;
	uint32_t k;
};

static void spinner_g(void *arg)
{
	struct spinner_arg *a = arg;
	uint64_t x = a->k, loops = 0;
	atomic_xadd32(&a->lt->running, 1);
	while (!atomic_load32(&a->lt->stop)) {
		x = bench_lcg(x, LATENCY_SPIN_STEPS);
		loops++;
	}
	a->lt->spins[a->k] = loops + (x == 0);	/* x == 0: keeps x live */
	waitgroup_done(&a->lt->spinners_done);
}

static void sleeper_g(void *arg)
{
	struct latency *lt = arg;
	for (uint32_t i = 0; i < lt->n; i++) {
		uint64_t t0 = nanotime();
		sleep_ns(LATENCY_SLEEP_NS);
		uint64_t now = nanotime(), when = t0 + LATENCY_SLEEP_NS;
		latency_late[i] = (int64_t)(now - when);
		/* The interrupt that ran the sleeper's timer, if it came here
		 * after the deadline and before now (interrupts off: the tick
		 * does not move under the reads). */
		unsigned long flags = arch_irq_save();
		struct cpu *c = this_cpu();
		uint64_t at, armed;
		int64_t irq = 0;
		if (timer_tick_find(c, 1, when + LATENCY_ARM_SLACK_NS, when, now, &at, &armed))
			irq = (int64_t)(at - (armed > when ? armed : when));
		arch_irq_restore(flags);
		latency_irq[i] = irq;
		latency_sched[i] = latency_late[i] - irq;
		lt->slept++;
	}
	waitgroup_done(&lt->sleeper_done);
}

static void sort_i64(int64_t *v, uint32_t n)
{
	/* Shell sort: n is at most 1,000 and this runs once per run. */
	for (uint32_t gap = n / 2; gap; gap /= 2)
		for (uint32_t i = gap; i < n; i++)
			for (uint32_t j = i; j >= gap && v[j - gap] > v[j]; j -= gap) {
				int64_t t = v[j];
				v[j] = v[j - gap];
				v[j - gap] = t;
			}
}

double bench_latency(struct bench_ctx *c)
{
	static struct latency lt;
	struct spinner_arg args[MAX_CPUS];
	uint32_t np = c->nprocs;

	lt = (struct latency){ .n = bench_count(c, LATENCY_SLEEPS) };
	waitgroup_add(&lt.spinners_done, (int32_t)np);
	waitgroup_add(&lt.sleeper_done, 1);
	for (uint32_t k = 0; k < np; k++) {
		args[k] = (struct spinner_arg){ &lt, k };
		go(spinner_g, &args[k]);
	}
	/* The sleeper starts once every P runs a spinner (this G gets a core
	 * back when a spinner's slice ends). */
	while (atomic_load32(&lt.running) < np)
		gosched();
	go(sleeper_g, &lt);
	waitgroup_wait(&lt.sleeper_done);
	atomic_store32(&lt.stop, 1);
	waitgroup_wait(&lt.spinners_done);

	if (lt.slept != lt.n)
		bench_fail(c, "the sleeper slept %u times, not %u", lt.slept, lt.n);
	sort_i64(latency_late, lt.n);
	if (latency_late[0] < 0)
		bench_fail(c, "a 1 ms sleep woke %lld ns early",
			   (long long)-latency_late[0]);
	c->aux[0] = latency_late[lt.n / 2] / 1e3;
	c->aux[1] = latency_late[lt.n - 1] / 1e3;
	c->aux[2] = sched_slice_ns() / 1e3;
	sort_i64(latency_sched, lt.n);
	sort_i64(latency_irq, lt.n);
	c->aux[3] = latency_sched[(uint64_t)lt.n * 99 / 100] / 1e3;
	c->aux[4] = latency_irq[(uint64_t)lt.n * 99 / 100] / 1e3;
	return latency_late[(uint64_t)lt.n * 99 / 100] / 1e3;
}
