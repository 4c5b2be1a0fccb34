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
void spin_lock(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
bool spin_held(const struct spinlock *l);	/* by this core */
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

#endif
