/*
 * 16550-compatible UART, transmit and receive polled or by interrupt: a PC's COM
 * ports in x86 I/O space, or the memory-mapped ones of many SoCs. The
 * driver never touches the bus itself: the platform hands it the two
 * accessors for where the registers are (port I/O, or MMIO with a
 * register stride), so it includes no arch header.
 */
#ifndef GMK_KERNEL_DEV_UART16550_H
#define GMK_KERNEL_DEV_UART16550_H

#include <stdbool.h>
#include <stdint.h>

#define UART16550_COM1		0x3f8		/* a PC's first port */
#define UART16550_CLOCK_PC	1843200		/* Hz: 115200 baud x 16 */

struct uart16550 {
	uintptr_t base;		/* I/O port or MMIO address of register 0 */
	unsigned reg_shift;	/* register n at base + (n << reg_shift) */
	uint32_t clock_hz;	/* input clock, for the baud divisor */
	uint8_t (*read)(uintptr_t addr);
	void (*write)(uintptr_t addr, uint8_t v);
};

void uart16550_init(const struct uart16550 *u, uint32_t baud);	/* 8N1 */
void uart16550_putc(const struct uart16550 *u, char c);		/* waits for room */
/* A received byte, or -1; sets *overrun (if given) when the receiver
 * lost bytes (overran) since LSR was last read. */
int uart16550_getc(const struct uart16550 *u, bool *overrun);
/* Interrupt while received data is available (reading it all, getc
 * until -1, clears it), and RTS, on or off. The platform routes the line. */
void uart16550_rx_irq(const struct uart16550 *u, bool on);
/*
 * The end of the UART's interrupt handler, where its line is
 * edge-triggered (a PC's ISA IRQ): if the UART still asks for an
 * interrupt (a byte that came after the handler drained the receiver,
 * the receiver let go by a reader on another core, THR empty again),
 * its line never went low and no new edge will come, and neither will
 * any interrupt again. Then turn IER off and on: the line drops and
 * rises, and the handler runs again. Reading IIR clears a pending THRE
 * interrupt, which turning IER back on raises again.
 */
void uart16550_irq_rearm(const struct uart16550 *u);
/* Transmit by interrupt (the console's ring, kernel/console.h): THR takes
 * a byte, one byte into it, the "THR empty" interrupt on/off. */
bool uart16550_tx_room(const struct uart16550 *u);
void uart16550_tx_put(const struct uart16550 *u, char c);
void uart16550_tx_irq(const struct uart16550 *u, bool on);
#define UART16550_TX_FIFO 16	/* bytes per interrupt at most (a 16550A's FIFO) */

#endif
