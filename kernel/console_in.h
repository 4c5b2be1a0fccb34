/*
 * Console input, the kernel's half: a ring of bytes the UART's receive
 * interrupt fills (single producer: the one core the interrupt is routed
 * to) and readers drain (single consumer: sched/console_io.c serialises
 * them). Waiting for bytes is the scheduler's business (the poller): the
 * kernel only calls its hooks.
 *
 * No byte is lost to a reader that falls behind: once the ring is full the
 * interrupt handler stops taking bytes from the UART and turns its receive
 * interrupt off (and drops RTS), so they wait in the UART's FIFO and,
 * behind it, on the line (a sender that honours RTS, or QEMU's serial
 * backend, which reads no more while the FIFO is full); the reader turns
 * the interrupt back on once it has emptied half the ring (Linux's tty
 * throttle and unthrottle). Bytes the UART itself loses (its FIFO
 * overran: a sender that ignores the flow control) are reported on the
 * console at once, "console: N input bytes dropped".
 *
 * A line that can end (the hosted board's standard input, at its end of
 * file) says so through the receiver's `closed`: once every byte before
 * the end is in the ring, readers get the end instead of waiting for
 * bytes that will never come (console_rx_closed). A UART's line never
 * ends; its receiver has no `closed`.
 *
 * A board whose UART interrupts on receive:
 *   once, to turn receive interrupts on:    console_rx_attach(&ops)
 *   in its interrupt handler:               console_rx_interrupt()
 *   after acknowledging the controller:     kernel_console_interrupt(tf)
 */
#ifndef GMK_KERNEL_CONSOLE_IN_H
#define GMK_KERNEL_CONSOLE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONSOLE_RX_RING 4096	/* bytes; a power of two */
/* A throttled receiver is let go again once this much of the ring is
 * free: one interrupt then brings a burst, not a byte. */
#define CONSOLE_RX_RESUME_ROOM (CONSOLE_RX_RING / 2)

/* The console UART's receiver. */
struct console_rx_ops {
	/* The next received byte, or -1 if none; sets *overrun when the
	 * UART lost bytes before it (its receive FIFO overran). */
	int (*get)(bool *overrun);
	/* The receive interrupt (and the line's RTS) on or off. Any core;
	 * console_in serialises the calls, the driver its register against
	 * its transmit side. */
	void (*irq)(bool on);
	/* Optional: true once the line has ended and get has returned its
	 * last byte (get returns -1 for good). Read when get returns -1;
	 * the receiver interrupts once more at the end, so that it is read. */
	bool (*closed)(void);
};

/* The board, once the UART's interrupt is routed: turns the receive
 * interrupt on; console input works from now on. Returns the receiver it
 * replaces (NULL at boot): a test puts a receiver in software in, and
 * the board's back (NULL: none, as on a board without one). */
const struct console_rx_ops *console_rx_attach(const struct console_rx_ops *ops);
/* The board's UART interrupt handler (interrupts masked): take what the
 * ring has room for; if it fills, the receive interrupt goes off. */
void console_rx_interrupt(void);

size_t console_rx_take(void *buf, size_t n);	/* one reader at a time */
size_t console_rx_buffered(void);
/* The line has ended: every byte it brought is in the ring (load-acquire:
 * a console_rx_take after a true answer sees them all). Cleared when a
 * receiver is attached. */
bool console_rx_closed(void);

struct trapframe;
/* The board's UART interrupt, after the controller is acknowledged: may
 * switch to another G and not return (as the timer interrupt may). */
void kernel_console_interrupt(struct trapframe *tf);

extern volatile bool console_rx_irq_enabled;
/* Statistics: bytes received; bytes the UART dropped (each overrun it
 * flags counts one, the least it lost); times the ring filled and the
 * receiver was throttled; nanotime() of the last receive interrupt that
 * brought bytes. */
extern volatile uint64_t console_rx_bytes, console_rx_overruns, console_rx_throttles,
	console_rx_irq_ns;

#endif
