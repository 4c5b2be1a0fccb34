/*
 * Making Gs: newproc (go / go_stack), the G records and the free lists
 * that recycle them, as in Go's proc.go. Their stacks are sched/stack.c's
 * (Go's stack.go): a record keeps a stack of another size than the
 * default when its G dies, for the next G that asks for no more; a
 * default-size stack goes back to its P's stack cache, and the next G
 * gets one when it first runs (stack.c says why).
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/compiler.h"
#include "kernel/kmalloc.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "sched/schedimpl.h"
#include "sched/tracebuf.h"

/*
 * Per-P free G cache: at GFREE_LOCAL_MAX, move Gs to the global list until
 * GFREE_LOCAL_KEEP remain; an empty P refills with GFREE_LOCAL_KEEP (Go's
 * gfput / gfget: 64 and 32). The Gs move as one chain, GFREE_BATCH at a
 * time, whose first G names its last (gfreelast): a refill takes a batch
 * without walking it. Go pops its 32 one at a time: each pop waits for
 * the G's link, last written on the core that freed it, one cache miss
 * after another.
 */
_Static_assert(GFREE_BATCH == GFREE_LOCAL_KEEP, "a refill takes one whole batch");

/* allgadd: every G record ever made, for checkdead and the fault handler.
 * Records are never freed, so readers without the lock can walk the list
 * from a head read with load-acquire. */
static void allgadd(struct g *gp)
{
	spin_lock(&sched.allglock);
	gp->alllink = sched.allgs;
	atomic_storeuintptr((volatile uintptr_t *)&sched.allgs, (uintptr_t)gp);	/* release */
	/* Atomic store (a plain one): num_goroutine reads it unlocked. */
	__atomic_store_n(&sched.allglen, sched.allglen + 1, __ATOMIC_RELAXED);
	spin_unlock(&sched.allglock);
}

/* gfput: a dead G onto pp's free list, a default-size stack into pp's
 * stack cache (owner only). */
void gfput(struct p *pp, struct g *gp)
{
	if (readgstatus(gp) != _Gdead)
		panic("gfput: goroutine %llu not dead", (unsigned long long)gp->goid);
	gfput_dead(pp, gp);
}

void gfput_spill(struct p *pp)
{
	/* The GFREE_BATCH at the head (freed last, on this core: their
	 * links are warm) go, as Go's pops take them. */
	struct g *first = pp->gfree.head, *last = first;
	for (int i = 1; i < GFREE_BATCH; i++)
		last = last->schedlink;
	pp->gfree.head = last->schedlink;
	/* The sizes by atomic stores (plain ones): num_goroutine. */
	__atomic_store_n(&pp->gfree.size, pp->gfree.size - GFREE_BATCH, __ATOMIC_RELAXED);
	first->gfreelast = last;
	spin_lock(&sched.gfree_lock);
	last->schedlink = sched.gfree.head;
	/* Atomic store: gfget peeks at the head without the lock. */
	__atomic_store_n(&sched.gfree.head, first, __ATOMIC_RELAXED);
	__atomic_store_n(&sched.gfree.size, sched.gfree.size + GFREE_BATCH, __ATOMIC_RELAXED);
	spin_unlock(&sched.gfree_lock);
}

/* gfget's refill: pp's list is empty and the global one is not. */
static __noinline void gfget_refill(struct p *pp)
{
	/* One batch, whole: its first and last G are all it reads. */
	spin_lock(&sched.gfree_lock);
	struct g *first = sched.gfree.head;
	if (first) {
		struct g *last = first->gfreelast;
		__atomic_store_n(&sched.gfree.head, last->schedlink, __ATOMIC_RELAXED);
		/* The sizes as in gfput. */
		__atomic_store_n(&sched.gfree.size, sched.gfree.size - GFREE_BATCH,
				 __ATOMIC_RELAXED);
		last->schedlink = NULL;
		first->gfreelast = NULL;
		pp->gfree.head = first;
		__atomic_store_n(&pp->gfree.size, GFREE_BATCH, __ATOMIC_RELAXED);
	}
	spin_unlock(&sched.gfree_lock);
}

/* gfget: a dead G record, or NULL. It may keep a stack (not of the
 * default size) that its last G had. Inline in newproc1, the refill out
 * of line. */
static __always_inline struct g *gfget(struct p *pp)
{
	if (glist_empty(&pp->gfree) &&
	    __atomic_load_n(&sched.gfree.head, __ATOMIC_RELAXED) != NULL)
		gfget_refill(pp);
	struct g *gp = glist_pop(&pp->gfree);
	/* The next go() on this P will most likely take the next dead G:
	 * start loading its record (two lines) now. A spawning loop then
	 * waits for one record at a time less. Go does not; its gfget has
	 * the same miss. */
	if (pp->gfree.head) {
		__builtin_prefetch(pp->gfree.head, 1);
		__builtin_prefetch((char *)pp->gfree.head + 64, 1);
	}
	return gp;
}

/*
 * G records: never freed (allgs keeps every G ever made, as Go's does),
 * so they are carved from whole pages with no per-record header and no
 * rounding to a kmalloc size class: a record costs sizeof(struct g),
 * rounded to 16 bytes. Apart from the stacks, so that an overflowing
 * small stack does not write over its own G's record.
 */
#define G_RECORD_BYTES ((sizeof(struct g) + 15) & ~(size_t)15)

static struct spinlock grecord_lock = SPINLOCK_INIT("grecord");
static uintptr_t grecord_next, grecord_end;
static uint64_t grecord_pages;

static struct g *grecord_alloc(void)
{
	spin_lock(&grecord_lock);
	if (grecord_end - grecord_next < G_RECORD_BYTES) {
		uintptr_t page = (uintptr_t)page_alloc_try(1);	/* zeroed */
		if (!page) {
			spin_unlock(&grecord_lock);
			return NULL;
		}
		grecord_next = page;
		grecord_end = page + PAGE_SIZE;
		grecord_pages++;
	}
	struct g *gp = (struct g *)grecord_next;
	grecord_next += G_RECORD_BYTES;
	spin_unlock(&grecord_lock);
	return gp;
}

size_t g_record_bytes(void)
{
	return G_RECORD_BYTES;
}

uint64_t g_record_pages_bytes(void)
{
	return __atomic_load_n(&grecord_pages, __ATOMIC_RELAXED) * PAGE_SIZE;
}

/*
 * num_goroutine: Go's gcount. Every G record ever made is on allgs and
 * never leaves it; the dead ones are on the free lists (each P's and the
 * global). So the Gs that exist are allglen less those lists, with no
 * counter to keep on go() or exit. The loads are relaxed and unlocked, as
 * Go's are: the figure is exact when no G starts or exits meanwhile, an
 * estimate otherwise (a list may be read mid-move), and never below 1, the
 * caller.
 */
int num_goroutine(void)
{
	/* Relaxed: allglen is written under allglock, the lists' sizes by
	 * their owner or under gfree_lock (atomic stores, for these loads);
	 * any recent value will do. */
	int64_t n = __atomic_load_n(&sched.allglen, __ATOMIC_RELAXED);
	n -= __atomic_load_n(&sched.gfree.size, __ATOMIC_RELAXED);
	uint32_t np = __atomic_load_n(&sched.nprocs, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < np; i++)
		n -= __atomic_load_n(&allp[i]->gfree.size, __ATOMIC_RELAXED);
	return n < 1 ? 1 : (int)n;
}

/* The first function of every G (goentry jumps here, kernel/gobuf.h): run
 * its entry, then exit. */
__attribute__((noreturn)) void gstart(void)
{
	struct g *gp = getg();
	gp->entry(gp->arg);
	goexit();
}

/*
 * newproc1: a runnable G that will run fn(arg) on a fresh stack of at
 * least stack_bytes; gostmt: made by a go statement (a caller that
 * inlines it), not by the scheduler (the main G). The caller queues it.
 * Inline in go_stack; sched_main calls it out of line (schedimpl.h
 * declares it without `inline`, which makes this C99's external
 * definition as well).
 */
__always_inline struct g *newproc1(void (*fn)(void *), void *arg, long stack_bytes,
				   bool gostmt)
{
	if (stack_bytes <= 0)
		panic("go_stack: stack size %ld is not positive", stack_bytes);
	if (fn == NULL)
		panic("go: nil function");
	struct m *mp = getm();
	/* The id first, so that running out of memory can name the G. */
	uint64_t id = atomic_xadd64(&sched.goidgen, 1);
	struct g *newg = gfget(mp->p);
	if (!newg) {
		newg = grecord_alloc();
		if (!newg)
			fatal("out of memory allocating a goroutine record (%zu bytes) "
			      "for goroutine %llu", G_RECORD_BYTES, (unsigned long long)id);
		setgstatus(newg, _Gidle, _Gdead);
		allgadd(newg);
	}
	size_t bytes = (size_t)stack_bytes;
	if (likely(newg->stack_hi - newg->stack_lo < bytes)) {
		/* No stack kept with the record, or too small a one. A
		 * default-size stack comes at the first run (gstack_attach);
		 * any other size now. */
		if (newg->stack_alloc)
			stackfree(newg);
		if (stack_npages(bytes) != STACK_DEFAULT_NPAGES)
			stackalloc(newg, bytes, id);
	}
	/* Atomic (plain stores): the watchdog may still be naming the G
	 * this record was (proc.c, watchdog_check). */
	__atomic_store_n(&newg->entry, fn, __ATOMIC_RELAXED);
	newg->arg = arg;
	/* gopc, and waitreason, preempt, lockedext cleared (runtime2.h):
	 * a pc's upper half is 0 (sched_main checks), so no mask. Inline
	 * in go, go_stack and go_copy_stack (gostmt): their return address
	 * is the go statement's. Read here, not passed in, so that it is
	 * not held across the calls above. */
	newg->spawnword = gostmt ? (uintptr_t)__builtin_return_address(0) : 0;
	newg->parentgoid = getg()->goid;
	gobuf_init(&newg->sched, newg);
	if (newg->stack_hi)
		gobuf_set_stack(&newg->sched, newg->stack_hi);
	__atomic_store_n(&newg->goid, id, __ATOMIC_RELAXED);
	setgstatus(newg, _Gdead, _Grunnable);
	traceGoCreate(newg);
	return newg;
}

/*
 * A go_copy argument over G_ARG_INLINE bytes: a kmalloc block with the
 * G's function before the copy. The G starts at go_copy_heap_start, and
 * goexit0 knows such a G by that entry and frees the block, whether the
 * function returned or called goexit. A flag in the record would have
 * cost every exit a look at the record's third line.
 */
struct heapcopy {
	void (*fn)(void *);
	_Alignas(16) unsigned char data[];
};

void go_copy_heap_start(void *block)
{
	struct heapcopy *h = block;
	h->fn(h->data);
}

/*
 * go_stack / go (Go's newproc): the new G goes to this P's runnext, so it
 * runs soon and on this core's cache (the creator's G will usually block
 * or finish first); the G it displaces keeps its place in the queue. Then
 * wakep, so an idle core comes to steal if there is more to do. go_copy's
 * argument is copied into the record, or a kmalloc block, before the G
 * can run: copysize is 0 for go and go_stack, and the copy folds away
 * there.
 */
static __always_inline uint64_t
newproc(void (*fn)(void *), void *arg, long stack_bytes, size_t copysize)
{
	struct heapcopy *h = NULL;
	if (copysize > G_ARG_INLINE) {	/* before preemption goes off */
		h = kmalloc(sizeof *h + copysize);
		h->fn = fn;
		memcpy(h->data, arg, copysize);
		fn = go_copy_heap_start;
		arg = h;
	}
	/* Preemption off: newproc1's free list and runqput are "this P's",
	 * used as its owner; a G preempted halfway would resume elsewhere. */
	preempt_disable();
	struct g *newg = newproc1(fn, arg, stack_bytes, true);
	if (copysize && !h) {
		memcpy(newg->argbuf, arg, copysize);
		newg->arg = newg->argbuf;
	}
	uint64_t id = newg->goid;	/* newg may run and exit at once */
	struct p *pp = getm()->p;
	struct g *old = runnext_swap(pp, newg);	/* runqput(pp, newg, true) */
	if (old && !runqput_ring(pp, old))
		runqput(pp, old, false);
	if (atomic_load32(&mainstarted))
		wakep();
	preempt_enable();
	return id;
}

uint64_t go_stack(void (*fn)(void *), void *arg, long stack_bytes)
{
	return newproc(fn, arg, stack_bytes, 0);
}

uint64_t go(void (*fn)(void *), void *arg)
{
	return newproc(fn, arg, G_STACK_DEFAULT, 0);
}

/* go_copy_stack's body, inline in go_copy too, so that gopc is the
 * caller's whichever of the two it called. */
static __always_inline uint64_t
newproc_copy(void (*fn)(void *), const void *arg, size_t size, long stack_bytes)
{
	if (size == 0)
		return newproc(fn, NULL, stack_bytes, 0);
	if (fn == NULL)			/* before a heap copy hides it */
		panic("go: nil function");
	if (!arg)
		panic("go_copy: nil argument of %zu bytes", size);
	return newproc(fn, (void *)arg, stack_bytes, size);
}

uint64_t go_copy_stack(void (*fn)(void *), const void *arg, size_t size, long stack_bytes)
{
	return newproc_copy(fn, arg, size, stack_bytes);
}

uint64_t go_copy(void (*fn)(void *), const void *arg, size_t size)
{
	return newproc_copy(fn, arg, size, G_STACK_DEFAULT);
}
