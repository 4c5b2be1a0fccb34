#ifndef GMK_KERNEL_PANIC_H
#define GMK_KERNEL_PANIC_H

#include <stdint.h>

/*
 * panic: print "panic: <message>" and a backtrace, stop every other core
 * with an IPI, and exit with status 2, as Go's panic. fatal() is the same
 * with Go's wording ("fatal error: ...") for runtime errors a program made.
 * panic is public (include/gmk.h): an application's panic is Go's.
 */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void fatal(const char *fmt, ...);

/* The C library's exit(status), from any goroutine: the line a program's
 * return prints ("gmk: NAME exited with status N", naming the program
 * started last, if one runs), then the machine ends with that status, as
 * Go's os.Exit (arch/x86_64/newlib_stubs.c, arch/aarch64/picolibc_stubs.c:
 * _exit; the hosted board: on_exit calls the line alone). */
void program_exit_line(int status);
__attribute__((noreturn)) void program_exit(int status);
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
