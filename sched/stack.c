/*
 * G stacks, as Go's stack.go: their allocation, the caches that recycle
 * them, and the checks that catch an overflow.
 *
 * A G's stack comes from the page allocator (default-size ones in
 * batches, below) with its lowest page unmapped: a guard page, so that
 * an overflow faults at once and the fault handler can name the G
 * (sched_fault_describe).
 *
 * Where gmk departs from Go: a G that asks for the default stack gets it
 * when it first runs (gstack_attach, from execute), not when it is made,
 * and gives it back when it exits, to a per-P cache of default stacks
 * (LIFO, owner only, spilling to a global list as the free G records
 * do). Go's newproc1 takes a dead G with its stack, or allocates one; its
 * Gs hold a stack from birth. gmk's stacks do not move or grow, so a
 * default stack is 16 KiB against Go's 2 KiB to start, and one G that
 * starts 100,000 others (bench fanout) would hold 100,000 of them, 2 GB
 * with their guards, before most have run. Attached at the first run, a G that has not run costs its record only, and the Gs that run
 * one after another on a P take the stack the last one left, still in
 * the cache and the TLB, instead of one each that the spawner's queue
 * has long evicted (docs/performance.md). Stacks of other sizes (small
 * pool stacks, bigger ones) are allocated when the G is made and stay
 * with its record when it dies, for the next G that asks for no more.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/compiler.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "sched/schedimpl.h"

/*
 * Small stacks: Go starts every goroutine on a 2 KiB stack and grows it by
 * copying. gmk's stacks never move (sudogs and select state live on them),
 * so a G gets its final stack at birth, and a G that asks for at most
 * G_STACK_SMALL bytes gets a piece of a page from a pool (Go's stackpool,
 * orders 0 and 1: 1 KiB and 2 KiB here) instead of pages of its own. It
 * has no guard page of its own: one would cost twice to four times the
 * stack. The stack's lowest word holds a canary instead, checked
 * whenever the G leaves its core (stackcheck, from dropg) and at every
 * tick that finds it running (stackcheck_sp), with its stack pointer.
 * Small stacks are for Gs of known, shallow depth: many parked waiters,
 * leaf workers.
 *
 * The pool's pages come in runs of STACK_POOL_RUN_PAGES, aligned to their
 * size, whose lowest page is an unmapped guard. An overflow of a pool
 * stack therefore writes over the pool stacks below it in its run at
 * most, never over memory that is not a pool stack (G records, the heap,
 * pages of other stacks), and if it goes on it faults at the run's guard,
 * where the fault handler names the G that faulted, the one whose stack
 * pointer left its stack (sched_fault_describe); a shorter overflow is
 * named at the G's next switch or tick, though by then it may have
 * written over its neighbours below. The guard costs one page in
 * STACK_POOL_RUN_PAGES, 1/31 more per stack. A guard page per stack
 * would cost two to four times the stack; Go's way, a bound check in
 * every function prologue (its stack spans are runs of pieces too), is
 * not one gcc 12 emits on both architectures (-fstack-limit-register
 * emits no check on either, -fsplit-stack is x86 only), and instrumenting
 * every function (-finstrument-functions) would cost every call in the
 * kernel for the Gs on small stacks. Each run serves one size class;
 * the lowest piece goes out first, so a run's first G overflows
 * straight into the guard.
 *
 * A fresh pool stack is zeroed (painted) so that its deepest use can be
 * measured (stack_small_used). A run goes back to the page allocator as
 * soon as all its pieces are free, so the pool caches nothing (dead Gs
 * cache their stacks already).
 */
#define STACK_POOL_FREE	0x5ca1ab1efee1deadull	/* lowest word of a free piece */
#define STACK_NPOOL	2			/* classes: G_STACK_MIN << i */
#define STACK_POOL_RUN_BYTES	(STACK_POOL_RUN_PAGES * PAGE_SIZE)

struct pool_chunk {		/* a free piece, linked through itself */
	uint64_t magic;		/* STACK_POOL_FREE */
	struct pool_chunk *next, *prev;
};

static struct spinlock stackpool_lock = SPINLOCK_INIT("stackpool");
static struct pool_chunk *stackpool[STACK_NPOOL];

_Static_assert((G_STACK_MIN << (STACK_NPOOL - 1)) == G_STACK_SMALL,
	       "the largest pool class is G_STACK_SMALL");
_Static_assert(PAGE_SIZE % G_STACK_SMALL == 0, "pool pieces tile a page");
_Static_assert((STACK_POOL_RUN_PAGES & (STACK_POOL_RUN_PAGES - 1)) == 0,
	       "a pool run is found by masking a piece's address");

static unsigned pool_class(size_t bytes)
{
	unsigned k = 0;
	while ((size_t)G_STACK_MIN << k < bytes)
		k++;
	return k;
}

static void pool_unlink(unsigned k, struct pool_chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		stackpool[k] = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

static void pool_push(unsigned k, uintptr_t addr)
{
	struct pool_chunk *c = (struct pool_chunk *)addr;
	c->magic = STACK_POOL_FREE;
	c->prev = NULL;
	c->next = stackpool[k];
	if (stackpool[k])
		stackpool[k]->prev = c;
	stackpool[k] = c;
}

/* The run a piece is in: its guard page's address. */
static uintptr_t pool_run(uintptr_t piece)
{
	return piece & ~(uintptr_t)(STACK_POOL_RUN_BYTES - 1);
}

/* A piece of class k, or 0 when memory has run out. */
static uintptr_t stackpool_alloc(unsigned k)
{
	size_t size = (size_t)G_STACK_MIN << k;

	spin_lock(&stackpool_lock);
	while (!stackpool[k]) {
		/* A new run, guarded outside the lock (a TLB shootdown). */
		spin_unlock(&stackpool_lock);
		uintptr_t run = (uintptr_t)page_alloc_aligned_nozero_try(STACK_POOL_RUN_PAGES);
		if (!run)
			return 0;
		arch_unmap_page(run);
		spin_lock(&stackpool_lock);
		/* Highest first: the lowest, above the guard, goes first. */
		for (uintptr_t a = run + STACK_POOL_RUN_BYTES - size; a >= run + PAGE_SIZE;
		     a -= size)
			pool_push(k, a);
	}
	struct pool_chunk *c = stackpool[k];
	pool_unlink(k, c);
	spin_unlock(&stackpool_lock);
	memset(c, 0, size);		/* the paint for stack_small_used */
	return (uintptr_t)c;
}

static void stackpool_free(uintptr_t addr, size_t size)
{
	unsigned k = pool_class(size);
	uintptr_t run = pool_run(addr);
	uintptr_t first = run + PAGE_SIZE, end = run + STACK_POOL_RUN_BYTES;

	spin_lock(&stackpool_lock);
	/* From the bottom, where pieces in use gather: usually over at the
	 * first piece. */
	bool all_free = true;
	for (uintptr_t a = first; a < end && all_free; a += size)
		if (a != addr && ((struct pool_chunk *)a)->magic != STACK_POOL_FREE)
			all_free = false;
	if (all_free) {
		for (uintptr_t a = first; a < end; a += size)
			if (a != addr)
				pool_unlink(k, (struct pool_chunk *)a);
		spin_unlock(&stackpool_lock);
		arch_map_page(run);
		page_free((void *)run, STACK_POOL_RUN_PAGES);
		return;
	}
	pool_push(k, addr);
	spin_unlock(&stackpool_lock);
}

size_t stack_small_used(const struct g *gp)
{
	if (gp->stack_npages != 0 || !gp->stack_alloc)
		return 0;
	const uint64_t *w = (const uint64_t *)gp->stack_lo + 1;	/* above the canary */
	while ((uintptr_t)w < gp->stack_hi && *w == 0)
		w++;
	return gp->stack_hi - (uintptr_t)w;
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

/*
 * Default-size stacks are carved from a batch of G_STACK_BATCH allocated at
 * once, as Go refills a P's stack cache with half a cache's worth
 * (stackcacherefill), for the guard page's sake. Unmapping a page that
 * has been written costs a TLB shootdown on every core that runs the
 * kernel: on the hosted board, Linux interrupts each core that runs one
 * of its threads, for a guard marker (arch/x86_64-linux/cpu.c) as for an
 * mprotect, which a page never written spares. A fresh batch has had at most its
 * first page written (the page allocator's free-list link), so all its
 * other guards are unmapped without a shootdown; there the stacks are
 * not zeroed either (stack_pages_alloc, below), so a G faults in only
 * the pages it uses. A slot is a plain run of pages: stackfree gives one
 * back on its own.
 * The batch's unused slots count as in use until taken or until
 * gfree_release_stacks gives them back.
 */

/*
 * Pages for stacks. Not zeroed on the hosted board, where zeroing costs
 * the stores and a page fault for each page a G may never touch. Zeroed
 * on the bare-metal boards, where it is cheap, because under QEMU's TCG a
 * page that code ran from before gmk started (firmware or loader code)
 * keeps its translated blocks until the bytes of each are written, and
 * every store to the page takes the emulator's slow path meanwhile: a G
 * whose stack lands there runs slower by orders of magnitude. Zeroing
 * writes every byte once and drops them.
 */
static void *stack_pages_alloc(size_t npages)
{
#ifdef GMK_HOSTED
	return page_alloc_nozero_try(npages);
#else
	return page_alloc_try(npages);
#endif
}

static struct spinlock stackbatch_lock = SPINLOCK_INIT("stackbatch");
static uintptr_t stackbatch_next, stackbatch_end;	/* the unused slots */

/* A default-size stack's pages (guard still mapped), or 0 when no batch
 * can be had; the caller then asks for the one stack alone. */
static uintptr_t stackbatch_take(void)
{
	const size_t slot = STACK_DEFAULT_NPAGES * PAGE_SIZE;

	spin_lock(&stackbatch_lock);
	if (stackbatch_next == stackbatch_end) {
		uintptr_t run = (uintptr_t)stack_pages_alloc(G_STACK_BATCH *
							     STACK_DEFAULT_NPAGES);
		if (!run) {
			spin_unlock(&stackbatch_lock);
			return 0;
		}
		stackbatch_next = run;
		stackbatch_end = run + G_STACK_BATCH * slot;
	}
	uintptr_t base = stackbatch_next;
	stackbatch_next += slot;
	spin_unlock(&stackbatch_lock);
	return base;
}

/* Give the batch's unused slots back to the page allocator. */
static void stackbatch_release(void)
{
	spin_lock(&stackbatch_lock);
	if (stackbatch_next != stackbatch_end)
		page_free((void *)stackbatch_next,
			  (stackbatch_end - stackbatch_next) / PAGE_SIZE);
	stackbatch_next = stackbatch_end = 0;
	spin_unlock(&stackbatch_lock);
}

/*
 * The default-size stack caches: each P's (p.stackcache, owner only) and a
 * global list for what the Ps spill, under stackfree_lock. A free stack
 * is named by its base (guard page first) and linked through its top
 * word, the line its next G's first frame uses anyway. The limits are
 * those of the free G records (gproc.c), since each dead G leaves one
 * stack (Go's stackcache keeps 32 KiB per size class; its stacks start at
 * 2 KiB).
 */
#define STACKCACHE_MAX	64
#define STACKCACHE_KEEP	32

static struct spinlock stackfree_lock = SPINLOCK_INIT("stackfree");
/* Bases, linked as the caches. Written under stackfree_lock with atomic
 * stores (plain ones on both architectures): stackcache_refill peeks at
 * it without the lock. */
static uintptr_t stackfree_list;

static inline void stackfree_list_set(uintptr_t s)
{
	__atomic_store_n(&stackfree_list, s, __ATOMIC_RELAXED);
}

static inline uintptr_t *stack_link(uintptr_t base)
{
	return (uintptr_t *)(base + STACK_DEFAULT_NPAGES * PAGE_SIZE) - 1;
}

/* The cache is empty: refill half of it from the global list, or make a
 * stack. Returns one stack (its base), taken. */
static __noinline uintptr_t stackcache_refill(struct p *pp, uint64_t goid)
{
	if (__atomic_load_n(&stackfree_list, __ATOMIC_RELAXED) != 0) {
		spin_lock(&stackfree_lock);
		while (pp->nstackcache < STACKCACHE_KEEP && stackfree_list) {
			uintptr_t s = stackfree_list;
			stackfree_list_set(*stack_link(s));
			*stack_link(s) = pp->stackcache;
			pp->stackcache = s;
			pp->nstackcache++;
		}
		spin_unlock(&stackfree_lock);
		uintptr_t s = pp->stackcache;
		if (s) {
			pp->stackcache = *stack_link(s);
			pp->nstackcache--;
			return s;
		}
	}
	uintptr_t base = stackbatch_take();
	if (!base)
		base = (uintptr_t)stack_pages_alloc(STACK_DEFAULT_NPAGES);
	if (!base)
		stack_oom(G_STACK_DEFAULT, goid);
	arch_unmap_page(base);			/* the guard page */
	return base;
}

uintptr_t stackcache_get(struct p *pp, uint64_t goid)
{
	uintptr_t s = pp->stackcache;
	if (unlikely(s == 0))
		return stackcache_refill(pp, goid);
	pp->stackcache = *stack_link(s);
	pp->nstackcache--;
	return s;
}

void stackcache_put(struct p *pp, uintptr_t base)
{
	*stack_link(base) = pp->stackcache;
	pp->stackcache = base;
	if (++pp->nstackcache < STACKCACHE_MAX)
		return;
	spin_lock(&stackfree_lock);
	while (pp->nstackcache > STACKCACHE_KEEP) {
		uintptr_t s = pp->stackcache;
		pp->stackcache = *stack_link(s);
		pp->nstackcache--;
		*stack_link(s) = stackfree_list;
		stackfree_list_set(s);
	}
	spin_unlock(&stackfree_lock);
}

/* A list of free default-size stacks (linked as the caches), each one's
 * pages back to the page allocator. */
static void stack_default_free_list(uintptr_t list)
{
	while (list) {
		uintptr_t s = list;
		list = *stack_link(s);
		arch_map_page(s);
		page_free((void *)s, STACK_DEFAULT_NPAGES);
	}
}

/*
 * gstack_attach: gp, about to run for the first time on pp (execute), gets
 * a default-size stack from pp's cache. Out of memory here is fatal, as
 * it would have been in go(), and names the G.
 */
void gstack_attach(struct p *pp, struct g *gp)
{
	uintptr_t base = stackcache_get(pp, gp->goid);
	gp->stack_alloc = base;
	gp->stack_npages = STACK_DEFAULT_NPAGES;
	gp->stack_lo = base + PAGE_SIZE;
	gp->stack_hi = base + STACK_DEFAULT_NPAGES * PAGE_SIZE;
	gobuf_set_stack(&gp->sched, gp->stack_hi);
}

void stackalloc(struct g *gp, size_t bytes, uint64_t goid)
{
	if (bytes <= G_STACK_SMALL) {
		unsigned k = pool_class(bytes);
		uintptr_t base = stackpool_alloc(k);
		if (!base)
			stack_oom(bytes, goid);
		*(volatile uint64_t *)base = STACK_CANARY;
		gp->stack_alloc = base;
		gp->stack_npages = 0;		/* 0: a pool stack */
		gp->stack_lo = base;
		gp->stack_hi = base + ((size_t)G_STACK_MIN << k);
		return;
	}
	/* Default-size stacks come from gstack_attach, not here. */
	size_t npages = stack_npages(bytes);
	uintptr_t base = (uintptr_t)stack_pages_alloc(npages);
	if (!base)
		stack_oom(bytes, goid);
	arch_unmap_page(base);			/* the guard page */
	gp->stack_alloc = base;
	gp->stack_npages = npages;
	gp->stack_lo = base + PAGE_SIZE;
	gp->stack_hi = base + npages * PAGE_SIZE;
}

void stackfree(struct g *gp)
{
	if (!gp->stack_alloc)
		return;
	if (gp->stack_npages == 0) {
		stackpool_free(gp->stack_alloc, gp->stack_hi - gp->stack_lo);
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

/* The G whose pool stack starts where gp's ends, the piece above it in
 * its run (a dead G's record keeps its pool stack), or NULL. Walks allgs
 * without the lock, as sched_fault_describe does. */
static struct g *pool_g_above(const struct g *gp)
{
	uintptr_t hi = gp->stack_hi;
	if (pool_run(hi) != pool_run(gp->stack_lo))
		return NULL;		/* the run's top piece */
	struct g *up = (struct g *)atomic_loaduintptr((volatile uintptr_t *)&sched.allgs);
	for (; up; up = up->alllink)
		if (up->stack_npages == 0 && up->stack_alloc && up->stack_lo == hi)
			return up;
	return NULL;
}

/*
 * Whose overflow broke gp's canary? A small stack has no guard, so a G
 * that overflows one writes down into the pool stacks below it: their
 * canaries break with its own, and the first of them to be checked may
 * be a neighbour that did nothing but sleep. Of gp and the Gs whose
 * stacks lie right above it in its run, one over the other, each with
 * its canary broken, the topmost is the one whose frames went down
 * through the others'.
 */
static struct g *small_overflow_culprit(struct g *gp)
{
	struct g *up;
	while ((up = pool_g_above(gp)) != NULL && small_canary_broken(up))
		gp = up;
	return gp;
}

static void stack_overflow_msg(char *buf, size_t len, struct g *gp, uintptr_t sp,
			       const char *how)
{
	if (gp->stack_npages == 0)
		snprintf(buf, len, "goroutine %llu: stack overflow (small stack 0x%lx-0x%lx, "
			 "no guard page of its own: %s)", (unsigned long long)gp->goid,
			 (unsigned long)gp->stack_lo, (unsigned long)gp->stack_hi, how);
	else
		snprintf(buf, len, "goroutine %llu: stack overflow (stack 0x%lx-0x%lx, "
			 "sp 0x%lx: %s)", (unsigned long long)gp->goid,
			 (unsigned long)gp->stack_lo, (unsigned long)gp->stack_hi,
			 (unsigned long)sp, how);
}

static __attribute__((noreturn)) void stack_overflow(struct g *gp, uintptr_t sp,
						     const char *how)
{
	char msg[200];

	stack_overflow_msg(msg, sizeof msg, gp, sp, how);
	fatal("%s", msg);
}

/*
 * stackcheck_sp: gp, running or just stopped with its stack pointer at
 * sp, must be inside its stack and, on a small stack, have its canary.
 * Called at every switch (dropg, with the saved sp) and at every tick
 * that lands on a running G (sched/preempt.c, with the interrupted sp),
 * so a G that overflows and then spins without switching is caught at
 * its next tick. The G is named from its own record: by then the
 * overflow may have written over whatever lies below its stack, but the
 * record is allocated apart from the stack (and from the stack pool).
 */
void stackcheck_sp(struct g *gp, uintptr_t sp)
{
	if (!gp->stack_alloc)
		return;			/* g0: the core's boot stack */
	if (sp && (sp < gp->stack_lo || sp > gp->stack_hi))
		stack_overflow(gp, sp, "its stack pointer is outside its stack");
	if (small_canary_broken(gp)) {
		struct g *culprit = small_overflow_culprit(gp);
		if (culprit != gp) {
			char how[80];
			snprintf(how, sizeof how, "it wrote on down into goroutine %llu's stack",
				 (unsigned long long)gp->goid);
			stack_overflow(culprit, 0, how);
		}
		stack_overflow(gp, sp, "its lowest word was overwritten");
	}
}

/*
 * gfree_release_stacks: give the free stacks cached on this P and on the
 * global lists (the default-size stack caches, and the stacks that dead
 * G records keep) back to the page allocator; the records stay for
 * reuse. Go frees dead Gs' stacks at each GC (markrootFreeGStacks); gmk
 * has no GC, so the benchmarks call this before a memory figure. Other
 * Ps' caches are theirs alone (owner only) and keep at most a free
 * list's worth of records and STACKCACHE_MAX stacks each.
 */
void gfree_release_stacks(void)
{
	preempt_disable();	/* pp's lists are used as their owner */
	struct p *pp = getm()->p;
	for (struct g *gp = pp->gfree.head; gp; gp = gp->schedlink)
		stackfree(gp);
	stack_default_free_list(pp->stackcache);
	pp->stackcache = 0;
	pp->nstackcache = 0;
	spin_lock(&sched.gfree_lock);
	for (struct g *gp = sched.gfree.head; gp; gp = gp->schedlink)
		stackfree(gp);
	spin_unlock(&sched.gfree_lock);
	spin_lock(&stackfree_lock);
	uintptr_t list = stackfree_list;
	stackfree_list_set(0);
	spin_unlock(&stackfree_lock);
	stack_default_free_list(list);
	stackbatch_release();
	preempt_enable();
}

/*
 * The fault handler's question: is this a G's stack overflow, and whose?
 * First the G that faulted, the one running here: a G that overflows
 * faults itself, with its stack pointer below its stack, or writing to
 * the first guard page below it (its own for a stack of pages; its run's
 * for a pool stack, which may lie below other Gs' pool stacks: naming
 * the guard's owner would name the wrong G). The bounds are those of
 * its own stack and the guard beneath, so a fault in an interrupt
 * handler (on another stack, this G's code interrupted) is not taken
 * for its overflow. Then any G's guard page, and any small stack's
 * broken canary. Walks allgs without the lock (records are never freed;
 * the head is published with store-release), since the faulting core
 * may hold any lock.
 */
const char *sched_fault_describe(uintptr_t addr, uintptr_t sp, char *buf, unsigned len)
{
	struct g *gp = arch_getg();
	if (gp && gp->stack_alloc) {		/* not g0: the core's boot stack */
		uintptr_t guard = gp->stack_npages ? gp->stack_alloc : pool_run(gp->stack_lo);
		if (sp >= guard && sp < gp->stack_lo) {
			stack_overflow_msg(buf, len, gp, sp, "its stack pointer is below its stack");
			return buf;
		}
		if (addr >= guard && addr < guard + PAGE_SIZE) {
			stack_overflow_msg(buf, len, gp, sp, gp->stack_npages
					   ? "it wrote to its guard page"
					   : "it wrote to the guard page below its run of pool stacks");
			return buf;
		}
	}
	gp = (struct g *)atomic_loaduintptr((volatile uintptr_t *)&sched.allgs);
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
			struct g *culprit = small_overflow_culprit(gp);
			char how[80] = "its lowest word was overwritten";
			if (culprit != gp)
				snprintf(how, sizeof how, "it wrote on down into goroutine "
					 "%llu's stack", (unsigned long long)gp->goid);
			stack_overflow_msg(buf, len, culprit, 0, how);
			return buf;
		}
	}
	return NULL;
}
