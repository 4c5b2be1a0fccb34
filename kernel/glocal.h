/*
 * What the kernel and the C library keep per goroutine: the G-local
 * area at the top of every G's stack.
 *
 * A G is a thread to the C library: errno, strtok's and dtoa's state,
 * printf's partial line belong to it, not to the core it happens to run
 * on (a G preempted inside snprintf on one core resumes on another, and
 * the next G on the first core must not find its state half-updated).
 * The area costs nothing to allocate and nothing to free: gobuf_set_stack
 * (below) carves GLOCAL_SIZE bytes off the top of the stack a
 * G starts on, zeroes them, and the G's stack pointer starts below them.
 * Laid out from stack_hi down:
 *
 *   stack_hi - 16                struct glocal: two pointers, to state
 *                                allocated on the G's first use of it
 *                                and freed when it exits (glocal_exit)
 *   stack_hi - GLOCAL_SIZE       the arch's TLS block, GLOCAL_ARCH_TLS
 *                                bytes (aarch64: picolibc's errno and
 *                                friends, reached through TPIDR_EL0,
 *                                which gogo points here; hosted:
 *                                strtok's position); none elsewhere
 *
 * Code that is not a G (g0, the boot before the scheduler, interrupt
 * handlers on g0) uses the core's own state, as before goroutines.
 */
#ifndef GMK_KERNEL_GLOCAL_H
#define GMK_KERNEL_GLOCAL_H

#include "kernel/compiler.h"
#include "kernel/gobuf.h"	/* the arch's GLOCAL_ARCH_TLS */

#ifndef GLOCAL_ARCH_TLS
#define GLOCAL_ARCH_TLS	0	/* the arch's per-G TLS block, bytes */
#endif
#define GLOCAL_SIZE	(GLOCAL_ARCH_TLS + 16)

#ifndef __ASSEMBLY__
#include <stdint.h>

struct console_gline;

struct glocal {
	/* This G's partial console line (kernel/console.c): allocated at
	 * its first printf, freed when it exits. */
	struct console_gline *line;
	union {
		/* newlib's struct _reent (x86-64, arch/x86_64/newlib_stubs.c):
		 * allocated at the G's first call that needs it. */
		void *libc;
		/* The hosted board: the G's errno while it is switched out
		 * (glibc's errno is per thread, and a G moves between the
		 * board's core threads). */
		long saved_errno;
	};
};
_Static_assert(sizeof(struct glocal) == 16, "GLOCAL_SIZE");

/* The G-local area of a stack whose top is stack_hi. */
static inline struct glocal *glocal_of(uintptr_t stack_hi)
{
	return (struct glocal *)(stack_hi - sizeof(struct glocal));
}

/* The running G's area; NULL when the code running is not a G (g0, the
 * boot before the scheduler). */
struct glocal *glocal_current(void);

/* glocal_current, if its pointers are sane (NULL or a block in RAM, a
 * line no longer than its buffer); else NULL: the area may have been
 * written over by the overflow of the stack above it. For the fatal
 * paths, which must not fault on it. */
struct glocal *glocal_current_checked(void);

/* The running G is about to park: write out its partial line (a prompt
 * before a read, a line before a long wait). */
void glocal_park(void);
/* The running G is exiting (goexit): write out its partial line and free
 * what its area points to. */
void glocal_exit(void);

/* Whether glocal_exit has anything to do for the G whose stack top is
 * stack_hi: goexit's test, so that a G that never printed nor used the
 * C library's state exits without the call. */
static inline int glocal_exit_due(uintptr_t stack_hi)
{
	const struct glocal *l = glocal_of(stack_hi);
#ifdef GLOCAL_ARCH_LIBC
	/* One test of both words (an or), not two branches. */
	return ((uintptr_t)l->line | (uintptr_t)l->libc) != 0;
#else
	return l->line != 0;
#endif
}

/*
 * The scheduler's switch hooks, on g0 on the core the G ran on: the G
 * stopped running there (dropg, before anyone else can run it) and is
 * about to run (execute, before gogo). Where the C library keeps its
 * per-thread state in the core's thread (glibc's errno on the hosted
 * board: GLOCAL_ARCH_ERRNO), the G's errno is saved and restored; on
 * the other boards the state is the G's own and they cost nothing.
 */
#ifdef GLOCAL_ARCH_ERRNO
#include <errno.h>	/* the arch's: one instruction each way */
static __always_inline void glocal_switch_out(uintptr_t stack_hi)
{
	glocal_of(stack_hi)->saved_errno = errno;
}
static __always_inline void glocal_switch_in(uintptr_t stack_hi)
{
	errno = (int)glocal_of(stack_hi)->saved_errno;
}
#else
static inline void glocal_switch_out(uintptr_t stack_hi) { (void)stack_hi; }
static inline void glocal_switch_in(uintptr_t stack_hi) { (void)stack_hi; }
#endif

/* The arch's half (arch/<arch>): set up the TLS block of a G's area
 * (GLOCAL_ARCH_TLS bytes at block; gobuf_arch.h may define it inline);
 * and, for newlib, free the C library's state of an exiting G. */
#ifndef arch_glocal_tls_init
void arch_glocal_tls_init(void *block);
#endif
void arch_glocal_libc_free(void *libc);

/* glocal_init: a G starts on the stack whose top is stack_top; sets up
 * its area and returns where its stack pointer starts. Inline, with the
 * arch's TLS block, on the path of every go(). */
static __always_inline uintptr_t glocal_init(uintptr_t stack_top)
{
	uintptr_t base = stack_top - GLOCAL_SIZE;

	*glocal_of(stack_top) = (struct glocal){ 0 };	/* two stores, not a call */
#if GLOCAL_ARCH_TLS
	arch_glocal_tls_init((void *)base);
#endif
	return base;
}

/* The fresh context b starts on the stack whose top is sp_top, below
 * the G-local area that the top of every G's stack holds. */
static __always_inline void gobuf_set_stack(struct gobuf *b, uintptr_t sp_top)
{
	b->sp = arch_gobuf_entry_sp(glocal_init(sp_top));
}
#endif

#endif
