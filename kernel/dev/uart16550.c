/*
 * 16550 UART: the console writes a byte once the transmit holding
 * register is empty, polled or on its "THR empty" interrupt; bytes are received polled or by the
 * "received data available" interrupt. Registers are reached through the
 * accessors in struct uart16550 (see uart16550.h).
 */
#include <stdint.h>

#include "kernel/cpu.h"
#include "kernel/dev/uart16550.h"

/* Register numbers. */
#define UART_DATA	0	/* THR (write); divisor low with DLAB */
#define UART_IER	1	/* interrupt enable; divisor high with DLAB */
#define UART_FCR	2	/* FIFO control */
#define UART_LCR	3	/* line control */
#define UART_MCR	4	/* modem control */
#define UART_LSR	5	/* line status */

#define LCR_8N1		0x03
#define LCR_DLAB	0x80	/* divisor latch access */
#define MCR_DTR_RTS	0x03
#define MCR_OUT2	0x08	/* gates the IRQ line on PC boards */
#define LSR_THRE	0x20	/* transmit holding register empty */
#define LSR_DR		0x01	/* data ready */
#define IER_RDA		0x01	/* interrupt on received data */
#define IER_THRI	0x02	/* interrupt while THR is empty */

uint8_t uart16550_mmio_read8(uintptr_t addr)
{
	return *(volatile uint8_t *)addr;
}

void uart16550_mmio_write8(uintptr_t addr, uint8_t v)
{
	*(volatile uint8_t *)addr = v;
}

static void wr(const struct uart16550 *u, unsigned reg, uint8_t v)
{
	u->write(u->base + ((uintptr_t)reg << u->reg_shift), v);
}

static uint8_t rd(const struct uart16550 *u, unsigned reg)
{
	return u->read(u->base + ((uintptr_t)reg << u->reg_shift));
}

void uart16550_init(const struct uart16550 *u, uint32_t baud)
{
	uint16_t div = (uint16_t)(u->clock_hz / (16 * baud));

	wr(u, UART_IER, 0);
	wr(u, UART_LCR, LCR_DLAB);
	wr(u, UART_DATA, div & 0xff);
	wr(u, UART_IER, div >> 8);
	wr(u, UART_LCR, LCR_8N1);
	/* FCR is left as the firmware set it: turning the FIFOs on or off
	 * flushes them (QEMU's too), losing input typed or piped before the
	 * kernel started; receive is by interrupt, a byte at a time is
	 * enough. */
	wr(u, UART_MCR, MCR_DTR_RTS);
}

void uart16550_putc(const struct uart16550 *u, char c)
{
	while (!(rd(u, UART_LSR) & LSR_THRE))
		arch_cpu_relax();
	wr(u, UART_DATA, (uint8_t)c);
}

int uart16550_getc(const struct uart16550 *u)
{
	if (!(rd(u, UART_LSR) & LSR_DR))
		return -1;
	return rd(u, UART_DATA);
}

void uart16550_rx_irq_enable(const struct uart16550 *u)
{
	wr(u, UART_MCR, MCR_DTR_RTS | MCR_OUT2);
	wr(u, UART_IER, IER_RDA);
}

bool uart16550_tx_room(const struct uart16550 *u)
{
	return rd(u, UART_LSR) & LSR_THRE;
}

void uart16550_tx_put(const struct uart16550 *u, char c)
{
	wr(u, UART_DATA, (uint8_t)c);
}

/* IER is read back (DLAB is clear after init): RDA stays as it was. The
 * THRE interrupt comes as THRI is turned on with THR already empty. */
void uart16550_tx_irq(const struct uart16550 *u, bool on)
{
	uint8_t ier = rd(u, UART_IER);
	wr(u, UART_IER, on ? ier | IER_THRI : ier & ~IER_THRI);
}
