/*
 * Console input ring (see console_in.h). Lock-free single-producer,
 * single-consumer: the interrupt handler publishes a byte with a
 * store-release of the tail, the reader consumes with a store-release of
 * the head; each side load-acquires the other's index.
 */
#include "kernel/atomic.h"
#include "kernel/console_in.h"
#include "kernel/time.h"

_Static_assert((CONSOLE_RX_RING & (CONSOLE_RX_RING - 1)) == 0,
	       "CONSOLE_RX_RING power of two");

static uint8_t ring[CONSOLE_RX_RING];
static volatile uint32_t head;		/* reader: next byte to take */
static volatile uint32_t tail;		/* interrupt: next free slot */
static volatile uint32_t pushed;	/* bytes since the last interrupt end */

volatile bool console_rx_irq_enabled;
volatile uint64_t console_rx_bytes, console_rx_overruns, console_rx_irq_ns;
void (*console_rx_hook)(void);
void (*device_wake_hook)(struct trapframe *tf);

void console_rx_put(uint8_t c)
{
	uint32_t t = tail;
	/* load-acquire: the reader's slots are free only once it is done */
	if (t - atomic_load32(&head) == CONSOLE_RX_RING) {
		console_rx_overruns++;
		return;
	}
	ring[t % CONSOLE_RX_RING] = c;
	atomic_store32(&tail, t + 1);	/* store-release: the byte first */
	console_rx_bytes++;
	if (pushed++ == 0)		/* the interrupt's first byte */
		atomic_store64(&console_rx_irq_ns, nanotime());
}

size_t console_rx_take(void *buf, size_t n)
{
	uint8_t *out = buf;
	uint32_t h = head;
	uint32_t t = atomic_load32(&tail);	/* load-acquire: the bytes */
	size_t got = 0;
	while (h != t && got < n)
		out[got++] = ring[h++ % CONSOLE_RX_RING];
	atomic_store32(&head, h);	/* store-release: slots free again */
	return got;
}

size_t console_rx_buffered(void)
{
	return atomic_load32(&tail) - atomic_load32(&head);
}

void kernel_console_interrupt(struct trapframe *tf)
{
	if (!pushed)
		return;
	pushed = 0;
	if (console_rx_hook)
		console_rx_hook();
	if (device_wake_hook)
		device_wake_hook(tf);	/* may not return */
}
