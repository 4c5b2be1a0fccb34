/*
 * Console input ring (see console_in.h). Lock-free single-producer,
 * single-consumer: the interrupt handler publishes a byte with a
 * store-release of the tail, the reader consumes with a store-release of
 * the head; each side load-acquires the other's index.
 *
 * Flow control: the handler throttles the receiver (its interrupt off)
 * when the ring is full, the reader unthrottles it once half the ring is
 * free. `throttled` and the receiver's interrupt change together under
 * rx_lock, so they never disagree; whether to take the lock each side
 * decides lock-free, a Dekker pair: the handler stores throttled, then
 * (full barrier) looks at the head again; the reader stores the head,
 * then (full barrier) looks at throttled. At least one of them sees the
 * other's store, so a ring that gained room as it was throttled is never
 * left throttled with the reader gone to sleep on an empty ring.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/console_in.h"
#include "kernel/sched_hooks.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

_Static_assert((CONSOLE_RX_RING & (CONSOLE_RX_RING - 1)) == 0,
	       "CONSOLE_RX_RING power of two");
_Static_assert(CONSOLE_RX_RESUME_ROOM > 0 && CONSOLE_RX_RESUME_ROOM <= CONSOLE_RX_RING,
	       "CONSOLE_RX_RESUME_ROOM within the ring");

static uint8_t ring[CONSOLE_RX_RING];
static volatile uint32_t head;		/* reader: next byte to take */
static volatile uint32_t tail;		/* interrupt: next free slot */
static volatile uint32_t pushed;	/* bytes since the last interrupt end */
/* The line ended (the receiver's closed): set by the interrupt handler
 * under rx_lock after its last put (store-release), cleared by attach.
 * closed_news: set with it, for kernel_console_interrupt to wake the
 * reader once (the interrupt's core only, as pushed). */
static volatile uint32_t closed;
static volatile uint32_t closed_news;

static const struct console_rx_ops *volatile rxops;
/* 1: the ring filled, the receive interrupt is off. Written under
 * rx_lock, read lock-free by the reader (see the top). */
static volatile uint32_t throttled;
static struct spinlock rx_lock = SPINLOCK_INIT("console rx");

volatile bool console_rx_irq_enabled;
volatile uint64_t console_rx_bytes, console_rx_overruns, console_rx_throttles,
	console_rx_irq_ns;

const struct console_rx_ops *console_rx_attach(const struct console_rx_ops *ops)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);
	const struct console_rx_ops *old = rxops;
	if (old)
		old->irq(false);	/* its bytes wait in it meanwhile */
	rxops = ops;
	atomic_store32(&throttled, 0);
	atomic_store32(&closed, 0);	/* a new line: its receiver says if it ended */
	if (ops)
		ops->irq(true);
	console_rx_irq_enabled = ops != NULL;
	spin_unlock_irqrestore(&rx_lock, flags);
	return old;
}

static inline bool ring_full(void)
{
	/* load-acquire: the reader's slots are free only once it is done */
	return tail - atomic_load32(&head) == CONSOLE_RX_RING;
}

static void put(uint8_t c)
{
	uint32_t t = tail;
	ring[t % CONSOLE_RX_RING] = c;
	atomic_store32(&tail, t + 1);	/* store-release: the byte first */
	/* One writer (under rx_lock); readers poll it lock-free. */
	atomic_store64(&console_rx_bytes, console_rx_bytes + 1);
	/* Relaxed: the puts are serialised by rx_lock, and a reset by
	 * kernel_console_interrupt on another core (the hosted board's tests
	 * feed the ring from a G) at worst leaves one spurious kick. */
	uint32_t n = __atomic_load_n(&pushed, __ATOMIC_RELAXED);
	__atomic_store_n(&pushed, n + 1, __ATOMIC_RELAXED);
	if (n == 0)			/* the interrupt's first byte */
		atomic_store64(&console_rx_irq_ns, nanotime());
}

void console_rx_interrupt(void)
{
	uint32_t lost = 0;

	spin_lock(&rx_lock);		/* interrupts are masked */
	/* Under the lock: console_rx_attach may swap the receiver from
	 * another core (the hosted board's tests, beside its stdin). */
	const struct console_rx_ops *ops = rxops;
	if (!ops) {
		spin_unlock(&rx_lock);
		return;
	}
	if (atomic_load32(&throttled)) {	/* a late interrupt: leave the bytes */
		spin_unlock(&rx_lock);
		return;
	}
	for (;;) {
		while (!ring_full()) {
			bool overrun = false;
			int c = ops->get(&overrun);
			lost += overrun;
			if (c < 0) {
				if (ops->closed && !atomic_load32(&closed) && ops->closed()) {
					atomic_store32(&closed, 1);	/* store-release: the puts first */
					atomic_store32(&closed_news, 1);
				}
				goto out;
			}
			put((uint8_t)c);
		}
		/* Full: the rest waits in the UART and on the line. */
		atomic_xchg32(&throttled, 1);	/* full barrier: before the re-look */
		if (ring_full()) {
			ops->irq(false);
			atomic_xadd64(&console_rx_throttles, 1);
			break;
		}
		/* The reader made room meanwhile, and may have missed the flag:
		 * keep taking bytes instead. */
		atomic_store32(&throttled, 0);
	}
out:
	spin_unlock(&rx_lock);
	if (lost) {
		atomic_xadd64(&console_rx_overruns, lost);
		printf("console: %u input byte%s dropped (the UART's receive FIFO "
		       "overran: the sender ignores flow control)\n", lost,
		       lost == 1 ? "" : "s");
	}
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
	smp_mb();			/* the head before throttled (see the top) */
	if (atomic_load32(&throttled) &&
	    CONSOLE_RX_RING - (t - h) >= CONSOLE_RX_RESUME_ROOM) {
		unsigned long flags = spin_lock_irqsave(&rx_lock);
		/* Throttled, the handler adds nothing: the tail is final. */
		if (atomic_load32(&throttled) &&
		    CONSOLE_RX_RING - (atomic_load32(&tail) - h) >= CONSOLE_RX_RESUME_ROOM) {
			atomic_store32(&throttled, 0);
			rxops->irq(true);	/* the UART interrupts for what it holds */
		}
		spin_unlock_irqrestore(&rx_lock, flags);
	}
	return got;
}

size_t console_rx_buffered(void)
{
	return atomic_load32(&tail) - atomic_load32(&head);
}

bool console_rx_closed(void)
{
	return atomic_load32(&closed) != 0;	/* load-acquire: the last bytes */
}

void kernel_console_interrupt(struct trapframe *tf)
{
	if (atomic_xchg32(&pushed, 0) == 0 && !atomic_load32(&closed_news))
		return;
	atomic_store32(&closed_news, 0);
	sched_console_rx_ready();
	netpoll_kick(tf);	/* may not return */
}
