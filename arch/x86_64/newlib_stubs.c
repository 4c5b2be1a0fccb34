/*
 * What newlib's libc.a needs from an operating system, for a kernel that
 * uses it only for formatting and string functions (the console retargets
 * printf itself, kernel/console.c).
 *
 *  - __getreent: newlib is built with __DYNAMIC_REENT__ (tools/build-newlib)
 *    so that its reentrancy state (errno, the dtoa buffers printf's %f
 *    uses, strtok's pointer) is found through this function rather than
 *    being one global. A goroutine is a thread to the C library: each G
 *    gets a struct _reent of its own at its first call, from kmalloc, kept
 *    in its G-local area (kernel/glocal.h) and freed when it exits, so a G
 *    preempted inside snprintf or strtod leaves nothing half-updated for
 *    the next G on its core. Code that is not a G (g0, the boot) uses its
 *    core's; so does an interrupt handler on g0, and one that interrupts a
 *    G uses that G's (a handler must not format while the G it interrupted
 *    may be formatting: only fatal reports do).
 *  - no heap: malloc and newlib's _malloc_r family (dtoa's Bigints) are the
 *    kernel's (kernel/malloc.c), so there is no sbrk.
 *  - the file syscalls: fds 1 and 2 write to the board console, the rest
 *    fail with ENOSYS. The library is built with MISSING_SYSCALL_NAMES, so
 *    they carry their POSIX names.
 */
#include <errno.h>
#include <fcntl.h>
#include <reent.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <unistd.h>

#include "kernel/board.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/glocal.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"

#if !defined(__DYNAMIC_REENT__)
#error "newlib must be built and used with __DYNAMIC_REENT__ (Makefile, tools/build-newlib)"
#endif

/* ---- per-G reentrancy structure ------------------------------------- */

static struct _reent cpu_reent[MAX_CPUS];
static uint8_t cpu_reent_ready[MAX_CPUS];	/* written by the owning core */

struct _reent *__getreent(void)
{
	struct glocal *l = glocal_current();

	/* A fatal report formats with the core's: the G's area may be what
	 * an overflow of the stack above wrote over. */
	if (l && !console_panicking_here()) {
		/* Only this G reads or writes its area: a preemption between
		 * the test and the store changes nothing. */
		if (!l->libc) {
			struct _reent *r = kmalloc(sizeof *r);
			_REENT_INIT_PTR(r);
			l->libc = r;
		}
		return l->libc;
	}
	unsigned id = this_cpu()->id;
	struct _reent *r = &cpu_reent[id];

	if (!cpu_reent_ready[id]) {
		_REENT_INIT_PTR(r);
		cpu_reent_ready[id] = 1;
	}
	return r;
}

/* An exiting G's (glocal_exit): what newlib allocated for it (dtoa's
 * Bigints, strtok's nothing) and the structure itself. */
void arch_glocal_libc_free(void *libc)
{
	struct _reent *r = libc;

	_reclaim_reent(r);
	kfree(r);
}

/* ---- file and process syscalls ------------------------------------------- */

_READ_WRITE_RETURN_TYPE write(int fd, const void *buf, size_t n)
{
	if (fd != STDOUT_FILENO && fd != STDERR_FILENO) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, n);	/* in order with printf's (the ring) */
	return n;
}

_READ_WRITE_RETURN_TYPE read(int fd, void *buf, size_t n)
{
	errno = ENOSYS;
	return -1;
}

int open(const char *path, int flags, ...)
{
	errno = ENOSYS;
	return -1;
}

int close(int fd)
{
	errno = ENOSYS;
	return -1;
}

off_t lseek(int fd, off_t off, int whence)
{
	errno = ESPIPE;
	return -1;
}

int fstat(int fd, struct stat *st)
{
	st->st_mode = S_IFCHR;		/* unbuffered, like a terminal */
	return 0;
}

int isatty(int fd)
{
	return 1;
}

pid_t getpid(void)
{
	return 1;
}

int kill(pid_t pid, int sig)
{
	errno = ENOSYS;
	return -1;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	errno = ENOSYS;
	return -1;
}

clock_t times(struct tms *t)
{
	errno = ENOSYS;
	return (clock_t)-1;
}

/* exit() ends here (abort() is the kernel's, kernel/panic.c): the line a
 * program's return prints, then the machine, with the status given. */
void _exit(int status)
{
	program_exit(status);
}
