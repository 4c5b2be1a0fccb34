/*
 * Arm PL011 UART: transmit polled (pl011_putc) or by interrupt (the
 * console's ring, kernel/console.h: TX, on while the ring has bytes),
 * receive polled or by interrupt (RX and receive-timeout; the board
 * routes the one line they share). The base address
 * comes from the DTB; the baud rate is whatever firmware set (QEMU ignores
 * it), so init only makes sure the transmitter is enabled.
 */
#ifndef GMK_KERNEL_DEV_PL011_H
#define GMK_KERNEL_DEV_PL011_H

#include <stdbool.h>
#include <stdint.h>

void pl011_init(uintptr_t base);
void pl011_putc(char c);
/* Wait until every queued byte has left the transmitter. */
void pl011_flush(void);
/* A received byte, or -1 if none; sets *overrun (if given) when the
 * FIFO overran before it. */
int pl011_getc(bool *overrun);
/* Receive interrupts (RX and receive-timeout) and RTS on or off. */
void pl011_rx_irq(bool on);
/* Transmit by interrupt (struct console_tx_ops): the FIFO has room, one
 * byte into it, the TX interrupt on/off. TX is raised while the FIFO is at
 * or under its level (QEMU: after every byte, until masked). */
bool pl011_tx_room(void);
void pl011_tx_put(char c);
void pl011_tx_irq(bool on);
#define PL011_TX_FIFO 16	/* bytes (PL011 r1.3; r1.5 has 32) */
/* RX and receive-timeout clear as pl011_getc empties the FIFO (no ICR
 * write: one would race with a byte arriving meanwhile). */

#endif
