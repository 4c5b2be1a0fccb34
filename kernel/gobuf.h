/*
 * struct gobuf: where a G that is not running resumes. As in Go, it keeps
 * sp, pc and the G, nothing more: a voluntary switch pushes the
 * callee-saved registers of the arch's C ABI onto the G's own stack and
 * resumes through a pc (mcall_resume) that pops them. The layout is per
 * arch, in arch/<arch>/gobuf.h, with the byte offsets that switch.S uses.
 *
 *   void gogo(struct gobuf *buf)             resume buf: its G, its sp, then
 *                                            jump to its pc; never returns
 *   void mcall(void (*fn)(struct g *))       save the running G's context
 *                                            (registers on its stack, sp and
 *                                            pc in its gobuf), switch to this
 *                                            M's g0 stack and call fn(g); fn
 *                                            never returns (it schedules)
 *
 * No gosave: a context saved on the stack cannot outlive the return to a
 * caller that goes on using that stack (Go's gosave saves no registers,
 * which gmk's C callers would need). Nothing in gmk used it.
 */
#ifndef GMK_KERNEL_GOBUF_H
#define GMK_KERNEL_GOBUF_H

#include "gobuf_arch.h"

/*
 * mcall finds the M's g0 from the running G by two loads, so sched/ keeps
 * these two fields at fixed offsets (checked by _Static_assert in
 * sched/runtime2.h): struct g begins with its gobuf and then its M, and
 * struct m begins with its g0.
 */
#define G_M	GOBUF_SIZE	/* offsetof(struct g, m) */
#define M_G0	0		/* offsetof(struct m, g0) */

#ifndef __ASSEMBLY__
struct g;
__attribute__((noreturn)) void gogo(struct gobuf *buf);
void mcall(void (*fn)(struct g *));
/* The first function of every G (sched/gproc.c): gobuf_init's contexts
 * start it through switch.S's goentry. */
__attribute__((noreturn)) void gstart(void);
#endif

#endif
