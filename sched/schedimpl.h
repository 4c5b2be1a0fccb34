/*
 * Scheduler internals shared by the files of sched/ (not for other code).
 */
#ifndef GMK_SCHED_SCHEDIMPL_H
#define GMK_SCHED_SCHEDIMPL_H

#include "kernel/cpu.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "sched/sched.h"

extern struct p *allp[MAX_CPUS];
extern struct m allm[MAX_CPUS];
extern volatile uint32_t mainstarted;	/* the main G exists: wakep may run */

/* The running G's M. Stable while it runs: a G changes M only through a
 * switch (issue 4's preemption switches at safe points too). */
static inline struct m *getm(void) { return getg()->m; }

/* proc.c */
__attribute__((noreturn)) void schedule(void);
__attribute__((noreturn)) void execute(struct g *gp, bool inherit_time);
void wakep(void);
void dropg(void);
/* park.c: gp to the global queue and schedule (Go's goschedImpl); on g0. */
__attribute__((noreturn)) void goschedImpl(struct g *gp, bool preempted);
/* park.c: the running G to the tail of its P's queue (Go's goyield). */
void goyield(void);
/* Fatal error if a small-stack G overflowed its stack (sched/gproc.c). */
void stackcheck(struct g *gp);
/* The same for a G running with its stack pointer at sp (the tick). */
void stackcheck_sp(struct g *gp, uintptr_t sp);
uint32_t cheaprand(void);
/* An idle P's earliest timer became `when`: wake the idle M that keeps
 * time if it would sleep past it. Caller holds sched.lock. */
void timers_notify_idle_locked(uint64_t when);
/* A busy P's earliest timer became `when`: the idle time-keeper, which
 * fires it if its own core does not (a stuck core), learns of it. */
void timers_notify_keeper(uint64_t when);

/* status changes: a CAS, so that a double goready or a stale status is
 * caught at once instead of corrupting a run queue. */
void casgstatus(struct g *gp, uint32_t oldval, uint32_t newval);
static inline uint32_t readgstatus(struct g *gp)
{
	return atomic_load32(&gp->atomicstatus);
}

/* gproc.c */
struct g *newproc1(void (*fn)(void *), void *arg, long stack_bytes);
void gfput(struct p *pp, struct g *gp);
const char *sched_fault_describe(uintptr_t addr, char *buf, unsigned len);

/* checkdead.c: caller holds sched.lock */
void checkdead(void);

/* preempt.c */
/* Time slice when the command line gives none (Go's forcePreemptNS). */
#define SLICE_DEFAULT_NS (10 * NSEC_PER_MSEC)
void preempt_init(void);
void tick_arm_for_slice(struct p *pp);	/* execute, on g0 */
struct trapframe;
void sched_preempt_for_netpoll(struct trapframe *tf);	/* netpoll_kick */

/* fingerprint.c: fingerprint=on. One call at each site; schedfp_on is
 * set once at boot, before the other cores start. */
enum schedfp_event { SCHEDFP_EXECUTE, SCHEDFP_STEAL, SCHEDFP_PREEMPT,
		     SCHEDFP_NEVENTS };
extern bool schedfp_on;
void schedfp_init(void);
void schedfp_record(struct p *pp, uint64_t goid, enum schedfp_event ev);
static inline void schedfp(struct p *pp, const struct g *gp, enum schedfp_event ev)
{
	if (__builtin_expect(schedfp_on, 0))
		schedfp_record(pp, gp->goid, ev);
}

/* trace.c */
void schedtrace_maybe(void);
const char *gstatus_string(uint32_t s);

#endif
