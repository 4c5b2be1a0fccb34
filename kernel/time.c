/*
 * Time from the CPU's free-running counter (cntvct_el0 / the calibrated
 * TSC). Conversions use a 32.32 fixed-point factor so that nanotime() is
 * one multiply, with no division on the hot path.
 */
#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/cpu.h"
#include "kernel/kernel.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"
#include "kernel/time.h"
#include "kernel/trap.h"

static uint64_t counter_hz;
uint64_t time_boot_counter;
uint64_t time_ns_per_tick_32;
static uint64_t ticks_per_ns_32;	/* counter ticks per ns, << 32 */

void time_init(uint64_t hz)
{
	if (hz == 0)
		panic("time_init: the board reports a 0 Hz counter");
	counter_hz = hz;
	time_ns_per_tick_32 = (uint64_t)(((__uint128_t)NSEC_PER_SEC << 32) / hz);
	ticks_per_ns_32 = (uint64_t)(((__uint128_t)hz << 32) / NSEC_PER_SEC);
	time_boot_counter = arch_counter();
}

/* Saturates: a counter faster than 1 GHz (the TSC) makes more ticks of
 * a long span than 64 bits hold, and a wrapped count would be short. */
uint64_t ns_to_counter(uint64_t ns)
{
	__uint128_t t = ((__uint128_t)ns * ticks_per_ns_32) >> 32;
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

/* The counter value `ticks` after `base`, UINT64_MAX if that is past the
 * counter's range (a deadline so far off that it never comes). */
static uint64_t counter_add(uint64_t base, uint64_t ticks)
{
	return ticks < UINT64_MAX - base ? base + ticks : UINT64_MAX;
}

void delay_ns(uint64_t ns)
{
	uint64_t end = counter_add(arch_counter(), ns_to_counter(ns));

	while (arch_counter() < end)
		arch_cpu_relax();
}

/* Halt until an interrupt (the caller has masked them), counting the
 * time in idle_ns; halted_since lets others see a halt in progress. Its
 * start is one store: a reader sees the halt begun or not, and idle_ns
 * unchanged either way. At its end both change inside an odd span of
 * halt_seq, so that cpu_idle_ns, on any core, reads them as one: idle_ns
 * read after the end and halted_since before it would count the halt
 * twice (the count would go backwards, by as much as the halt, once the
 * reader's next look was right). The end is read inside the span, after
 * a full fence: a reader that finds the span not begun read its clock
 * before this one, and its estimate of the halt so far is no more than
 * what is added here. */
void cpu_halt(void)
{
	struct cpu *c = this_cpu();
	uint64_t t0 = nanotime();

	atomic_store64(&c->halted_since, t0);
	arch_wait_for_interrupt();
	__atomic_store_n(&c->halt_seq, c->halt_seq + 1, __ATOMIC_RELAXED);	/* odd */
	smp_mb();	/* before the stores, and before the clock read */
	uint64_t t1 = nanotime();
	/* Woken by its own timer: the wake-ups an idle core's timer costs,
	 * apart from the ticks a core with work takes. Its deadline passed
	 * (interrupts are still masked: nothing re-armed it), or, where the
	 * board takes the interrupt inside the wait (hosted), its handler
	 * ran during the halt. */
	uint64_t dl = c->timer_deadline_ns;
	if ((dl != 0 && dl <= t1) || atomic_load64(&c->last_tick_ns) >= t0)
		__atomic_store_n(&c->halt_timer_wakes, c->halt_timer_wakes + 1, __ATOMIC_RELAXED);
	atomic_store64(&c->halted_since, 0);
	__atomic_store_n(&c->idle_ns, c->idle_ns + (t1 - t0), __ATOMIC_RELAXED);
	atomic_store32(&c->halt_seq, c->halt_seq + 1);	/* even: store-release */
}

/*
 * A reader's estimate of a halt in progress uses its own clock, and the
 * halting core ends the halt with its own: a reader whose clock runs a
 * few cycles ahead of the halter's (cores' TSCs in a virtual machine, or
 * a TSC read that completes after the seq check it follows) can return
 * more than the halt will add, and the next look would be smaller, by a
 * nanosecond (hosted, 29 of 2.8 million reads on a loaded 2-core host).
 * So every answer is raised to the most any reader has returned for this
 * core (idle_read_max, a CAS-max): answers never go backwards, on any
 * core, and an answer is at most that skew ahead of the truth. The most
 * an answer was raised is kept (idle_read_raised): a reader that counted
 * a halt twice would be raised by a halt's length, nanoseconds no more.
 */
uint64_t cpu_idle_ns(struct cpu *c)
{
	uint32_t seq;
	uint64_t since, idle, now;

	do {
		while ((seq = atomic_load32(&c->halt_seq)) & 1)	/* load-acquire */
			arch_cpu_relax();
		since = atomic_load64(&c->halted_since);
		idle = __atomic_load_n(&c->idle_ns, __ATOMIC_RELAXED);
		now = nanotime();
		smp_rmb();
	} while (__atomic_load_n(&c->halt_seq, __ATOMIC_RELAXED) != seq);
	uint64_t v = idle + (since && now > since ? now - since : 0);
	for (;;) {
		uint64_t max = atomic_load64(&c->idle_read_max);
		if (max >= v) {
			uint64_t r = atomic_load64(&c->idle_read_raised);
			while (max - v > r && !atomic_cas64(&c->idle_read_raised, r, max - v))
				r = atomic_load64(&c->idle_read_raised);
			return max;
		}
		if (atomic_cas64(&c->idle_read_max, max, v))
			return v;
	}
}

void timer_arm_after(uint64_t ns)
{
	board_timer_arm(counter_add(arch_counter(), ns_to_counter(ns)));
}

/*
 * Tickless: a core's timer fires only when someone on it asked for a
 * deadline. The scheduler asks for the end of the running G's slice or
 * its P's next timer, an idle core for its next timer or nothing at all.
 * Call with preemption off (or interrupts masked): it is this core's
 * timer. A forced period (timer_force_period) overrides the deadline.
 */
void timer_set_deadline(uint64_t deadline_ns)
{
	/* Masked: a timer interrupt between the two steps would re-arm
	 * the timer and leave the field and the hardware disagreeing. */
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();

	/* A due deadline's interrupt may be pending still: what it was
	 * armed for (kernel_timer_interrupt). A store, no clock read: this
	 * is on the switch path. */
	if (c->timer_deadline_ns)
		c->timer_replaced_ns = c->timer_deadline_ns;
	/* store-release; read by timers_notify on other cores. */
	atomic_store64(&c->timer_deadline_ns, deadline_ns);
	if (!c->timer_period_ns) {
		uint64_t at = 0;
		if (deadline_ns) {
			at = counter_add(time_boot_counter, ns_to_counter(deadline_ns));
			if (at == 0)
				at = 1;	/* 0 means "disarm" to the board */
		}
		board_timer_arm(at);
	}
	arch_irq_restore(flags);
}

/*
 * For the timer tests: fire this core's timer every period_ns whatever the
 * scheduler asks for (0 returns to the scheduler's deadline). The
 * scheduler's tick still runs on each interrupt, so preemption goes on.
 */
void timer_force_period(uint64_t period_ns)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();

	c->timer_period_ns = period_ns;
	if (period_ns)
		timer_arm_after(period_ns);
	else
		timer_set_deadline(c->timer_deadline_ns);
	arch_irq_restore(flags);
}

/*
 * Every core's timer interrupt: count it, then let the scheduler look at
 * its P. The scheduler arms the next deadline (timer_set_deadline), and
 * may switch to another G and never return here: the board has already
 * acknowledged the interrupt, and nothing may follow this call.
 */
void kernel_timer_interrupt(struct trapframe *tf)
{
	struct cpu *c = this_cpu();

	/* Counters other cores read: single-writer atomic stores. */
	__atomic_store_n(&c->timer_irqs, c->timer_irqs + 1, __ATOMIC_RELAXED);
	uint64_t now = nanotime();
	atomic_store64(&c->last_tick_ns, now);	/* the watchdog's */
	/* bench=latency splits a late wake-up into the interrupt's own
	 * lateness (the hardware's, or the emulator's) and the scheduler's
	 * (timer_tick_find). The entry before the count that publishes it. */
	uint32_t seq = c->tick_seq;
	uint64_t armed = c->timer_deadline_ns;
	/* Disarmed, yet an interrupt: it came due for a deadline that the
	 * core replaced with interrupts masked (going idle, say), and the
	 * hardware kept it pending. The deadline replaced last is that one
	 * or a later one (any set after it was in the future or due too):
	 * never earlier than the truth. One not due yet cannot be it. */
	if (armed == 0 && !c->timer_period_ns && c->timer_replaced_ns <= now)
		armed = c->timer_replaced_ns;
	c->timer_replaced_ns = 0;
	atomic_store64(&c->tick_hist[seq % TICK_HISTORY].at, now);
	atomic_store64(&c->tick_hist[seq % TICK_HISTORY].armed, armed);
	smp_wmb();
	atomic_store32(&c->tick_seq, seq + 1);
	__atomic_store_n(&c->last_tick_pc, arch_frame_pc(tf), __ATOMIC_RELAXED);
	/*
	 * One-shot: consumed. Then a full barrier (StoreLoad) before the
	 * scheduler's tick reads its P's timers (when0). It pairs with the
	 * one in timers_notify (sched/timer.c), which stores a new when0 and
	 * then reads this deadline to decide whether to send an IPI: with a
	 * barrier on both sides, either that reader sees 0 here (and sends
	 * the IPI) or the tick below sees the new when0. Without it x86 may
	 * let the load pass the store and both miss.
	 */
	atomic_store64(&c->timer_deadline_ns, 0);
	smp_mb();
	if (c->timer_period_ns)
		timer_arm_after(c->timer_period_ns);
	if (!sched_tick(tf) && !c->timer_period_ns)
		timer_arm_after(TICK_NS);	/* before the scheduler starts */
}

bool timer_tick_find(const struct cpu *c, uint64_t armed_lo, uint64_t armed_hi,
		     uint64_t at_lo, uint64_t at_hi, uint64_t *at, uint64_t *armed)
{
	uint32_t seq = atomic_load32(&c->tick_seq);
	smp_rmb();
	/* Interrupt seq - k sits in its slot until interrupt
	 * seq - k + TICK_HISTORY starts to write there: an entry read while
	 * the count has moved that far may be torn, and it and every older
	 * one are left out. */
	for (uint32_t k = 1; k < TICK_HISTORY && k <= seq; k++) {
		uint32_t i = (seq - k) % TICK_HISTORY;
		uint64_t a = atomic_load64(&c->tick_hist[i].at);
		uint64_t d = atomic_load64(&c->tick_hist[i].armed);
		smp_rmb();
		if (atomic_load32(&c->tick_seq) - seq >= TICK_HISTORY - k)
			return false;
		if (d >= armed_lo && d <= armed_hi && a >= at_lo && a <= at_hi) {
			*at = a;
			*armed = d;
			return true;
		}
	}
	return false;
}
