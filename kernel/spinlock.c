/*
 * Spinlocks (kernel/spinlock.h says why not tickets): the out-of-line
 * parts, the wait for a held lock and the reports of misuse.
 *
 * Holding a lock (and waiting for one) raises the preempt-off count
 * (kernel/preempt.h): a G preempted with the lock held would stall
 * every other core that wants it for a whole time slice.
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
	l->locked = 0;
	l->name = name;
}

static const char *spin_name(const struct spinlock *l)
{
	return l->name ? l->name : "lock";
}

/* spin_lock's wait, out of line: the lock was held when we tried. Spin
 * reading (the cache line stays shared until the holder's release), then
 * try again. A core that asks for a lock it holds would wait forever:
 * that is a bug to report, not to wait for. */
void spin_lock_wait(struct spinlock *l, uint32_t me)
{
	if (atomic_load32(&l->locked) == me)
		panic("spin_lock of %s: this core (%u) already holds it", spin_name(l), me - 1);
	do {
		while (atomic_load32(&l->locked) != 0)
			arch_cpu_relax();
	} while (!atomic_cas32(&l->locked, 0, me));
}

bool spin_trylock(struct spinlock *l)
{
	preempt_disable();
	if (atomic_load32(&l->locked) != 0 || !atomic_cas32(&l->locked, 0, spin_tag())) {
		preempt_enable();
		return false;
	}
	return true;
}

void spin_unlock_bad(struct spinlock *l)
{
	uint32_t v = atomic_load32(&l->locked);
	if (v == 0)
		panic("spin_unlock of %s: not held (unlocked twice?)", spin_name(l));
	panic("spin_unlock of %s on core %u: held by core %u", spin_name(l), cpu_id(), v - 1);
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
