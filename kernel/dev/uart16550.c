/*
 * 16550 UART (COM ports of a PC), transmit only and polled: the console
 * writes a byte once the transmit holding register is empty.
 */
#include <stdint.h>

#include "arch/x86_64/io.h"
#include "kernel/cpu.h"
#include "kernel/dev/uart16550.h"

/* Register offsets from the base port. */
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
#define UART_CLOCK_DIV_BASE 115200	/* 1.8432 MHz / 16 */

void uart16550_init(uint16_t port, uint32_t baud)
{
	uint16_t div = UART_CLOCK_DIV_BASE / baud;

	outb(port + UART_IER, 0);
	outb(port + UART_LCR, LCR_DLAB);
	outb(port + UART_DATA, div & 0xff);
	outb(port + UART_IER, div >> 8);
	outb(port + UART_LCR, LCR_8N1);
	outb(port + UART_FCR, FCR_ENABLE_CLEAR);
	outb(port + UART_MCR, MCR_DTR_RTS);
}

void uart16550_putc(uint16_t port, char c)
{
	while (!(inb(port + UART_LSR) & LSR_THRE))
		arch_cpu_relax();
	outb(port + UART_DATA, (uint8_t)c);
}
