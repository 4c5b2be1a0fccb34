/*
 * The G-local area (glocal.h): the top of each G's stack, for what the
 * kernel and the C library keep per goroutine.
 */

#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/glocal.h"
#include "kernel/gobuf.h"
#include "kernel/page.h"

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

/* A pointer the area may hold: NULL, or a kmalloc block (16-aligned, in
 * RAM) of size bytes. */
static bool glocal_ptr_sane(const void *p, size_t size)
{
	uintptr_t a = (uintptr_t)p;

	return !p || (a % 16 == 0 && page_addr_valid(a) && page_addr_valid(a + size - 1));
}

/*
 * The area sits at the top of the G's stack, right below the stack above
 * it in a run of pool stacks: that G's overflow writes here first (what
 * a 3,000-byte local on a 2 KiB stack does to its neighbour). What
 * follows its pointers is trusted only when they are sane, so that a
 * fatal report does not fault on the damage it is about to report.
 */
struct glocal *glocal_current_checked(void)
{
	struct glocal *l = glocal_current();

	if (!l || !glocal_ptr_sane(l->line, sizeof *l->line) ||
	    (l->line && l->line->len > CONSOLE_GLINE))
		return NULL;
#ifdef GLOCAL_ARCH_LIBC
	if (!glocal_ptr_sane(l->libc, 16))
		return NULL;
#endif
	return l;
}
