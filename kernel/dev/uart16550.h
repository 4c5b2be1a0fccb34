/* 16550-compatible UART in x86 I/O space, polled (no interrupts). */
#ifndef GMK_KERNEL_DEV_UART16550_H
#define GMK_KERNEL_DEV_UART16550_H

#include <stdint.h>

#define UART16550_COM1 0x3f8

void uart16550_init(uint16_t port, uint32_t baud);	/* 8N1, FIFOs on */
void uart16550_putc(uint16_t port, char c);		/* waits for room */

#endif
