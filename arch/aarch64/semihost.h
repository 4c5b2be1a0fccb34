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

#endif
