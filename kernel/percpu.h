/*
 * Per-core data. Each core reaches its own struct cpu through a CPU register
 * (arch_this_cpu), never through an array indexed by a hardware id read on
 * every access. Only the owning core writes a struct cpu, except where a
 * field says otherwise.
 *
 * this_cpu() is stable only while the caller cannot migrate: in interrupt
 * context, on g0, or with preemption off. A G that wants its own identity
 * uses getg(), which is one instruction.
 */
#ifndef GMK_KERNEL_PERCPU_H
#define GMK_KERNEL_PERCPU_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/cpu.h"

/* Timer interrupts each core remembers (struct cpu's tick_hist). */
#define TICK_HISTORY 64
/* IPI_WAKEs each core remembers (struct cpu's wake_hist). */
#define WAKE_HISTORY 8

#define MAX_CPUS 64

/* Layout of the first fields is fixed: x86-64 reads %gs:0 and %gs:8. */
struct cpu {
	struct cpu *self;		/* +0: the struct's own address */
	void *curg;			/* +8: the running G (written by switch code) */
	uint32_t id;			/* logical core number, 0 = boot core */
	uint32_t hwid;			/* MPIDR affinity bits / local APIC id */
	uintptr_t stack_top;		/* this core's boot stack = its g0 stack */
	uintptr_t irq_stack_top;	/* exception/interrupt stack (SP_EL1 / IST1) */
	void *libc_tls;			/* g0's C library TLS block, where the arch
					   has one (aarch64: arch/aarch64/tls.c) */
	struct m *m;			/* the M bound to this core (sched/) */
	int online;			/* set by the core itself when up */
	uint32_t spin_tag;		/* id + 1: what a lock this core holds reads */

	/* Counters, written by this core only. */
	uint64_t timer_irqs;
	uint64_t ipis;
	uint64_t init_runs;		/* times cpu_start ran on this core */
	uint64_t idle_ns;		/* time spent in arch_wait_for_interrupt */
	volatile uint64_t halted_since;	/* nanotime the current halt began, 0 = running */
	volatile uint32_t halt_seq;	/* odd while this core changes the two
					 * above (cpu_idle_ns reads them as one) */

	/* Preemption (kernel/preempt.h). preempt_off > 0: the code running
	 * on this core must not be switched out (spinlock held, scheduler
	 * state in hand); resched: the tick wanted to preempt meanwhile. */
	uint32_t preempt_off;
	volatile uint32_t resched;

	/* This core's timer (kernel/time.c): the deadline the kernel asked
	 * for (ns since boot, 0 = none), and a forced periodic rate that
	 * overrides it (tests of the timer itself; 0 = off). */
	volatile uint64_t timer_deadline_ns;	/* read by other cores */
	uint64_t timer_period_ns;
	/* The last non-zero deadline timer_set_deadline replaced since this
	 * core's last timer interrupt (0: none), this core's alone. A
	 * deadline replaced after it came due has its interrupt pending
	 * still (the hardware keeps it while interrupts are masked), and
	 * that interrupt then finds the deadline it was armed for gone. */
	uint64_t timer_replaced_ns;
	/* The last timer interrupt here, and where it found the core; read
	 * by the scheduler's watchdog on other cores (sched/proc.c). */
	volatile uint64_t last_tick_ns;
	uintptr_t last_tick_pc;
	/* The last TICK_HISTORY timer interrupts here: when each came and
	 * the deadline it was armed for, written by the interrupt alone,
	 * interrupt n in tick_hist[n % TICK_HISTORY] and then tick_seq = n + 1
	 * (kernel/time.h's timer_tick_find reads them). An interrupt that
	 * finds its core disarmed was armed for a deadline replaced after it
	 * came due: it records that one (timer_replaced_ns). Many more than
	 * the last one, because a late wake-up is examined only once its G
	 * runs: on a host that stopped a core holding a lock, the core
	 * waiting for it on g0 takes a tick every PREEMPT_RETRY_NS (1 ms)
	 * meanwhile, tens of them after the one that was late. */
	struct {
		volatile uint64_t at, armed;
	} tick_hist[TICK_HISTORY];
	volatile uint32_t tick_seq;
	volatile uint64_t watchdog_reported;	/* last_tick_ns already reported */

	/* IPI mailbox: bits set by other cores (atomic_or32), cleared here. */
	volatile uint32_t ipi_pending;
	/* When the earliest IPI_WAKE not yet taken here was sent (0: none),
	 * and the last WAKE_HISTORY taken: when each was sent and when it
	 * came, written by the IPI alone as tick_hist is (ipi_wake_find in
	 * kernel/ipi.h reads them). A core told to look again (an idle P's
	 * earlier timer, say) that the host did not run is told apart from
	 * one nobody told. */
	volatile uint64_t wake_sent_ns;
	struct {
		volatile uint64_t sent, at;
	} wake_hist[WAKE_HISTORY];
	volatile uint32_t wake_seq;

	/* The most cpu_idle_ns has returned for this core, and the most it
	 * raised an answer to that (clocks' skew between cores, kernel/time.c):
	 * written by the cores that read this core's idle time. */
	volatile uint64_t idle_read_max;
	volatile uint64_t idle_read_raised;
	/* Halts (cpu_halt) its own timer ended, by this core alone. */
	uint64_t halt_timer_wakes;

	/* Console line assembly (kernel/console.c). */
	uint32_t linelen;
	char line[256];

	/* Test runner recovery (kernel/test.c). */
	void *test_recover;
	void *arch;			/* arch-private per-core state */
} __cacheline_aligned;

extern struct cpu cpus[MAX_CPUS];
extern unsigned ncpus;			/* cores found by the board */
extern volatile unsigned ncpus_online;

static inline struct cpu *this_cpu(void) { return arch_this_cpu(); }

/*
 * One 32-bit field of this core's struct cpu. An arch that reaches its own
 * struct cpu through a segment register reads and writes it in one
 * instruction (arch_this_cpu_read32/write32, x86-64); elsewhere it is
 * through this_cpu(). The spinlocks and preempt_enable read id and
 * resched on every lock.
 */
#ifdef arch_this_cpu_read32
#define THIS_CPU_READ32(field) ({					\
	_Static_assert(sizeof(((struct cpu *)0)->field) == 4, #field);	\
	arch_this_cpu_read32(offsetof(struct cpu, field)); })
#define THIS_CPU_WRITE32(field, val) do {				\
	_Static_assert(sizeof(((struct cpu *)0)->field) == 4, #field);	\
	arch_this_cpu_write32(offsetof(struct cpu, field), (val));	\
	} while (0)
#else
#define THIS_CPU_READ32(field) (this_cpu()->field)
#define THIS_CPU_WRITE32(field, val) (this_cpu()->field = (val))
#endif

static inline unsigned cpu_id(void) { return THIS_CPU_READ32(id); }

/* Number core c: its id and what a spinlock it holds reads (id + 1; a 0
 * would make every lock it takes look free). The one place both are set. */
static inline void cpu_set_id(struct cpu *c, uint32_t id)
{
	c->id = id;
	c->spin_tag = id + 1;
}

#endif
