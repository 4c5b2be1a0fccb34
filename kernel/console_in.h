/*
 * Console input, the kernel's half: a ring of bytes the UART's receive
 * interrupt fills (single producer: the one core the interrupt is routed
 * to) and readers drain (single consumer: sched/console_io.c serialises
 * them). Waiting for bytes is the scheduler's business (the poller): the
 * kernel only calls its hooks.
 *
 * A board whose UART interrupts on receive:
 *   in its interrupt handler, for each byte:  console_rx_put(byte)
 *   after acknowledging the controller:      kernel_console_interrupt(tf)
 *   once, when receive interrupts are on:     console_rx_irq_enabled = true
 */
#ifndef GMK_KERNEL_CONSOLE_IN_H
#define GMK_KERNEL_CONSOLE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONSOLE_RX_RING 4096	/* bytes; a power of two */

void console_rx_put(uint8_t c);			/* interrupt handler */
size_t console_rx_take(void *buf, size_t n);	/* one reader at a time */
size_t console_rx_buffered(void);

struct trapframe;
/* The board's UART interrupt, after the controller is acknowledged: may
 * switch to another G and not return (as the timer interrupt may). */
void kernel_console_interrupt(struct trapframe *tf);

extern volatile bool console_rx_irq_enabled;
/* Statistics: bytes received, bytes dropped on a full ring, nanotime()
 * of the last receive interrupt that brought bytes. */
extern volatile uint64_t console_rx_bytes, console_rx_overruns, console_rx_irq_ns;

/* Set by sched/: bytes arrived (the poller readies the reader), and a
 * device readied Gs (make a core run them). */
extern void (*console_rx_hook)(void);
extern void (*device_wake_hook)(struct trapframe *tf);

#endif
