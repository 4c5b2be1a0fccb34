/*
 * What picolibc's libc.a needs from an operating system, for what an
 * application calls that is not the console's own printf (kernel/console.c
 * retargets printf, puts and putchar as functions):
 *
 *  - stdout and stderr, which picolibc's stdio leaves to the program:
 *    putchar is a macro there (fputc(c, stdout)), and fputs, fprintf and
 *    fwrite take them. Each character goes to console_write, into the
 *    G's line as printf's (kernel/glocal.h). stdin is there so that code
 *    naming it links; it reads nothing (console_read reads the console).
 *  - _exit, where exit() ends: the line a program's return prints, then
 *    the machine (kernel/main.c, program_exit). abort() is the kernel's
 *    (kernel/panic.c), the same on every board.
 *  - getpid and kill, for raise(): one process, which no signal reaches.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "kernel/console.h"
#include "kernel/panic.h"

static int console_put(char c, FILE *f)
{
	(void)f;
	console_write(&c, 1);
	return (unsigned char)c;
}

static FILE console_out = FDEV_SETUP_STREAM(console_put, NULL, NULL, _FDEV_SETUP_WRITE);
static FILE console_in = FDEV_SETUP_STREAM(NULL, NULL, NULL, 0);

FILE *const stdout = &console_out;
FILE *const stderr = &console_out;
FILE *const stdin = &console_in;

void _exit(int status)
{
	program_exit(status);
}

pid_t getpid(void)
{
	return 1;
}

int kill(pid_t pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = ENOSYS;
	return -1;
}
