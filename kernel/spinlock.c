/*
 * Ticket locks. A core takes a ticket with one fetch-and-add and waits until
 * `owner` reaches it, so waiters are served in arrival order.
 *
 * Holding a lock (and waiting for one) raises the preempt-off count
 * (kernel/preempt.h): a G preempted with a ticket in hand would stall
 * every other core queued behind it for a whole time slice.
 */
#include "kernel/spinlock.h"
#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"

void (*preempt_safepoint_hook)(void);

void spin_init(struct spinlock *l, const char *name)
{
	l->next = 0;
	l->owner = 0;
	l->name = name;
	l->holder = -1;
}

/* spin_lock's wait, out of line: the lock was held when we took our
 * ticket. */
void spin_lock_wait(struct spinlock *l, uint32_t ticket)
{
	while (atomic_load32(&l->owner) != ticket)
		arch_cpu_relax();
}

bool spin_trylock(struct spinlock *l)
{
	preempt_disable();
	uint32_t owner = atomic_load32(&l->owner);

	/* Free only when nobody holds or waits: next == owner. */
	if (!atomic_cas32(&l->next, owner, owner + 1)) {
		preempt_enable();
		return false;
	}
	__atomic_store_n(&l->holder, (int32_t)this_cpu()->id, __ATOMIC_RELAXED);
	return true;
}

void spin_unlock_bad(struct spinlock *l)
{
	panic("spin_unlock of %s: not held by this core (holder %d)",
	      l->name ? l->name : "lock", l->holder);
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
	/* spin_unlock's safe point saw interrupts masked: look again. */
	if (this_cpu()->resched && preempt_count() == 0 &&
	    preempt_safepoint_hook && arch_irq_enabled())
		preempt_safepoint_hook();
}
