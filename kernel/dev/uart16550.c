/*
 * 16550 UART, transmit only and polled: the console writes a byte once the
 * transmit holding register is empty. Registers are reached through the
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
#define FCR_ENABLE_CLEAR 0x07	/* enable FIFOs, clear RX and TX */
#define MCR_DTR_RTS	0x03
#define LSR_THRE	0x20	/* transmit holding register empty */

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
	wr(u, UART_FCR, FCR_ENABLE_CLEAR);
	wr(u, UART_MCR, MCR_DTR_RTS);
}

void uart16550_putc(const struct uart16550 *u, char c)
{
	while (!(rd(u, UART_LSR) & LSR_THRE))
		arch_cpu_relax();
	wr(u, UART_DATA, (uint8_t)c);
}
