/*
 * Arm PL011 UART: polled transmit (the console), receive polled or by
 * interrupt (RX and receive-timeout; the board routes the line). The base address
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
int pl011_getc(void);		/* a received byte, or -1 if none */
void pl011_rx_irq_enable(void);
/* RX and receive-timeout clear as pl011_getc empties the FIFO (no ICR
 * write: one would race with a byte arriving meanwhile). */

#endif
