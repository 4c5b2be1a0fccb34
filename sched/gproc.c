/*
 * Making Gs: newproc (go / go_stack), G records and their stacks, and the
 * free lists that recycle both (per P, spilling to a global list).
 *
 * A G's stack comes from page_alloc with its lowest page unmapped: a
 * guard page, so that an overflow faults at once and the fault handler
 * can name the G (sched_fault_describe). Stacks stay with their G record
 * when it dies and are reused with it; that is what makes a million short
 * Gs cheap.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "sched/schedimpl.h"
#include "sched/tracebuf.h"

/* Per-P free G cache: at GFREE_LOCAL_MAX, move Gs to the global list until
 * GFREE_LOCAL_KEEP remain; an empty P refills with up to GFREE_LOCAL_KEEP
 * (Go's gfput / gfget: 64 and 32). */
#define GFREE_LOCAL_MAX  64
#define GFREE_LOCAL_KEEP 32

/* Pages for a stack of `bytes` plus its guard page, rounded up to a power
 * of two because the page allocator hands out buddy blocks: the rest of
 * the block becomes stack too rather than being wasted. */
static size_t stack_npages(size_t bytes)
{
	size_t need = (bytes + PAGE_SIZE - 1) / PAGE_SIZE + 1;
	size_t n = 1;
	while (n < need)
		n <<= 1;
	return n;
}

/*
 * Small stacks: Go starts every goroutine on a 2 KiB stack and grows it by
 * copying. gmk's stacks never move (sudogs and select state live on them),
 * so a G gets its final stack at birth, and a G that asks for at most
 * G_STACK_SMALL bytes gets half a page from a pool (Go's stackpool, order
 * 0) instead of pages of its own. It has no guard page: one would cost
 * twice the stack. The stack's lowest word holds a canary instead, checked
 * whenever the G leaves its core (stackcheck, from dropg) and at every
 * tick that finds it running (stackcheck_sp), with its stack pointer: an
 * overflow is reported, naming the G, at its next switch or tick at the
 * latest, though by then it may have written over whatever lies below. A
 * fault elsewhere meanwhile is blamed on it too (sched_fault_describe).
 * Small stacks are for Gs of known, shallow depth: many parked waiters,
 * leaf workers.
 *
 * A pool page goes back to the page allocator as soon as both halves are
 * free, so the pool caches nothing (dead Gs cache their stacks already).
 */
#define STACK_CANARY	0x9e3779b97f4a7c15ull	/* lowest word of a live small stack */
#define STACK_POOL_FREE	0x5ca1ab1efee1deadull	/* lowest word of a free half */

struct pool_chunk {		/* a free half page, linked through itself */
	uint64_t magic;		/* STACK_POOL_FREE */
	struct pool_chunk *next, *prev;
};

static struct spinlock stackpool_lock = SPINLOCK_INIT("stackpool");
static struct pool_chunk *stackpool;

_Static_assert(2 * G_STACK_SMALL == PAGE_SIZE, "a pool page holds two small stacks");

static void pool_unlink(struct pool_chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		stackpool = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

static void pool_push(uintptr_t addr)
{
	struct pool_chunk *c = (struct pool_chunk *)addr;
	c->magic = STACK_POOL_FREE;
	c->prev = NULL;
	c->next = stackpool;
	if (stackpool)
		stackpool->prev = c;
	stackpool = c;
}

/* 0 when memory has run out. */
static uintptr_t stackpool_alloc(void)
{
	spin_lock(&stackpool_lock);
	if (!stackpool) {
		uintptr_t page = (uintptr_t)page_alloc_try(1);
		if (!page) {
			spin_unlock(&stackpool_lock);
			return 0;
		}
		pool_push(page);		/* the lower half stays free, */
		pool_push(page + G_STACK_SMALL);	/* the upper one goes first */
	}
	struct pool_chunk *c = stackpool;
	pool_unlink(c);
	spin_unlock(&stackpool_lock);
	return (uintptr_t)c;
}

static void stackpool_free(uintptr_t addr)
{
	struct pool_chunk *buddy = (struct pool_chunk *)(addr ^ G_STACK_SMALL);

	spin_lock(&stackpool_lock);
	if (buddy->magic == STACK_POOL_FREE) {
		pool_unlink(buddy);
		spin_unlock(&stackpool_lock);
		page_free((void *)(addr & ~(PAGE_SIZE - 1)), 1);
		return;
	}
	pool_push(addr);
	spin_unlock(&stackpool_lock);
}

/* Go's "fatal error: runtime: out of memory", naming what was asked for
 * and for which G. */
static __attribute__((noreturn)) void stack_oom(size_t bytes, uint64_t goid)
{
	if (bytes % 1024 == 0)
		fatal("out of memory allocating a goroutine stack (%zu KiB) for goroutine %llu",
		      bytes / 1024, (unsigned long long)goid);
	fatal("out of memory allocating a goroutine stack (%zu bytes) for goroutine %llu",
	      bytes, (unsigned long long)goid);
}

/* A stack of at least `bytes` for gp, which will be goroutine goid. */
static void stackalloc(struct g *gp, size_t bytes, uint64_t goid)
{
	if (bytes <= G_STACK_SMALL) {
		uintptr_t base = stackpool_alloc();
		if (!base)
			stack_oom(bytes, goid);
		*(volatile uint64_t *)base = STACK_CANARY;
		gp->stack_alloc = base;
		gp->stack_npages = 0;		/* 0: a pool stack */
		gp->stack_lo = base;
		gp->stack_hi = base + G_STACK_SMALL;
		return;
	}
	size_t npages = stack_npages(bytes);
	uintptr_t base = (uintptr_t)page_alloc_try(npages);
	if (!base)
		stack_oom(bytes, goid);
	arch_unmap_page(base);			/* the guard page */
	gp->stack_alloc = base;
	gp->stack_npages = npages;
	gp->stack_lo = base + PAGE_SIZE;
	gp->stack_hi = base + npages * PAGE_SIZE;
}

static void stackfree(struct g *gp)
{
	if (!gp->stack_alloc)
		return;
	if (gp->stack_npages == 0) {
		stackpool_free(gp->stack_alloc);
	} else {
		arch_map_page(gp->stack_alloc);
		page_free((void *)gp->stack_alloc, gp->stack_npages);
	}
	gp->stack_alloc = gp->stack_lo = gp->stack_hi = 0;
	gp->stack_npages = 0;
}

/* Is gp's small-stack canary broken? */
static bool small_canary_broken(struct g *gp)
{
	return gp->stack_npages == 0 && gp->stack_alloc &&
	       *(volatile uint64_t *)gp->stack_lo != STACK_CANARY;
}

static __attribute__((noreturn)) void stack_overflow(struct g *gp, uintptr_t sp,
						     const char *how)
{
	if (gp->stack_npages == 0)
		fatal("goroutine %llu: stack overflow (small stack 0x%lx-0x%lx, "
		      "no guard page: %s)", (unsigned long long)gp->goid,
		      (unsigned long)gp->stack_lo, (unsigned long)gp->stack_hi, how);
	fatal("goroutine %llu: stack overflow (stack 0x%lx-0x%lx, sp 0x%lx: %s)",
	      (unsigned long long)gp->goid, (unsigned long)gp->stack_lo,
	      (unsigned long)gp->stack_hi, (unsigned long)sp, how);
}

/*
 * stackcheck_sp: gp, running or just stopped with its stack pointer at
 * sp, must be inside its stack and, on a small stack, have its canary.
 * Called at every switch (dropg, with the saved sp) and at every tick
 * that lands on a running G (sched/preempt.c, with the interrupted sp),
 * so a G that overflows and then spins without switching is caught at
 * its next tick. The G is named from its own record: by then the
 * overflow may have written over whatever lies below its stack, but the
 * record is kmalloc'd apart from the stack (and from the stack pool).
 */
void stackcheck_sp(struct g *gp, uintptr_t sp)
{
	if (!gp->stack_alloc)
		return;			/* g0: the core's boot stack */
	if (sp && (sp < gp->stack_lo || sp > gp->stack_hi))
		stack_overflow(gp, sp, "its stack pointer is outside its stack");
	if (small_canary_broken(gp))
		stack_overflow(gp, sp, "its lowest word was overwritten");
}

void stackcheck(struct g *gp)
{
	stackcheck_sp(gp, gp->sched.sp);
}

/* allgadd: every G record ever made, for checkdead and the fault handler.
 * Records are never freed, so readers without the lock can walk the list
 * from a head read with load-acquire. */
static void allgadd(struct g *gp)
{
	spin_lock(&sched.allglock);
	gp->alllink = sched.allgs;
	atomic_storeuintptr((volatile uintptr_t *)&sched.allgs, (uintptr_t)gp);	/* release */
	sched.allglen++;
	spin_unlock(&sched.allglock);
}

/* gfput: a dead G onto pp's free list (owner only). */
void gfput(struct p *pp, struct g *gp)
{
	if (readgstatus(gp) != _Gdead)
		panic("gfput: goroutine %llu not dead", (unsigned long long)gp->goid);
	glist_push(&pp->gfree, gp);
	if (pp->gfree.size < GFREE_LOCAL_MAX)
		return;
	spin_lock(&sched.gfree_lock);
	while (pp->gfree.size > GFREE_LOCAL_KEEP)
		glist_push(&sched.gfree, glist_pop(&pp->gfree));
	spin_unlock(&sched.gfree_lock);
}

/* gfget: a dead G with a stack of at least `bytes`, or NULL; it will be
 * goroutine goid. */
static struct g *gfget(struct p *pp, size_t bytes, uint64_t goid)
{
	if (glist_empty(&pp->gfree) &&
	    __atomic_load_n(&sched.gfree.head, __ATOMIC_RELAXED) != NULL) {
		spin_lock(&sched.gfree_lock);
		while (pp->gfree.size < GFREE_LOCAL_KEEP && !glist_empty(&sched.gfree))
			glist_push(&pp->gfree, glist_pop(&sched.gfree));
		spin_unlock(&sched.gfree_lock);
	}
	struct g *gp = glist_pop(&pp->gfree);
	if (gp && gp->stack_hi - gp->stack_lo < bytes) {
		/* Too small for this request: give the stack back, keep
		 * the record. */
		stackfree(gp);
		stackalloc(gp, bytes, goid);
	}
	return gp;
}

/*
 * gfree_release_stacks: give the stacks of the dead Gs cached on this P
 * and on the global free list back to the page allocator; their records
 * stay for reuse (newproc1 gives a record without a stack a new one). Go
 * frees dead Gs' stacks at each GC (markrootFreeGStacks); gmk has no GC,
 * so the benchmarks call this before a memory figure. Other Ps' caches
 * are theirs alone (owner only) and keep at most GFREE_LOCAL_MAX Gs each.
 */
void gfree_release_stacks(void)
{
	preempt_disable();	/* pp's free list is used as its owner */
	for (struct g *gp = getm()->p->gfree.head; gp; gp = gp->schedlink)
		stackfree(gp);
	spin_lock(&sched.gfree_lock);
	for (struct g *gp = sched.gfree.head; gp; gp = gp->schedlink)
		stackfree(gp);
	spin_unlock(&sched.gfree_lock);
	preempt_enable();
}

/* The first function of every G: run its entry, then exit. */
static void gstart(void)
{
	struct g *gp = getg();
	gp->entry(gp->arg);
	goexit();
}

/*
 * newproc1: a runnable G that will run fn(arg) on a fresh stack of at
 * least stack_bytes. The caller queues it.
 */
struct g *newproc1(void (*fn)(void *), void *arg, long stack_bytes)
{
	if (stack_bytes <= 0)
		panic("go_stack: stack size %ld is not positive", stack_bytes);
	if (fn == NULL)
		panic("go: nil function");
	struct m *mp = getm();
	/* The id first, so that running out of memory can name the G. */
	uint64_t id = atomic_xadd64(&sched.goidgen, 1);
	struct g *newg = gfget(mp->p, (size_t)stack_bytes, id);
	if (!newg) {
		newg = kmalloc_try(sizeof *newg);
		if (!newg)
			fatal("out of memory allocating a goroutine record (%zu bytes) "
			      "for goroutine %llu", sizeof *newg, (unsigned long long)id);
		stackalloc(newg, (size_t)stack_bytes, id);
		casgstatus(newg, _Gidle, _Gdead);
		allgadd(newg);
	}
	newg->entry = fn;
	newg->arg = arg;
	newg->preempt = 0;
	newg->waitreason = 0;
	newg->stack_bytes = (uint32_t)stack_bytes;
	gobuf_init(&newg->sched, newg->stack_hi, gstart, newg);
	newg->goid = id;
	casgstatus(newg, _Gdead, _Grunnable);
	traceGoCreate(newg);
	return newg;
}

/*
 * go_stack / go (Go's newproc): the new G goes to this P's runnext, so it
 * runs soon and on this core's cache (the creator's G will usually block
 * or finish first); the G it displaces keeps its place in the queue. Then
 * wakep, so an idle core comes to steal if there is more to do.
 */
uint64_t go_stack(void (*fn)(void *), void *arg, long stack_bytes)
{
	/* Preemption off: newproc1's free list and runqput are "this P's",
	 * used as its owner; a G preempted halfway would resume elsewhere. */
	preempt_disable();
	struct g *newg = newproc1(fn, arg, stack_bytes);
	uint64_t id = newg->goid;	/* newg may run and exit at once */
	runqput(getm()->p, newg, true);
	if (atomic_load32(&mainstarted))
		wakep();
	preempt_enable();
	return id;
}

uint64_t go(void (*fn)(void *), void *arg)
{
	return go_stack(fn, arg, G_STACK_DEFAULT);
}

/*
 * The fault handler's question: is addr in a G's guard page? Walks allgs
 * without the lock (records are never freed; the head is published with
 * store-release), since the faulting core may hold any lock.
 */
const char *sched_fault_describe(uintptr_t addr, char *buf, unsigned len)
{
	struct g *gp = (struct g *)atomic_loaduintptr((volatile uintptr_t *)&sched.allgs);
	for (; gp; gp = gp->alllink) {
		uintptr_t guard = gp->stack_npages ? gp->stack_alloc : 0;
		if (guard && addr >= guard && addr < guard + PAGE_SIZE) {
			snprintf(buf, len, "goroutine %llu: stack overflow "
				 "(stack 0x%lx-0x%lx)",
				 (unsigned long long)gp->goid,
				 (unsigned long)gp->stack_lo,
				 (unsigned long)gp->stack_hi);
			return buf;
		}
	}
	/* Not a guard page. A small stack has none, so a fault anywhere
	 * may be the work of a G that overflowed one and wrote over what
	 * lay below (another G's stack, a pool chunk): if a small stack's
	 * canary is broken, that G is the cause to report, not whichever G
	 * tripped over the damage. */
	gp = (struct g *)atomic_loaduintptr((volatile uintptr_t *)&sched.allgs);
	for (; gp; gp = gp->alllink) {
		if (readgstatus(gp) != _Gdead && small_canary_broken(gp)) {
			snprintf(buf, len, "goroutine %llu: stack overflow "
				 "(small stack 0x%lx-0x%lx, no guard page: its lowest "
				 "word was overwritten)", (unsigned long long)gp->goid,
				 (unsigned long)gp->stack_lo, (unsigned long)gp->stack_hi);
			return buf;
		}
	}
	return NULL;
}
