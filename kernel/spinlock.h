/*
 * Spinlocks: one word, 0 when free, else 1 + the holding core's id, taken
 * with a compare-and-swap (test-and-test-and-set: waiters spin reading).
 * spin_lock does not mask interrupts; spin_lock_irqsave does, for locks an
 * interrupt handler also takes.
 *
 * Not a ticket lock: the word is both the lock and the holder's name
 * (the holder checks below), and a waiter that is not running (a vCPU
 * the host preempted) holds up nobody, where the next ticket's owner
 * would hold up every core behind it. The price is starvation: a core
 * can lose the race for the free lock again and again. So a waiter that
 * has failed SPIN_STARVE_SPINS looks asks for the lock: it names itself
 * in `handoff` and sets SPIN_HANDOFF in the word, which sends the
 * holder's unlock to its slow path, and that stores the asker's tag
 * instead of 0. One asker at a time; the fast paths are unchanged (Go's
 * sync.Mutex has the same starvation mode).
 */
#ifndef GMK_KERNEL_SPINLOCK_H
#define GMK_KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/compiler.h"

struct spinlock {
	volatile uint32_t locked;	/* 0: free; else 1 + the holder's core id,
					 * | SPIN_HANDOFF when a waiter asked */
	volatile uint32_t handoff;	/* the asking waiter's tag, 0: none */
	const char *name;
};

#define SPIN_HANDOFF	0x80000000u
/* Failed looks at the word before a waiter asks for a hand-off. */
#define SPIN_STARVE_SPINS 1024u

#define SPINLOCK_INIT(nm) { .locked = 0, .handoff = 0, .name = (nm) }

extern volatile uint64_t spin_handoffs;		/* hand-offs made, all locks */
extern volatile uint32_t spin_starve_spins;	/* SPIN_STARVE_SPINS; tests lower it */

void spin_init(struct spinlock *l, const char *name);
bool spin_trylock(struct spinlock *l);
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

/*
 * The fast paths are inline: a scheduling operation takes two or three
 * locks, and an out-of-line call would cost each of them a call and a
 * return on the switch path. What stays out of line is what is rare: the
 * wait for a held lock, and the report of an unlock by a non-holder.
 */
#include "kernel/atomic.h"
#include "kernel/compiler.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"

void spin_lock_wait(struct spinlock *l, uint32_t me);	/* spinlock.c */
/* Unlock's slow path: a hand-off to an asking waiter, or a misuse. */
__cold void spin_unlock_slow(struct spinlock *l);

/*
 * spin_lock_nopreempt / spin_unlock_nopreempt: the lock without the
 * preempt-off count, for code that nothing can preempt anyway: the
 * scheduler on g0 (the tick and the safe-point hook only ever switch a
 * running G, never g0). The count would guard nothing there, and raising
 * and dropping it (with the pending-switch check) would cost every
 * gosched a few instructions a lock. Everything else uses spin_lock.
 */
/* What this core writes into a lock it holds. */
static __always_inline uint32_t spin_tag(void)
{
	return THIS_CPU_READ32(spin_tag);	/* cpu_id() + 1, set at boot */
}

static __always_inline void spin_lock_nopreempt(struct spinlock *l)
{
	uint32_t me = spin_tag();
	/* CAS with acquire (a full barrier on both architectures): what the
	 * previous holder wrote before its store-release of 0 is visible. */
	if (unlikely(!atomic_cas32(&l->locked, 0, me)))
		spin_lock_wait(l, me);
}

static __always_inline void spin_unlock_nopreempt(struct spinlock *l)
{
	/* Relaxed: waiters' CASes touch the word while we hold it. Not
	 * just our tag: a waiter asked for the lock, or we do not hold it. */
	if (unlikely(__atomic_load_n(&l->locked, __ATOMIC_RELAXED) != spin_tag())) {
		spin_unlock_slow(l);
		return;
	}
	/* store-release: the critical section happens before the next
	 * holder's CAS sees the lock free. */
	atomic_store32(&l->locked, 0);
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

/* By this core. Asked by cores that may not hold it (assertions): the
 * word is read atomically, as other cores write it. */
static inline bool spin_held(const struct spinlock *l)
{
	return (atomic_load32(&l->locked) & ~SPIN_HANDOFF) == spin_tag();
}

#endif
