/*
 * The G-local area (glocal.h): the top of each G's stack, for what the
 * kernel and the C library keep per goroutine.
 */

#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/glocal.h"
#include "kernel/gobuf.h"

struct glocal *glocal_current(void)
{
	struct g_head *g = arch_getg();

	/* g0 is its M's first field (M_G0): the scheduler, not a G. */
	if (!g || !g->m || *(void **)g->m == (void *)g)
		return NULL;
	return glocal_of(g->stack_hi);
}

void glocal_park(void)
{
	struct glocal *l = glocal_current();

	if (l && l->line)
		console_gline_flush(l);
}

void glocal_exit(void)
{
	struct glocal *l = glocal_current();

	if (!l)
		return;
	if (l->line)
		console_gline_free(l);
#ifdef GLOCAL_ARCH_LIBC
	if (l->libc) {
		void *libc = l->libc;
		l->libc = NULL;
		arch_glocal_libc_free(libc);
	}
#endif
}
