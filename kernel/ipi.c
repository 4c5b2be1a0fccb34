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
#include "kernel/trap.h"

void (*ipi_ping_hook)(void);

void ipi_send(unsigned cpu, enum ipi_kind kind)
{
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
