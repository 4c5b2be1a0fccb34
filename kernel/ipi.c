/*
 * Inter-processor interrupts. The board raises one interrupt per target;
 * the reason travels in the target's mailbox word, so several requests
 * coalesce into one interrupt and none is lost.
 */
#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/trap.h"

void (*ipi_ping_hook)(void);

/* The sending time of the target's earliest IPI_WAKE not yet taken,
 * before its bit: the interrupt that takes the bit finds the time. A
 * clock read per IPI, which costs far more. */
static void wake_stamp(struct cpu *c)
{
	if (!atomic_load64(&c->wake_sent_ns))
		(void)atomic_cas64(&c->wake_sent_ns, 0, nanotime());
}

void ipi_send(unsigned cpu, enum ipi_kind kind)
{
	if (kind & IPI_WAKE)
		wake_stamp(&cpus[cpu]);
	/* Full barrier (atomic_or32): the sender's earlier writes (a G put
	 * on a run queue, a call set up) are visible before the interrupt. */
	atomic_or32(&cpus[cpu].ipi_pending, kind);
	board_ipi_send(cpu);
}

/*
 * An idle M's wake-up (m_unpark): its core is halted in stopm, or on its
 * way there with interrupts masked, where it tests its park word and then
 * its mailbox before it sleeps, so the mailbox bit is all it needs. On
 * the hosted board an IPI to a thread that is not asleep yet is a signal
 * (host_core_kick), two system calls and a signal frame, and bench
 * pingpong at 2 Ps wakes the idle core at nearly every hand-off.
 */
void ipi_wake_idle(unsigned cpu)
{
	wake_stamp(&cpus[cpu]);
	atomic_or32(&cpus[cpu].ipi_pending, IPI_WAKE);	/* full barrier, as above */
	board_ipi_wake_idle(cpu);
}

/* smp_call_all: one call at a time, described here. */
static struct spinlock call_lock = SPINLOCK_INIT("smp_call");
static void (*call_fn)(void *);
static void *call_arg;
static volatile uint32_t call_done;

static __attribute__((noreturn)) void stop_this_cpu(void)
{
	arch_irq_disable();
	atomic_store32((volatile uint32_t *)&this_cpu()->online, 0);
	for (;;)
		arch_wait_for_interrupt();
}

void kernel_ipi_interrupt(struct trapframe *tf)
{
	struct cpu *c = this_cpu();
	uint32_t why = atomic_xchg32(&c->ipi_pending, 0);
	if (why & IPI_WAKE) {
		/* After the bits (xchg: a full barrier): the stamp of the
		 * earliest WAKE they hold, or of a later one. */
		uint64_t sent = atomic_xchg64(&c->wake_sent_ns, 0);
		if (sent) {
			uint32_t seq = c->wake_seq;
			atomic_store64(&c->wake_hist[seq % WAKE_HISTORY].sent, sent);
			atomic_store64(&c->wake_hist[seq % WAKE_HISTORY].at, nanotime());
			smp_wmb();
			atomic_store32(&c->wake_seq, seq + 1);
		}
	}

	__atomic_store_n(&c->ipis, c->ipis + 1, __ATOMIC_RELAXED);	/* read by others */
	if (why & IPI_STOP)
		stop_this_cpu();
	if (why & IPI_CALL) {
		call_fn(call_arg);
		atomic_xadd32(&call_done, 1);	/* full barrier: fn's writes first */
	}
	/* A test sets the hook while other cores take IPIs: an atomic load. */
	void (*ping)(void) = __atomic_load_n(&ipi_ping_hook, __ATOMIC_ACQUIRE);
	if ((why & IPI_PING) && ping)
		ping();
	if (why & IPI_WAKE)
		sched_ipi_wake();
}

void smp_call_all(void (*fn)(void *), void *arg)
{
	unsigned sent = 0;

	spin_lock(&call_lock);
	unsigned long flags = arch_irq_save();	/* stay on this core */
	unsigned me = this_cpu()->id;
	call_fn = fn;
	call_arg = arg;
	atomic_store32(&call_done, 0);
	for (unsigned i = 0; i < ncpus; i++) {
		if (i == me || !cpus[i].online)
			continue;
		ipi_send(i, IPI_CALL);
		sent++;
	}
	arch_irq_restore(flags);
	fn(arg);
	while (atomic_load32(&call_done) != sent)
		arch_cpu_relax();
	spin_unlock(&call_lock);
}

bool ipi_wake_find(const struct cpu *c, uint64_t sent_hi, uint64_t at_lo, uint64_t at_hi,
		   uint64_t *sent, uint64_t *at)
{
	uint32_t seq = atomic_load32(&c->wake_seq);
	smp_rmb();
	/* As timer_tick_find: an entry read while the count moved that far
	 * may be torn, and it and every older one are left out. */
	for (uint32_t k = 1; k < WAKE_HISTORY && k <= seq; k++) {
		uint32_t i = (seq - k) % WAKE_HISTORY;
		uint64_t s = atomic_load64(&c->wake_hist[i].sent);
		uint64_t a = atomic_load64(&c->wake_hist[i].at);
		smp_rmb();
		if (atomic_load32(&c->wake_seq) - seq >= WAKE_HISTORY - k)
			return false;
		if (s <= sent_hi && a >= at_lo && a <= at_hi) {
			*sent = s;
			*at = a;
			return true;
		}
	}
	return false;
}
