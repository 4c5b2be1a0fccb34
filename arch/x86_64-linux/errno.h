/*
 * <errno.h> on the hosted board: glibc's, with errno found afresh at
 * each use. (First on the include path: the arch's folders come before
 * the system's.)
 *
 * glibc's errno is the core thread's, and glibc declares
 * __errno_location const: the compiler may compute errno's address once
 * in a function and keep it across calls. A goroutine that moves to
 * another core thread meanwhile (any call that may switch: a channel
 * operation, gosched, a preemption at a safe point) would then read and
 * write the old thread's errno, under another goroutine's feet. The
 * scheduler moves each G's value between threads (kernel/glocal.h);
 * this makes every use look at the thread it runs on. glibc's own code
 * is unaffected: a G never changes thread inside it.
 */
#include_next <errno.h>

#ifndef GMK_ARCH_X86_64_LINUX_ERRNO_H
#define GMK_ARCH_X86_64_LINUX_ERRNO_H
/* arch/x86_64-linux/cpu.c: __errno_location, out of line and not const. */
int *host_errno_location(void);
#undef errno
#define errno (*host_errno_location())
#endif
