/*
 * QEMU's q35 PC (qemu-system-x86_64 -M q35), booted by -kernel as a
 * multiboot 1 image: the PC platform (boards/platform/pc) does everything
 * but leave, which this board does through QEMU's isa-debug-exit device.
 */
#include <stdint.h>

#include "arch/x86_64/io.h"
#include "kernel/cpu.h"
#include "kernel/board.h"
#include "kernel/console.h"

#define DEBUG_EXIT_PORT		0xf4	/* -device isa-debug-exit,iobase=0xf4 */
#define DEBUG_EXIT_SUCCESS	0x10	/* QEMU exits (0x10 << 1) | 1 = 33 */
#define DEBUG_EXIT_MAX		0x7f

/*
 * isa-debug-exit ends QEMU with (value << 1) | 1, so it cannot say 0:
 * success is 0x10 (QEMU status 33, which tools/run-qemu maps to 0), and a
 * failure s is s itself (QEMU status 2s+1, mapped back to s). A failure
 * that would alias success (s & 0x7f of 0 or 0x10) becomes 0x7f.
 */
void board_exit(int status)
{
	uint32_t v = DEBUG_EXIT_SUCCESS;

	console_flush();	/* what the transmit ring holds, polled */
	if (status != 0) {
		v = (uint32_t)status & DEBUG_EXIT_MAX;
		if (v == 0 || v == DEBUG_EXIT_SUCCESS)
			v = DEBUG_EXIT_MAX;
	}
	outl(DEBUG_EXIT_PORT, v);
	arch_halt_forever();		/* no debug-exit device: real hardware */
	__builtin_unreachable();
}
