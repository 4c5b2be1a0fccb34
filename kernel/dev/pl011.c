#include "kernel/dev/pl011.h"
#include "kernel/mmio.h"
#include "kernel/spinlock.h"

#define UART_DR		0x00
#define UART_FR		0x18
#define UART_CR		0x30
#define UART_IMSC	0x38	/* interrupt mask set/clear: 1 = enabled */
#define UART_INT_TX	(1u << 5)	/* transmit (FIFO at or under its level) */
#define UART_FR_RXFE	(1u << 4)	/* receive FIFO empty */
#define UART_INT_RX	(1u << 4)	/* receive (FIFO at its level) */
#define UART_INT_RT	(1u << 6)	/* receive timeout (bytes left under the level) */
#define UART_FR_BUSY	(1u << 3)	/* still transmitting */
#define UART_FR_TXFF	(1u << 5)	/* transmit FIFO full */
#define UART_CR_UARTEN	(1u << 0)
#define UART_CR_TXE	(1u << 8)
#define UART_CR_RXE	(1u << 9)
#define UART_CR_RTS	(1u << 11)	/* nUARTRTS asserted: send to us */
#define UART_DR_OE	(1u << 11)	/* overrun: bytes lost before this one */

/* IMSC and CR are read-modify-written by the transmit side (under the
 * console's lock) and the receive side (under console_in's): this lock
 * orders the two. */
static struct spinlock reg_lock = SPINLOCK_INIT("pl011");

static uintptr_t uart;

void pl011_init(uintptr_t base)
{
	uart = base;
	uint32_t cr = rd32(uart + UART_CR);
	if ((cr & (UART_CR_UARTEN | UART_CR_TXE)) != (UART_CR_UARTEN | UART_CR_TXE))
		wr32(uart + UART_CR, cr | UART_CR_UARTEN | UART_CR_TXE | UART_CR_RXE);
}

void pl011_putc(char c)
{
	if (!uart)
		return;
	while (rd32(uart + UART_FR) & UART_FR_TXFF)
		;
	wr32(uart + UART_DR, (uint8_t)c);
}

void pl011_flush(void)
{
	if (!uart)
		return;
	while (rd32(uart + UART_FR) & UART_FR_BUSY)
		;
}

int pl011_getc(bool *overrun)
{
	if (!uart || (rd32(uart + UART_FR) & UART_FR_RXFE))
		return -1;
	uint32_t d = rd32(uart + UART_DR);
	if ((d & UART_DR_OE) && overrun)
		*overrun = true;
	return (int)(d & 0xff);
}

static void rmw(uintptr_t reg, uint32_t set, uint32_t clear)
{
	unsigned long flags = spin_lock_irqsave(&reg_lock);
	wr32(uart + reg, (rd32(uart + reg) & ~clear) | set);
	spin_unlock_irqrestore(&reg_lock, flags);
}

void pl011_rx_irq(bool on)
{
	if (!uart)
		return;
	/* No write to ICR: QEMU's PL011 raises RX once, as the first byte
	 * arrives, and clearing it would lose a byte already waiting. Off,
	 * the bytes stay in the FIFO (QEMU's serial backend reads no more
	 * while it is full) and RTS tells a sender with flow control to
	 * wait; on, RX is still raised for them and interrupts at once. */
	uint32_t rx = UART_INT_RX | UART_INT_RT;
	if (on) {
		rmw(UART_CR, UART_CR_RTS, 0);
		rmw(UART_IMSC, rx, 0);
	} else {
		rmw(UART_IMSC, 0, rx);
		rmw(UART_CR, 0, UART_CR_RTS);
	}
}

bool pl011_tx_room(void)
{
	return uart && !(rd32(uart + UART_FR) & UART_FR_TXFF);
}

void pl011_tx_put(char c)
{
	wr32(uart + UART_DR, (uint8_t)c);
}

void pl011_tx_irq(bool on)
{
	rmw(UART_IMSC, on ? UART_INT_TX : 0, on ? 0 : UART_INT_TX);
}
