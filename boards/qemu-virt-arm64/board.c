/*
 * QEMU -M virt (aarch64). The arm64 device-tree platform reads everything
 * from the DTB QEMU generates: RAM, cores (PSCI), GICv2 or GICv3, the
 * timer interrupt, the PL011 and the command line. What is this board's
 * own: leaving QEMU with the kernel's status.
 */
#include "kernel/cpu.h"
#include "arch/aarch64/semihost.h"
#include "boards/platform/arm64-dt/arm64-dt.h"
#include "kernel/board.h"

#ifndef GMK_SEMIHOSTING
#define GMK_SEMIHOSTING 0
#endif

/* Semihosting carries the status to QEMU's exit code (tools/run-qemu
 * always passes -semihosting); built without it (SEMIHOSTING=0), PSCI
 * SYSTEM_OFF ends QEMU, and the status only in the log. */
void board_exit(int status)
{
	arch_irq_disable();
	arm64_dt_console_flush();
	if (GMK_SEMIHOSTING)
		semihost_exit(status);
	arm64_dt_power_off(status);
}
