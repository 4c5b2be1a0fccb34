/*
 * Arm PL011 UART, polled transmit only (the console). The base address
 * comes from the DTB; the baud rate is whatever firmware set (QEMU ignores
 * it), so init only makes sure the transmitter is enabled.
 */
#ifndef GMK_KERNEL_DEV_PL011_H
#define GMK_KERNEL_DEV_PL011_H

#include <stdint.h>

void pl011_init(uintptr_t base);
void pl011_putc(char c);
/* Wait until every queued byte has left the transmitter. */
void pl011_flush(void);

#endif
