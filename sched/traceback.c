/*
 * The goroutines of a fatal error's report (Go's goroutineheader and
 * tracebackothers): the failing one first, then, if asked, every other
 * live G, each as
 *
 *   goroutine N [status or wait reason]:
 *   function(...)
 *   	file.c:LINE +0xOFF
 *   created by function in goroutine P
 *   	file.c:LINE +0xOFF
 *
 * with its stack walked from where it stands (kernel/traceback.c): a
 * parked G from the frame record in the block mcall pushed (its gobuf's
 * sp), a G preempted at an interrupt from the frame copy on its stack, a
 * G that has not run from its entry function.
 *
 * Go adds ", N minutes" to a G parked for a minute or more; gmk keeps no
 * time of parking (a counter read at every park, in a G record whose
 * first two lines are full), so it never prints minutes.
 *
 * Runs on the dying core after the others were stopped (for every G) or
 * while they run (for its own only): it reads the G records without a
 * lock, as Go's does with the world stopped.
 */
#include "kernel/cpu.h"
#include "kernel/gobuf.h"
#include "kernel/preempt.h"
#include "kernel/sched_hooks.h"
#include "kernel/trap.h"
#include "kernel/traceback.h"
#include "sched/schedimpl.h"

/* Go prints them all; a board's serial line at 115200 baud takes a
 * second per 100 or so, and the first ones say what happened. */
#define TRACEBACK_MAX_GS 100

/* switch.S: where gogo resumes a G that mcall parked. */
void mcall_resume(void);

static void goroutine_header(struct g *gp, uint32_t status)
{
	const char *what = "?";

	switch (status) {
	case _Grunnable: what = "runnable"; break;
	case _Grunning:	 what = "running"; break;
	case _Gwaiting:	 what = waitreason_string(gp->waitreason); break;
	}
	/* Go prints "locked to thread"; here the thread is a core. */
	struct m *lm = gp->lockedm;
	if (lm)
		tb_printf("\ngoroutine %llu [%s, locked to core %u]:\n",
			  (unsigned long long)gp->goid, what, lm->cpu->id);
	else
		tb_printf("\ngoroutine %llu [%s]:\n", (unsigned long long)gp->goid, what);
}

/* Go's printcreatedby: every G's but the main one's (goid 1, which
 * sched_main made with gopc 0) and g0's (not a G here). */
static void createdby(struct g *gp)
{
	if (gp->goid != 1)
		traceback_createdby(gp->gopc, gp->parentgoid);
}

/* A G that is not running: its stack from its saved context. */
static void saved_stack(struct g *gp)
{
	struct gobuf *b = &gp->sched;

	if (b->pc == (uintptr_t)goentry) {
		/* Not started (no stack until then): where it will start. */
		traceback_frames((uintptr_t)gp->entry, 0, 0, 0, 0, 0);
		return;
	}
	if (b->sp < gp->stack_lo || b->sp >= gp->stack_hi) {
		tb_printf("\tsaved stack pointer 0x%lx outside its stack 0x%lx-0x%lx\n",
			  (unsigned long)b->sp, (unsigned long)gp->stack_lo,
			  (unsigned long)gp->stack_hi);
		return;
	}
	if (b->pc == (uintptr_t)arch_preempt_resume) {
		const struct trapframe *tf = (const struct trapframe *)b->sp;
		traceback_frames(arch_frame_pc(tf), arch_frame_lr(tf), arch_frame_sp(tf),
				 arch_frame_fp(tf), gp->stack_lo, gp->stack_hi);
	} else if (b->pc == (uintptr_t)mcall_resume) {
		traceback_frames(0, 0, 0, b->sp + MCALL_FP_RECORD, gp->stack_lo, gp->stack_hi);
	} else {
		tb_printf("\tsaved pc 0x%lx is no resume point\n", (unsigned long)b->pc);
	}
}

void sched_traceback(uintptr_t pc, uintptr_t lr, uintptr_t sp, uintptr_t fp,
		     bool sched_stack, bool all)
{
	struct g *me = arch_getg();
	uintptr_t lo = 0, hi = 0;

	if (me && fp >= me->stack_lo && fp < me->stack_hi) {
		lo = me->stack_lo;
		hi = me->stack_hi;
	}
	if (me && me->goid != 0) {
		goroutine_header(me, _Grunning);
		traceback_frames(pc, lr, sp, fp, lo, hi);
		createdby(me);
	} else if (sched_stack) {
		/* g0 (the scheduler, a timer callback) or the boot before the
		 * scheduler: Go's "runtime stack". */
		tb_printf("\n%s stack (core %u):\n", me ? "scheduler" : "boot",
			  this_cpu()->id);
		traceback_frames(pc, lr, sp, fp, lo, hi);
	}
	if (!all)
		return;

	unsigned shown = 0, more = 0;
	struct g *gp = (struct g *)atomic_loaduintptr((volatile uintptr_t *)&sched.allgs);
	for (; gp; gp = gp->alllink) {
		uint32_t st = readgstatus(gp);
		if (gp == me || gp->goid == 0 || (st != _Grunnable && st != _Grunning &&
						  st != _Gwaiting))
			continue;
		if (shown == TRACEBACK_MAX_GS) {
			more++;
			continue;
		}
		shown++;
		goroutine_header(gp, st);
		if (st == _Grunning)
			/* Stopped by IPI_STOP somewhere on another core. */
			tb_printf("\tgoroutine running on other core; stack unavailable\n");
		else
			saved_stack(gp);
		createdby(gp);
	}
	if (more)
		tb_printf("\n...%u more goroutines not shown\n", more);
}
