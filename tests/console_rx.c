/*
 * The console's receive ring against a reader that falls behind, with a
 * UART in software put in place of the board's (console_rx_attach): a
 * 16-byte FIFO, a line that brings bytes faster than the reader takes
 * them, and "interrupts" raised by the test itself, whenever the
 * receiver's interrupt is on and its FIFO holds bytes, through the
 * board's own path (console_rx_interrupt, interrupts masked).
 *
 * - A sender that waits while the FIFO is full (QEMU's serial backend, a
 *   line with flow control): every byte reaches the reader, in order,
 *   however far the reader falls behind; the ring throttles the receiver
 *   (its interrupt off) while it is full and lets it go once the reader
 *   has made room.
 * - A sender that does not wait: what the FIFO cannot hold is lost in the
 *   UART, and the console counts it (and says so on the console).
 *
 * Runs on every board, the hosted one included (it has no receiver of its
 * own). Nothing else may feed the console meanwhile: a test boot's serial
 * input is empty, or sent only when a TEST_INPUT test asks for it.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/console_in.h"
#include "kernel/cpu.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"

#define SW_FIFO		16u	/* a 16550A's, a PL011's */
#define SW_LINE		(3u * CONSOLE_RX_RING + 123u)	/* bytes sent */
#define SW_BURST	4u	/* bytes the line brings per step */
#define SW_READ_EVERY	64u	/* steps between two reads ... */
#define SW_READ_MAX	100u	/* ... of at most this many bytes */
/* Steps are bounded only to end a run that is stuck (a receiver left
 * throttled): the line needs SW_LINE / SW_BURST of them, the reader
 * SW_LINE / SW_READ_MAX * SW_READ_EVERY. */
#define SW_MAX_STEPS	(64u * SW_LINE)

static struct {
	uint8_t fifo[SW_FIFO];
	volatile uint32_t head, tail;	/* FIFO: the "UART" takes at tail,
					   sw_get (under console_in's lock) at head */
	volatile uint32_t irq_on, irq_offs, irq_ons;
	volatile uint32_t overrun;	/* bytes were lost: flag the next get */
	uint32_t sent, lost;		/* line bytes handed over, lost */
	bool waits;			/* the sender waits while the FIFO is full */
} sw;

static uint8_t pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + (i >> 8));
}

static int sw_get(bool *overrun)
{
	if (atomic_xchg32(&sw.overrun, 0))
		*overrun = true;
	uint32_t h = sw.head;
	if (h == atomic_load32(&sw.tail))	/* load-acquire: the byte */
		return -1;
	int c = sw.fifo[h % SW_FIFO];
	atomic_store32(&sw.head, h + 1);	/* store-release: slot free */
	return c;
}

static void sw_irq(bool on)
{
	atomic_store32(&sw.irq_on, on);
	atomic_xadd32(on ? &sw.irq_ons : &sw.irq_offs, 1);
}

static const struct console_rx_ops sw_ops = { .get = sw_get, .irq = sw_irq };

/* One step of the line: up to SW_BURST bytes into the FIFO. */
static void sw_line_step(void)
{
	for (uint32_t k = 0; k < SW_BURST && sw.sent < SW_LINE; k++) {
		uint32_t t = sw.tail;
		if (t - atomic_load32(&sw.head) == SW_FIFO) {
			if (sw.waits)
				return;		/* the byte waits on the line */
			sw.lost++;		/* the UART overruns */
			sw.sent++;
			atomic_store32(&sw.overrun, 1);
			continue;
		}
		sw.fifo[t % SW_FIFO] = pattern(sw.sent++);
		atomic_store32(&sw.tail, t + 1);	/* store-release: the byte */
	}
}

/* The UART's interrupt, while it is on and has bytes. */
static void sw_interrupt(void)
{
	if (!atomic_load32(&sw.irq_on) || atomic_load32(&sw.tail) == atomic_load32(&sw.head))
		return;
	unsigned long flags = arch_irq_save();
	console_rx_interrupt();
	arch_irq_restore(flags);
}

static void sw_start(bool waits)
{
	memset(&sw, 0, sizeof sw);
	sw.waits = waits;
}

TEST(console_rx_full_ring_throttles_the_uart_and_loses_no_byte)
{
	static uint8_t buf[SW_READ_MAX];
	uint64_t overruns0 = console_rx_overruns, throttles0 = console_rx_throttles;
	uint32_t got = 0, bad = 0, first_bad = 0, steps = 0;

	ASSERT_EQ(console_rx_buffered(), 0);
	sw_start(true);
	const struct console_rx_ops *board = console_rx_attach(&sw_ops);
	ASSERT_EQ(sw.irq_on, 1);
	while (got < SW_LINE && steps++ < SW_MAX_STEPS) {
		sw_line_step();
		sw_interrupt();
		if (steps % SW_READ_EVERY)
			continue;
		size_t n = console_rx_take(buf, SW_READ_MAX);
		for (size_t i = 0; i < n; i++, got++)
			if (buf[i] != pattern(got) && bad++ == 0)
				first_bad = got;
	}
	console_rx_attach(board);
	printf("# %u of %u bytes read in %u steps; receiver throttled %llu times "
	       "(interrupt off %u, on %u)\n", got, SW_LINE, steps,
	       (unsigned long long)(console_rx_throttles - throttles0), sw.irq_offs,
	       sw.irq_ons);
	EXPECT_EQ(got, SW_LINE);
	if (bad)
		test_fail(__FILE__, __LINE__, "%u bytes out of order, the first at %u", bad,
			  first_bad);
	EXPECT_EQ(console_rx_overruns - overruns0, 0);
	/* The reader is 16 times slower than the line: the ring filled and
	 * the receiver was held, then let go, more than once. */
	uint64_t throttles = console_rx_throttles - throttles0;
	EXPECT_GE(throttles, 2);
	/* Off once per throttle and as it was taken out; on as it was put
	 * in and once per throttle: every throttle was let go. */
	EXPECT_EQ(sw.irq_offs, throttles + 1);
	EXPECT_EQ(sw.irq_ons, sw.irq_offs);
	EXPECT_EQ(console_rx_buffered(), 0);
}

TEST(console_rx_bytes_the_uart_drops_are_counted_and_reported)
{
	static uint8_t buf[SW_READ_MAX];
	uint64_t overruns0 = console_rx_overruns;
	uint32_t got = 0, steps = 0;

	ASSERT_EQ(console_rx_buffered(), 0);
	sw_start(false);
	const struct console_rx_ops *board = console_rx_attach(&sw_ops);
	while (got + sw.lost < SW_LINE && steps++ < SW_MAX_STEPS) {
		sw_line_step();
		sw_interrupt();
		if (steps % SW_READ_EVERY == 0)
			got += (uint32_t)console_rx_take(buf, SW_READ_MAX);
	}
	while (atomic_load32(&sw.tail) != sw.head || console_rx_buffered()) {
		sw_interrupt();		/* what the FIFO and the ring still hold */
		got += (uint32_t)console_rx_take(buf, SW_READ_MAX);
	}
	console_rx_attach(board);
	uint64_t counted = console_rx_overruns - overruns0;
	printf("# %u bytes read, %u lost in the UART, %llu counted as dropped\n", got,
	       sw.lost, (unsigned long long)counted);
	EXPECT_EQ(got + sw.lost, SW_LINE);
	EXPECT_GT(sw.lost, 0);
	/* Each overrun the UART flags counts one byte, the least it lost. */
	EXPECT_GE(counted, 1);
	EXPECT_LE(counted, sw.lost);
}
