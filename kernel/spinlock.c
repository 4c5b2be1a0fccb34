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

void spin_init(struct spinlock *l, const char *name)
{
	l->locked = 0;
	l->handoff = 0;
	l->name = name;
}

static const char *spin_name(const struct spinlock *l)
{
	return l->name ? l->name : "lock";
}

/* Hand-offs made (all locks, all cores): the tests look at it. */
volatile uint64_t spin_handoffs;
/* SPIN_STARVE_SPINS, unless a test lowers it to make hand-offs common. */
volatile uint32_t spin_starve_spins = SPIN_STARVE_SPINS;

/* Ask for l (kernel/spinlock.h), having named ourselves in handoff: keep
 * the held word flagged until its holder hands it to us, or take it if it
 * comes free. (An unlock that read the word just before we flagged it
 * frees the lock instead; then whoever takes it next is flagged again.) */
static void spin_lock_ask(struct spinlock *l, uint32_t me)
{
	for (;;) {
		/* load-acquire: a hand-off's store-release of our tag makes
		 * the last holder's critical section visible. */
		uint32_t v = atomic_load32(&l->locked);
		/* Handed over (the holder cleared handoff); the next asker
		 * may already have flagged the word we now hold. */
		if ((v & ~SPIN_HANDOFF) == me)
			return;
		if (v == 0) {
			if (atomic_cas32(&l->locked, 0, me)) {
				atomic_store32(&l->handoff, 0);
				return;
			}
		} else if (!(v & SPIN_HANDOFF)) {
			atomic_cas32(&l->locked, v, v | SPIN_HANDOFF);
		}
		arch_cpu_relax();
	}
}

/* spin_lock's wait, out of line: the lock was held when we tried. Spin
 * reading (the cache line stays shared until the holder's release), then
 * try again; after spin_starve_spins failed looks, ask for a hand-off.
 * A core that asks for a lock it holds would wait forever: that is a bug
 * to report, not to wait for. */
void spin_lock_wait(struct spinlock *l, uint32_t me)
{
	if ((atomic_load32(&l->locked) & ~SPIN_HANDOFF) == me)
		panic("spin_lock of %s: this core (%u) already holds it", spin_name(l), me - 1);
	uint32_t spins = 0;
	for (;;) {
		if (atomic_load32(&l->locked) == 0) {
			if (atomic_cas32(&l->locked, 0, me))
				return;
		} else if (++spins >= spin_starve_spins &&
			   atomic_load32(&l->handoff) == 0 &&
			   atomic_cas32(&l->handoff, 0, me)) {
			spin_lock_ask(l, me);
			return;
		}
		arch_cpu_relax();
	}
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

__cold void spin_unlock_slow(struct spinlock *l)
{
	uint32_t me = spin_tag();
	uint32_t v = atomic_load32(&l->locked);
	if (v == (me | SPIN_HANDOFF)) {
		/* A waiter asked (it wrote handoff before the flag). */
		uint32_t to = atomic_load32(&l->handoff);
		atomic_store32(&l->handoff, 0);
		atomic_xadd64(&spin_handoffs, 1);
		atomic_store32(&l->locked, to);	/* release: it holds l now */
		return;
	}
	v &= ~SPIN_HANDOFF;
	if (v == 0)
		panic("spin_unlock of %s: not held (unlocked twice?)", spin_name(l));
	panic("spin_unlock of %s on core %u: held by core %u", spin_name(l), me - 1, v - 1);
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
	if (this_cpu()->resched && preempt_count() == 0 && arch_irq_enabled())
		sched_preempt_safepoint();
}
