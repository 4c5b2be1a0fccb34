/*
 * Runtime semaphores and notify lists: what package sync blocks on (Go's
 * runtime/sema.go): the runtime's Mutex (sched/mutex.c) and Go's library
 * (lib/, through sched/linkname.h). Programs use sync's types.
 *
 *   semacquire(addr)      wait until *addr > 0, then decrement it
 *   semrelease(addr)      increment *addr and wake one waiter
 *
 * Waiters are kept per address, FIFO, in a fixed hash table of buckets
 * (semtable). *addr itself is only ever changed with atomics.
 */
#ifndef GMK_SCHED_SEMA_H
#define GMK_SCHED_SEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/spinlock.h"
#include "sched/waitreason.h"

struct sudog;

void semacquire(volatile uint32_t *addr);
void semrelease(volatile uint32_t *addr);
/* lifo: queue at the front of addr's waiters (a woken Mutex waiter that
 * lost the race goes back first). reason: what the deadlock report says. */
void semacquire1(volatile uint32_t *addr, bool lifo, enum waitreason reason);
/* handoff: give the count straight to the first waiter and yield to it,
 * so no newcomer can take it first (Mutex starvation mode). */
void semrelease1(volatile uint32_t *addr, bool handoff);

/*
 * notifyList: the ticket-based wait list under sync.Cond. notifylist_add
 * takes a ticket before the caller releases its lock; notifylist_wait
 * parks until that ticket is notified (returning at once if it already
 * was), so a notify between the two is never lost.
 */
struct notifylist {
	volatile uint32_t wait;		/* next ticket to hand out (atomic) */
	volatile uint32_t notify;	/* next ticket to notify (under lock) */
	struct spinlock lock;
	struct sudog *head;
	struct sudog *tail;
};

uint32_t notifylist_add(struct notifylist *l);
void notifylist_wait(struct notifylist *l, uint32_t ticket);
void notifylist_notify_one(struct notifylist *l);
void notifylist_notify_all(struct notifylist *l);

#endif
