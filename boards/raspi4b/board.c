/*
 * Raspberry Pi 4 Model B. The arm64 device-tree platform does everything
 * from the firmware's DTB (or, under QEMU, board.dts); this board's own
 * is how it ends: QEMU is left by semihosting when the DTB says QEMU is
 * listening (board.dts's /chosen/gmk,semihosting), a real Pi has nothing
 * to return to and halts with the status on the console.
 */
#include "kernel/cpu.h"
#include "arch/aarch64/semihost.h"
#include "boards/platform/arm64-dt/arm64-dt.h"
#include "kernel/board.h"

void board_exit(int status)
{
	arch_irq_disable();
	arm64_dt_console_flush();
	if (arm64_dt_chosen_has("gmk,semihosting"))
		semihost_exit(status);
	arm64_dt_halt(status);
}
