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

void spin_lock(struct spinlock *l)
{
	preempt_disable();
	/* xadd returns the new value; our ticket is the one before it. */
	uint32_t ticket = atomic_xadd32(&l->next, 1) - 1;

	/* load-acquire: what the previous holder wrote before its
	 * store-release of owner is visible once we see our ticket. */
	while (atomic_load32(&l->owner) != ticket)
		arch_cpu_relax();
	__atomic_store_n(&l->holder, (int32_t)this_cpu()->id, __ATOMIC_RELAXED);
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

void spin_unlock(struct spinlock *l)
{
	if (l->holder != (int32_t)this_cpu()->id)
		panic("spin_unlock of %s: not held by this core (holder %d)",
		      l->name ? l->name : "lock", l->holder);
	__atomic_store_n(&l->holder, -1, __ATOMIC_RELAXED);
	/* store-release: the critical section happens before the next
	 * holder's load-acquire of owner. Only the holder writes owner. */
	atomic_store32(&l->owner, l->owner + 1);
	preempt_enable();
}

bool spin_held(const struct spinlock *l)
{
	/* Asked by cores that may not hold it (assertions): holder and the
	 * tickets are read atomically, as other cores write them. */
	return __atomic_load_n(&l->holder, __ATOMIC_RELAXED) == (int32_t)this_cpu()->id &&
	       atomic_load32(&l->next) != atomic_load32(&l->owner);
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
