/*
 * A real x86-64 PC (a mini-PC, a laptop), booted from a USB stick or CD by
 * GRUB through BIOS or UEFI (tools/mkimage-pc builds the image): the PC
 * platform (boards/platform/pc) with multiboot 2, the console also on the
 * framebuffer, and power-off through ACPI at the end.
 *
 * There is no isa-debug-exit on a PC, and writing an unknown I/O port on
 * real hardware is not harmless, so this board never writes one: it prints
 * the status and powers off through ACPI exactly as on hardware. Under
 * QEMU the test runner (tools/pc-boot) reads the status line from the
 * serial log and sees the power-off as QEMU's shutdown.
 */
#include <stdio.h>

#include "boards/platform/pc/acpi.h"
#include "boards/platform/pc/pc.h"
#include "kernel/cpu.h"
#include "kernel/board.h"
#include "kernel/console.h"

void board_exit(int status)
{
	const char *why = "no ACPI tables";

	console_flush();	/* the transmit ring, then polled to the end */
	printf("gmk: exit status %d\n", status);
	if (pc_rsdp()) {
		printf("gmk: powering off\n");
		acpi_poweroff(pc_rsdp(), &why);	/* returns only on failure */
	}
	printf("gmk: cannot power off (%s): halted, switch off by hand\n", why);
	arch_halt_forever();
	__builtin_unreachable();
}
