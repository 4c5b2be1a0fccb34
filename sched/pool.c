/*
 * Pool (sched/pool.h), after Go's sync/pool.go and poolqueue.go.
 *
 * Each P has a poolLocal: a private slot and a shared ring of pointers.
 * pool_get and pool_put run with preemption off (Go's pin: the G stays on
 * its P), so the P's own Gs use its poolLocal one at a time: the private
 * slot first, then the head of the ring (LIFO: the warmest object). A P
 * with nothing takes from the tail of another P's ring (getSlow).
 *
 * The ring is Go's poolDequeue: single producer (the P's owner pushes and
 * pops at the head), many consumers (any core pops at the tail), lock-
 * free, with head and tail packed in one 64-bit word so that one CAS
 * claims a slot. A consumer that claimed a slot clears it last (store-
 * release); the owner does not reuse a slot until it reads it clear, so
 * a slow consumer never sees its value overwritten. Go's chain of rings
 * that doubles as it fills is one ring of POOL_RING here: a Put that
 * finds it full drops the object (free_fn), which Go's collector would
 * drop at the next collection anyway.
 *
 * The private slot is taken and filled with atomic exchanges: pool_drain,
 * from any core, takes it too (Go's poolCleanup has the world stopped).
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "sched/pool.h"
#include "sched/schedimpl.h"

/* Slots in a P's ring: a power of two (the indices wrap at 2^32). */
#define POOL_RING 64u
_Static_assert((POOL_RING & (POOL_RING - 1)) == 0, "POOL_RING power of two");

/* Written by its P's owner and read by thieves: a line of its own. */
struct poollocal {
	volatile uintptr_t private;	/* an object or 0; owner's, but drain
					 * takes it too: exchanged (atomic) */
	volatile uint64_t headtail;	/* head << 32 | tail (atomic) */
	volatile uintptr_t vals[POOL_RING];	/* objects; 0: free */
} __cacheline_aligned;

static uint64_t pack(uint32_t head, uint32_t tail)
{
	return (uint64_t)head << 32 | tail;
}

/* Owner only. False when the ring is full. */
static bool ring_pushhead(struct poollocal *l, void *x)
{
	/* load-acquire: synchronize with consumers' CAS */
	uint64_t ht = atomic_load64(&l->headtail);
	uint32_t head = (uint32_t)(ht >> 32), tail = (uint32_t)ht;
	if (tail + POOL_RING == head)
		return false;
	volatile uintptr_t *slot = &l->vals[head % POOL_RING];
	/* load-acquire: a consumer that claimed this slot at the tail
	 * clears it last; until then it is still the consumer's. */
	if (atomic_loaduintptr(slot) != 0)
		return false;
	__atomic_store_n(slot, (uintptr_t)x, __ATOMIC_RELAXED);
	/* Full barrier (xadd): the slot is written before the head moves
	 * past it, handing it to the consumers (Go's headTail.Add). */
	atomic_xadd64(&l->headtail, (int64_t)1 << 32);
	return true;
}

/* Owner only: the newest, or NULL. */
static void *ring_pophead(struct poollocal *l)
{
	for (;;) {
		/* load-acquire: synchronize with consumers' CAS */
		uint64_t ht = atomic_load64(&l->headtail);
		uint32_t head = (uint32_t)(ht >> 32), tail = (uint32_t)ht;
		if (head == tail)
			return NULL;
		head--;
		/* seq-cst CAS: claims the slot against the consumers */
		if (atomic_cas64(&l->headtail, ht, pack(head, tail))) {
			volatile uintptr_t *slot = &l->vals[head % POOL_RING];
			uintptr_t x = __atomic_load_n(slot, __ATOMIC_RELAXED);
			/* Nobody else claims it now; the owner is us. */
			__atomic_store_n(slot, 0, __ATOMIC_RELAXED);
			return (void *)x;
		}
	}
}

/* Any core: the oldest, or NULL. */
static void *ring_poptail(struct poollocal *l)
{
	for (;;) {
		/* load-acquire: synchronize with the owner's push */
		uint64_t ht = atomic_load64(&l->headtail);
		uint32_t head = (uint32_t)(ht >> 32), tail = (uint32_t)ht;
		if (head == tail)
			return NULL;
		/* seq-cst CAS: the slot at tail is ours; it synchronizes
		 * with the push that moved head past it. */
		if (atomic_cas64(&l->headtail, ht, pack(head, tail + 1))) {
			volatile uintptr_t *slot = &l->vals[tail % POOL_RING];
			uintptr_t x = __atomic_load_n(slot, __ATOMIC_RELAXED);
			/* store-release: the value is read; the owner may
			 * reuse the slot. */
			atomic_storeuintptr(slot, 0);
			return (void *)x;
		}
	}
}

static void pool_free_obj(struct pool *p, void *x)
{
	if (p->free_fn)
		p->free_fn(x, p->arg);
	else
		kfree(x);
}

/* The per-P caches, made at first use, sized by the P count then. */
static struct poollocal *pool_locals(struct pool *p)
{
	/* load-acquire: nlocal is written before local is published */
	struct poollocal *local =
		(struct poollocal *)atomic_loaduintptr((volatile uintptr_t *)&p->local);
	if (local)
		return local;
	uint32_t n = sched_nprocs();
	void *mem = kmalloc(n * sizeof(struct poollocal) + CACHE_LINE);
	local = (struct poollocal *)(((uintptr_t)mem + CACHE_LINE - 1) & ~(uintptr_t)(CACHE_LINE - 1));
	/* One winner, under a lock for the first use of any pool; nlocal
	 * and local_mem are written before local publishes them. */
	static struct spinlock pinslow_lock = SPINLOCK_INIT("pool pinslow");
	spin_lock(&pinslow_lock);
	struct poollocal *cur = p->local;
	if (!cur) {
		p->nlocal = n;
		p->local_mem = mem;
		/* store-release */
		atomic_storeuintptr((volatile uintptr_t *)&p->local, (uintptr_t)local);
		cur = local;
		mem = NULL;
	}
	spin_unlock(&pinslow_lock);
	kfree(mem);			/* the loser's */
	return cur;
}

/* This P's cache, or NULL for a P made after the caches were (a P count
 * raised at run time): it then goes to the others' caches only. Caller
 * has preemption off. */
static struct poollocal *pool_pin(struct pool *p, struct poollocal *local, uint32_t *pid)
{
	*pid = getm()->p->id;
	return *pid < p->nlocal ? &local[*pid] : NULL;
}

void *pool_get(struct pool *p)
{
	struct poollocal *local = pool_locals(p);
	uint32_t pid;
	preempt_disable();
	struct poollocal *l = pool_pin(p, local, &pid);
	void *x = NULL;
	if (l) {
		/* Full barrier (xchg): pool_drain may take it at once. */
		x = (void *)atomic_xchguintptr(&l->private, 0);
		if (!x)
			x = ring_pophead(l);
	}
	/* getSlow: the tails of the other Ps' rings, from the next one on. */
	for (uint32_t i = 1; !x && i <= p->nlocal; i++)
		x = ring_poptail(&local[(pid + i) % p->nlocal]);
	preempt_enable();
	if (!x && p->new_fn)
		x = p->new_fn(p->arg);
	return x;
}

void pool_put(struct pool *p, void *x)
{
	if (!x)
		return;
	struct poollocal *local = pool_locals(p);
	uint32_t pid;
	preempt_disable();
	struct poollocal *l = pool_pin(p, local, &pid);
	/* seq-cst CAS on the private slot: pool_drain may be emptying it. */
	bool kept = l && (atomic_casuintptr(&l->private, 0, (uintptr_t)x) || ring_pushhead(l, x));
	preempt_enable();
	if (!kept)
		pool_free_obj(p, x);	/* no room: dropped */
}

void pool_drain(struct pool *p)
{
	struct poollocal *local =
		(struct poollocal *)atomic_loaduintptr((volatile uintptr_t *)&p->local);
	if (!local)
		return;
	for (uint32_t i = 0; i < p->nlocal; i++) {
		/* Full barrier (xchg) against the owner's get and put. */
		void *x = (void *)atomic_xchguintptr(&local[i].private, 0);
		if (x)
			pool_free_obj(p, x);
		while ((x = ring_poptail(&local[i])))
			pool_free_obj(p, x);
	}
}

void pool_destroy(struct pool *p)
{
	pool_drain(p);
	kfree(p->local_mem);
	p->local = NULL;
	p->local_mem = NULL;
	p->nlocal = 0;
}
