/*
 * Arm semihosting: requests to a debugger or emulator through `hlt #0xf000`.
 * Only usable where one listens (QEMU with -semihosting); on a real board
 * without a debugger the instruction is an undefined-instruction trap, so a
 * board opts in (GMK_SEMIHOSTING=1 in its board.mk).
 */
#ifndef GMK_ARCH_AARCH64_SEMIHOST_H
#define GMK_ARCH_AARCH64_SEMIHOST_H

/* SYS_EXIT_EXTENDED: end the session with `status` as the exit code.
 * Returns only if the host ignored the request. */
void semihost_exit(int status);

/* SYS_OPEN / SYS_WRITE / SYS_CLOSE: a file on the host, relative to the
 * emulator's working directory. open returns a handle or -1; write returns
 * the number of bytes NOT written (0 = all). */
long semihost_open(const char *name, int mode);
long semihost_write(long handle, const void *buf, unsigned long len);
long semihost_close(long handle);
#define SEMIHOST_MODE_WB 5	/* "wb" */

#endif
