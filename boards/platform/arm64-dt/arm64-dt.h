/*
 * The arm64 device-tree platform (platform.c), as a board's board.c sees
 * it. The platform implements all of kernel/board.h, board_exit as a
 * weak default; a board that leaves otherwise writes its own from these
 * pieces, with its quirks.
 */
#ifndef GMK_BOARDS_PLATFORM_ARM64_DT_H
#define GMK_BOARDS_PLATFORM_ARM64_DT_H

#include <stdbool.h>

#include "kernel/fdt.h"

extern struct fdt arm64_dt;		/* the DTB in use (blob NULL: none) */

/* Wait until the console has sent every byte. */
void arm64_dt_console_flush(void);
/* PSCI SYSTEM_OFF where the DTB offers PSCI, else arm64_dt_halt. */
__attribute__((noreturn)) void arm64_dt_power_off(int status);
/* Stop every core, print the status, wait forever (real hardware). */
__attribute__((noreturn)) void arm64_dt_halt(int status);

#endif
