/*
 * Raspberry Pi 4 Model B. The arm64 device-tree platform does everything
 * from the firmware's DTB (or board.dts, built in); a real board has
 * nothing to return to, so leaving prints the status and halts.
 */
#include "kernel/cpu.h"
#include "boards/platform/arm64-dt/arm64-dt.h"
#include "kernel/board.h"

void board_exit(int status)
{
	arch_irq_disable();
	arm64_dt_halt(status);
}
