/*
 * 16550 UART: the console writes a byte once the transmit holding
 * register is empty, polled or on its "THR empty" interrupt; bytes are received polled or by the
 * "received data available" interrupt. Registers are reached through the
 * accessors in struct uart16550 (see uart16550.h).
 */
#include <stdint.h>

#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/dev/uart16550.h"
#include "kernel/spinlock.h"

/* Register numbers. */
#define UART_DATA	0	/* THR (write); divisor low with DLAB */
#define UART_IER	1	/* interrupt enable; divisor high with DLAB */
#define UART_FCR	2	/* FIFO control (write) */
#define UART_IIR	2	/* interrupt identification (read) */
#define UART_LCR	3	/* line control */
#define UART_MCR	4	/* modem control */
#define UART_LSR	5	/* line status */

#define LCR_8N1		0x03
#define LCR_DLAB	0x80	/* divisor latch access */
#define MCR_DTR		0x01
#define MCR_RTS		0x02	/* asserted: the sender may send */
#define MCR_OUT2	0x08	/* gates the IRQ line on PC boards */
#define LSR_THRE	0x20	/* transmit holding register empty */
#define LSR_DR		0x01	/* data ready */
#define LSR_OE		0x02	/* overrun: bytes lost (clears as LSR is read) */
#define IER_RDA		0x01	/* interrupt on received data */
#define IER_THRI	0x02	/* interrupt while THR is empty */
#define IIR_NO_INT	0x01	/* no interrupt pending */

/* IER and MCR are read-modify-written by the transmit side (under the
 * console's lock) and the receive side (under console_in's): this lock
 * orders the two. One for every 16550: only the console's are switched. */
static struct spinlock reg_lock = SPINLOCK_INIT("uart16550");
/* LSR_OE seen by any read of LSR (the transmit side's too), until getc
 * reports it: reading LSR clears the flag in the UART. */
static volatile uint32_t overran;

static void wr(const struct uart16550 *u, unsigned reg, uint8_t v)
{
	u->write(u->base + ((uintptr_t)reg << u->reg_shift), v);
}

static uint8_t rd(const struct uart16550 *u, unsigned reg)
{
	return u->read(u->base + ((uintptr_t)reg << u->reg_shift));
}

static uint8_t lsr(const struct uart16550 *u)
{
	uint8_t v = rd(u, UART_LSR);
	if (v & LSR_OE)
		atomic_or32(&overran, 1);	/* full barrier: any core */
	return v;
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
	wr(u, UART_MCR, MCR_DTR | MCR_RTS);
}

void uart16550_putc(const struct uart16550 *u, char c)
{
	while (!(lsr(u) & LSR_THRE))
		arch_cpu_relax();
	wr(u, UART_DATA, (uint8_t)c);
}

int uart16550_getc(const struct uart16550 *u, bool *overrun)
{
	uint8_t v = lsr(u);
	if (atomic_load32(&overran) && overrun && atomic_xchg32(&overran, 0))
		*overrun = true;
	if (!(v & LSR_DR))
		return -1;
	return rd(u, UART_DATA);
}

static void rmw(const struct uart16550 *u, unsigned reg, uint8_t set, uint8_t clear)
{
	unsigned long flags = spin_lock_irqsave(&reg_lock);
	wr(u, reg, (uint8_t)((rd(u, reg) & ~clear) | set));
	spin_unlock_irqrestore(&reg_lock, flags);
}

/* Off, the bytes stay in the receiver (QEMU's serial backend reads no
 * more while it holds one) and RTS tells a sender with flow control to
 * wait; on, "data available" interrupts at once for what is there. OUT2
 * stays on: the transmit interrupt shares the line. */
void uart16550_rx_irq(const struct uart16550 *u, bool on)
{
	if (on) {
		rmw(u, UART_MCR, MCR_DTR | MCR_RTS | MCR_OUT2, 0);
		rmw(u, UART_IER, IER_RDA, 0);
	} else {
		rmw(u, UART_IER, 0, IER_RDA);
		rmw(u, UART_MCR, MCR_OUT2, MCR_RTS);
	}
}

void uart16550_irq_rearm(const struct uart16550 *u)
{
	unsigned long flags = spin_lock_irqsave(&reg_lock);
	if (!(rd(u, UART_IIR) & IIR_NO_INT)) {
		uint8_t ier = rd(u, UART_IER);
		wr(u, UART_IER, 0);	/* the line drops ... */
		wr(u, UART_IER, ier);	/* ... and rises: an edge */
	}
	spin_unlock_irqrestore(&reg_lock, flags);
}

bool uart16550_tx_room(const struct uart16550 *u)
{
	return lsr(u) & LSR_THRE;
}

void uart16550_tx_put(const struct uart16550 *u, char c)
{
	wr(u, UART_DATA, (uint8_t)c);
}

/* IER is read back (DLAB is clear after init): RDA stays as it was. The
 * THRE interrupt comes as THRI is turned on with THR already empty. */
void uart16550_tx_irq(const struct uart16550 *u, bool on)
{
	rmw(u, UART_IER, on ? IER_THRI : 0, on ? 0 : IER_THRI);
}
