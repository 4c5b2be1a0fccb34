/*
 * The execution tracer (trace= on the command line): every P records what
 * its Gs do in a buffer of its own, for tools/gmktrace to turn into Go's
 * execution-trace format (`go tool trace`) and Chrome/Perfetto JSON.
 *
 * The hooks keep Go's names (runtime/trace.go: traceGoCreate, traceGoStart,
 * traceGoPark, traceGoUnpark, traceGoSched, traceGoPreempt, traceGoEnd,
 * traceProcStart, traceProcStop) and sit at the same places in sched/ as
 * in proc.go. Off (the default) each is one load of trace_enabled and a
 * branch predicted not taken.
 *
 * Record layout (the dump format is described in sched/tracebuf.c): three
 * 64-bit words, the counter value (arch_counter, the counter behind
 * nanotime; one clock for every core) with the event type in its low 8
 * bits, then two arguments.
 */
#ifndef GMK_SCHED_TRACEBUF_H
#define GMK_SCHED_TRACEBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/compiler.h"
#include "sched/runtime2.h"
#include "sched/sched.h"

/* Event types; the numbers are part of the dump format (tools/gmktrace). */
enum traceev {
	traceEvNone = 0,
	traceEvProcStart,	/* a = M (core) id: the P is busy */
	traceEvProcStop,	/* the P goes idle */
	traceEvGoCreate,	/* a = new goid, b = entry function */
	traceEvGoStart,		/* a = goid, b = 1 if it inherits the slice (runnext) */
	traceEvGoPark,		/* a = goid, b = enum waitreason */
	traceEvGoUnpark,	/* a = goid readied, b = goid of the readier (0 = g0) */
	traceEvGoSched,		/* a = goid: gosched (yield) */
	traceEvGoPreempt,	/* a = goid, b = 1 async (interrupt), 0 safe point */
	traceEvGoEnd,		/* a = goid */
	traceEvSteal,		/* a = victim P, b = Gs taken */
	traceEvTimerFire,	/* a = callback, b = P whose heap held it */
	traceEvStack,		/* a, b = return addresses (0: none) that go on
				 * with the stack of the GoCreate or GoUnpark
				 * just before it on this P */
	traceEvCount
};

/* Return addresses kept per stack (traceEvGoCreate, traceEvGoUnpark): in
 * two traceEvStack records at most. */
#define TRACE_STACK_PCS	4

/* Written once, before the other cores enter the scheduler, and at the
 * dump; read with a plain load by the hooks (a stale true at the dump only
 * adds an event past the recorded length, which is not read). Not
 * volatile: x86-64 then tests it in memory (cmpb), one instruction less
 * at each of a switch's two or three hooks; the writers use
 * __atomic stores, and trace_event reads it again with a load-acquire. */
extern bool trace_enabled;

void trace_event(uint32_t type, uint64_t a, uint64_t b);
/* trace_event, then the stack of the site that called the hook: Go
 * records one with GoCreate and GoUnblock, and `go tool trace` builds its
 * scheduler-latency profile from them (tracebuf.c). */
void trace_event_stack(uint32_t type, uint64_t a, uint64_t b);
/* schedinit: parse trace= and allocate the buffers. */
void trace_init(void);
/* kernel_main_g, before the machine stops: write the buffers out. */
void trace_dump(void);

/* ThreadSanitizer would call the plain load a race with trace_dump's
 * store; its builds read it as the relaxed atomic it is. */
#ifdef GMK_HOST_BUILTIN_ATOMICS
#define TRACE_ENABLED() __atomic_load_n(&trace_enabled, __ATOMIC_RELAXED)
#else
#define TRACE_ENABLED() (trace_enabled)
#endif

#define TRACE_HOOK_(fn, type, a, b)                                          \
	do {                                                                 \
		if (unlikely(TRACE_ENABLED()))                    \
			fn((type), (uint64_t)(a), (uint64_t)(b));            \
	} while (0)
#define TRACE_HOOK(type, a, b) TRACE_HOOK_(trace_event, type, a, b)
#define TRACE_HOOK_STACK(type, a, b) TRACE_HOOK_(trace_event_stack, type, a, b)

static inline void traceProcStart(struct m *mp) { TRACE_HOOK(traceEvProcStart, mp->id, 0); }
static inline void traceProcStop(void) { TRACE_HOOK(traceEvProcStop, 0, 0); }
/*
 * The function a G is shown by: its entry, or for a runtime wrapper that
 * runs the program's function (go_copy's heap start, errgroup's eg_run)
 * that function, which the wrapper's argument starts with. Go shows the
 * function of the go statement; here the program's is the one to show.
 * tools/gmk-gdb.py applies the same rule.
 */
void go_copy_heap_start(void *block);
void eg_run(void *p);

static inline uintptr_t g_startpc(const struct g *gp)
{
	void (*fn)(void *) = gp->entry;
	if (fn == go_copy_heap_start || fn == eg_run)
		return *(const uintptr_t *)gp->arg;
	return (uintptr_t)fn;
}

static inline void traceGoCreate(struct g *newg)
{
	TRACE_HOOK_STACK(traceEvGoCreate, newg->goid, g_startpc(newg));
}
static inline void traceGoStart(struct g *gp, bool inherit)
{
	TRACE_HOOK(traceEvGoStart, gp->goid, inherit);
}
static inline void traceGoPark(struct g *gp) { TRACE_HOOK(traceEvGoPark, gp->goid, gp->waitreason); }
/* The readier is the running G (g0, goid 0, when the scheduler readies:
 * timers, a failed park). */
static inline void traceGoUnpark(struct g *gp)
{
	TRACE_HOOK_STACK(traceEvGoUnpark, gp->goid, getg()->goid);
}
static inline void traceGoSched(struct g *gp) { TRACE_HOOK(traceEvGoSched, gp->goid, 0); }
static inline void traceGoPreempt(struct g *gp, bool async) { TRACE_HOOK(traceEvGoPreempt, gp->goid, async); }
static inline void traceGoEnd(struct g *gp) { TRACE_HOOK(traceEvGoEnd, gp->goid, 0); }
static inline void traceSteal(struct p *victim, uint32_t n) { TRACE_HOOK(traceEvSteal, victim->id, n); }
static inline void traceTimerFire(void (*f)(void *), struct p *pp)
{
	TRACE_HOOK(traceEvTimerFire, (uintptr_t)f, pp->id);
}

#endif
