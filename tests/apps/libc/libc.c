/*
 * The C library's ways out and its standard streams, from an application
 * (make test boots each program on every board, tools/test-plan): exit
 * and abort from a goroutine other than the program's, gmk's panic, and
 * putchar, stdout and stderr. Each is the same on every board:
 *   exit(n)   "gmk: libc_exit exited with status n", status n
 *   abort()   "SIGABRT: abort", the goroutine's stack, status 2
 *   panic()   "panic: <message>", the goroutine's stack, status 2
 */
#include <stdio.h>
#include <stdlib.h>

#include <gmk.h>

static void exiter(void *arg)
{
	exit((int)(uintptr_t)arg);
}

static void aborter(void *arg)
{
	(void)arg;
	abort();
}

static void panicker(void *arg)
{
	panic("libc_panic: %s %d", "the answer is", (int)(uintptr_t)arg);
}

/* Parks for good: the way out must come from the other goroutine. */
static int wait_for_the_end(void)
{
	chan_t never = chan_make(0, 0);

	chan_recv(never, NULL);
	return 0;
}

PROGRAM(libc_exit, "putchar, stdout and stderr, then exit(3) from a goroutine")
{
	putchar('p');
	putchar('u');
	putchar('t');
	putchar('c');
	putchar('h');
	putchar('a');
	putchar('r');
	putchar('\n');
	fputs("libc_exit: stdout\n", stdout);
	fprintf(stderr, "libc_exit: stderr %d\n", 42);
	fflush(stdout);
	fflush(stderr);
	go(exiter, (void *)3);
	return wait_for_the_end();
}

PROGRAM(libc_abort, "abort() from a goroutine")
{
	go(aborter, NULL);
	return wait_for_the_end();
}

PROGRAM(libc_panic, "gmk's panic (Go's) from a goroutine")
{
	go(panicker, (void *)42);
	return wait_for_the_end();
}
