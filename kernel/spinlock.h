/*
 * Ticket spinlocks: FIFO among cores, so no core starves under contention.
 * spin_lock does not mask interrupts; spin_lock_irqsave does, for locks an
 * interrupt handler also takes.
 */
#ifndef GMK_KERNEL_SPINLOCK_H
#define GMK_KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
	volatile uint32_t next;		/* ticket dispenser (atomic_xadd32) */
	volatile uint32_t owner;	/* ticket now served (store-release by unlock) */
	const char *name;
	int32_t holder;			/* core id holding it, -1 when free (debug) */
};

#define SPINLOCK_INIT(nm) { .next = 0, .owner = 0, .name = (nm), .holder = -1 }

void spin_init(struct spinlock *l, const char *name);
bool spin_trylock(struct spinlock *l);
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

/*
 * The fast paths are inline: a scheduling operation takes two or three
 * locks, and an out-of-line call with its holder bookkeeping was a tenth
 * of a gosched (issue 14). What stays out of line is what is rare: the
 * wait for a held lock, and the report of an unlock by a non-holder.
 */
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"

void spin_lock_wait(struct spinlock *l, uint32_t ticket);	/* spinlock.c */
__attribute__((noreturn, cold)) void spin_unlock_bad(struct spinlock *l);

/*
 * spin_lock_nopreempt / spin_unlock_nopreempt: the lock without the
 * preempt-off count, for code that nothing can preempt anyway: the
 * scheduler on g0 (the tick and the safe-point hook only ever switch a
 * running G, never g0). The count would guard nothing there, and raising
 * and dropping it (with the pending-switch check) was ~6 instructions a
 * lock on every gosched (issue 14). Everything else uses spin_lock.
 */
static inline void spin_lock_nopreempt(struct spinlock *l)
{
	/* xadd returns the new value; our ticket is the one before it. */
	uint32_t ticket = atomic_xadd32(&l->next, 1) - 1;
	/* load-acquire: what the previous holder wrote before its
	 * store-release of owner is visible once we see our ticket. */
	if (__builtin_expect(atomic_load32(&l->owner) != ticket, 0))
		spin_lock_wait(l, ticket);
	__atomic_store_n(&l->holder, (int32_t)cpu_id(), __ATOMIC_RELAXED);
}

static inline void spin_unlock_nopreempt(struct spinlock *l)
{
	if (__builtin_expect(l->holder != (int32_t)cpu_id(), 0))
		spin_unlock_bad(l);
	__atomic_store_n(&l->holder, -1, __ATOMIC_RELAXED);
	/* store-release: the critical section happens before the next
	 * holder's load-acquire of owner. Only the holder writes owner. */
	atomic_store32(&l->owner, l->owner + 1);
}

static inline void spin_lock(struct spinlock *l)
{
	preempt_disable();
	spin_lock_nopreempt(l);
}

static inline void spin_unlock(struct spinlock *l)
{
	spin_unlock_nopreempt(l);
	preempt_enable();
}

/* By this core. Asked by cores that may not hold it (assertions): holder
 * and the tickets are read atomically, as other cores write them. */
static inline bool spin_held(const struct spinlock *l)
{
	return __atomic_load_n(&l->holder, __ATOMIC_RELAXED) == (int32_t)cpu_id() &&
	       atomic_load32(&l->next) != atomic_load32(&l->owner);
}

#endif
