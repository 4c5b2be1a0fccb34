/*
 * struct gobuf: where a G that is not running resumes. As in Go, it keeps
 * sp, pc and the G, nothing more: a voluntary switch (mcall, switch.S)
 * pushes the callee-saved registers of the arch's C ABI onto the G's own
 * stack, below its return address, and leaves pc = mcall_resume, which
 * pops them and returns. So gogo resumes three kinds of context the same
 * way (sp, then jump to pc): a parked G (pc = mcall_resume), a G
 * preempted at an interrupt (pc = arch_preempt_resume, sp = its frame
 * copy) and a fresh G (pc = goentry).
 *
 *   void gogo(struct gobuf *buf)             resume buf: its G, its sp, then
 *                                            jump to its pc; never returns
 *   void mcall(void (*fn)(struct g *))       save the running G's context
 *                                            (registers on its stack, sp and
 *                                            pc in its gobuf), switch to this
 *                                            M's g0 stack and call fn(g); fn
 *                                            never returns (it schedules)
 *   void gswitch(next, lock)                 mcall's save, then gogo's resume
 *                                            of next, releasing a spinlock
 *                                            in between (below)
 *
 * No gosave: a context saved on the stack cannot outlive the return to a
 * caller that goes on using that stack (Go's gosave saves no registers,
 * which gmk's C callers would need).
 *
 * The arch's gobuf_arch.h gives what differs: the layout of the block
 * mcall pushes (for switch.S and tools/gmk-gdb.py), where a fresh G's
 * stack pointer starts (arch_gobuf_entry_sp), and optionally fields of
 * its own after g (GOBUF_ARCH_FIELDS, GOBUF_SIZE) with arch_gobuf_init to
 * set them.
 */
#ifndef GMK_KERNEL_GOBUF_H
#define GMK_KERNEL_GOBUF_H

#include "gobuf_arch.h"

/* Byte offsets, shared with switch.S. */
#define GOBUF_SP	0
#define GOBUF_PC	8
#define GOBUF_G		16	/* the G this context belongs to (arch_setg) */
#ifndef GOBUF_SIZE
#define GOBUF_SIZE	24
#endif

/*
 * mcall finds the M's g0 from the running G by two loads, so sched/ keeps
 * these two fields at fixed offsets (checked by _Static_assert in
 * sched/runtime2.h): struct g begins with its gobuf and then its M, and
 * struct m begins with its g0.
 */
#define G_M	GOBUF_SIZE	/* offsetof(struct g, m) */
#define G_STACK_HI	(GOBUF_SIZE + 16)	/* offsetof(struct g, stack_hi) */
#define M_G0	0		/* offsetof(struct m, g0) */

#ifndef __ASSEMBLY__
#include <stddef.h>
#include <stdint.h>

struct gobuf {
	uintptr_t sp;
	uintptr_t pc;
	void *g;
#ifdef GOBUF_ARCH_FIELDS
	GOBUF_ARCH_FIELDS
#endif
};
_Static_assert(offsetof(struct gobuf, sp) == GOBUF_SP, "gobuf");
_Static_assert(offsetof(struct gobuf, pc) == GOBUF_PC, "gobuf");
_Static_assert(offsetof(struct gobuf, g) == GOBUF_G, "gobuf");
_Static_assert(sizeof(struct gobuf) == GOBUF_SIZE, "gobuf");

/*
 * The first fields of struct g (sched/runtime2.h asserts that it begins
 * so), for switch code that needs more of a G than its gobuf and M: the
 * hosted arch's sanitizer annotations tell the sanitizer the bounds of
 * the stack a switch goes to.
 */
struct g_head {
	struct gobuf sched;
	void *m;
	uintptr_t stack_lo;		/* its stack is [stack_lo, stack_hi) */
	uintptr_t stack_hi;
};
_Static_assert(offsetof(struct g_head, stack_hi) == G_STACK_HI, "G_STACK_HI");

struct g;
__attribute__((noreturn)) void gogo(struct gobuf *buf);
void mcall(void (*fn)(struct g *));
/*
 * gswitch(next, lock): the running G parks straight into next, without
 * g0 (sched/schedimpl.h's goparkunlock_spin, which has done the
 * scheduler's part): its context is saved as mcall saves it (pc =
 * mcall_resume), next resumes as gogo resumes it, and in between, on
 * next's stack, *lock is released (store-release of 0) and this core's
 * preempt-off count (struct cpu's, CPU_PREEMPT_OFF) drops by one.
 * Returns when the G that called it is resumed.
 */
void gswitch(struct g *next, volatile uint32_t *lock);
/* mcall for a G that never runs again (sched/park.c's goexit): only its
 * sp is saved, which the exit's stack check reads; fn is goexit0. */
__attribute__((noreturn)) void mcall_exit(void (*fn)(struct g *));
/*
 * gogo_jump(buf): gogo reached by a jump from C (the scheduler's
 * execute), where the arch gives one (arch_gogo_jump), not by a call.
 * gogo never returns, and a call would leave an entry in the CPU's
 * return-address predictor that no return ever takes: the next G's first
 * return (mcall_resume's, into its caller of mcall) would be predicted
 * to go back into the scheduler, and every return after it one frame
 * off. With mcall's own jump to fn (switch.S), a switch leaves the
 * predictor as the parked G left it, whose top frames are the next G's
 * as well wherever both switched out from the same place (two Gs
 * yielding in one loop: no return mispredicted; docs/performance.md).
 */
#ifdef arch_gogo_jump
#define gogo_jump(buf)	arch_gogo_jump(buf)
#else
#define gogo_jump(buf)	gogo(buf)
#endif
/* switch.S: a fresh G's first instruction. It ends backtraces (a zero
 * frame pointer and return address) and jumps to gstart. */
void goentry(void);

/* The scheduler's, for the switch code (sched/): the first function of
 * every G, and the reports of an mcall misused (they do not return). */
__attribute__((noreturn)) void gstart(void);
void mcall_returned(void);
void mcall_on_g0(void);

/*
 * A fresh context for the G g: gogo lands on goentry. sp stays 0 until
 * the G has a stack (gobuf_set_stack, kernel/glocal.h): a G gets its stack when it first
 * runs (sched/gproc.c, gstack_attach). Go's newproc1 writes the return
 * address (goexit) onto the new stack; gmk writes nothing there, so that
 * starting a G touches its record only.
 */
static inline void gobuf_init(struct gobuf *b, void *g)
{
	b->sp = 0;
	b->pc = (uintptr_t)goentry;
	b->g = g;
#ifdef arch_gobuf_init
	arch_gobuf_init(b, g);
#endif
}

/* gobuf_set_stack(b, sp_top), which starts b below the G-local area of
 * the stack whose top is sp_top, is in kernel/glocal.h. */
#endif

#endif
