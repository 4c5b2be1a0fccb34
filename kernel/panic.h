#ifndef GMK_KERNEL_PANIC_H
#define GMK_KERNEL_PANIC_H

#include <stdint.h>

/*
 * panic: print "panic: core N: <message>" and a backtrace, stop every other
 * core with an IPI, and exit with a failing status. fatal() is the same
 * with Go's wording ("fatal error: ...") for runtime errors a program made.
 */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void fatal(const char *fmt, ...);

/* Stop every other core (IPI), without returning to their work. */
void stop_other_cpus(void);

/* Kernel-internal assertion: panics with the expression, file and line. */
#define KASSERT(e)                                                        \
	do {                                                              \
		if (!(e))                                                 \
			panic("assertion failed: %s (%s:%d)", #e,         \
			      __FILE__, __LINE__);                        \
	} while (0)

#endif
