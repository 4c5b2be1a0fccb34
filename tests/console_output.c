/*
 * Console output by the UART's transmit interrupt (kernel/console.c):
 * a G that writes more than the transmit ring holds parks on the
 * console's pollDesc until the interrupt makes room, and the core runs
 * other Gs meanwhile. With polled output the same console_write holds
 * the core, interrupts masked, for all of it: the other G does not run
 * (the test fails: no park, and the counter never sees one).
 *
 * Under QEMU with a fast reader the UART takes bytes as fast as the
 * interrupt can be taken: right after each park the interrupts empty the
 * ring, and the writer then waits for its P (the counter's slice), not
 * for the UART. A reader slower than the guest (a full pipe: QEMU's 16550
 * then holds THRE clear) makes the wait the UART's; docs/devices.md
 * gives the figures of both.
 *
 * The text is checked on the host, byte for byte: make test boots this
 * with txcheck=1 at one core and tools/check-serial-out compares what
 * came out of QEMU's serial port between the two marker lines with the
 * length and CRC-32 the kernel prints, and with the pattern.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/console.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "sched/netpoll.h"
#include "tests/sched_testutil.h"

#define TX_TEXT (64 * 1024)
#define TX_LINE 64		/* bytes per line, '\n' included */

static char text[TX_TEXT];

/* The pattern tools/check-serial-out expects: line i is "tx NNNNN "
 * and then letters from i, to TX_LINE bytes with the '\n'. */
static void make_text(void)
{
	for (unsigned i = 0; i < TX_TEXT / TX_LINE; i++) {
		char *l = text + i * TX_LINE;
		int n = snprintf(l, TX_LINE, "tx %05u ", i);
		for (int k = n; k < TX_LINE - 1; k++)
			l[k] = (char)('a' + (i + (unsigned)k) % 26);
		l[TX_LINE - 1] = '\n';
	}
}

/* zlib's CRC-32, as Python's zlib.crc32 computes it. */
static uint32_t crc32(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = 0xffffffffu;
	while (n--) {
		c ^= *b++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static volatile uint32_t count_stop;
static volatile uint64_t counted, counted_parked, runs_after_park;
static struct waitgroup count_wg;

/* Never yields. Counts its iterations, those while a G was still parked
 * on the poller (the writer, waiting for the UART), and the times it ran
 * after a writer parked for room (console_tx_waits moved since it last
 * looked): only a write that gives up the core lets it see those. */
static void counter(void *arg)
{
	uint64_t last = atomic_load64(&console_tx_waits);
	(void)arg;
	while (!atomic_load32(&count_stop)) {
		atomic_store64(&counted, counted + 1);
		if (netpoll_waiters())
			atomic_store64(&counted_parked, counted_parked + 1);
		uint64_t w = atomic_load64(&console_tx_waits);
		if (w != last) {
			last = w;
			atomic_store64(&runs_after_park, runs_after_park + 1);
		}
	}
	waitgroup_done(&count_wg);
}

TEST_TXCHECK(console_write_of_64k_parks_the_writer_and_lets_another_g_run)
{
	ASSERT(console_tx_by_interrupt());
	ASSERT_EQ(sched_nprocs(), 1);	/* the counter runs only when we do not */
	make_text();
	uint32_t crc = crc32(text, sizeof text);

	atomic_store32(&count_stop, 0);
	atomic_store64(&counted, 0);
	atomic_store64(&runs_after_park, 0);
	atomic_store64(&counted_parked, 0);
	waitgroup_add(&count_wg, 1);
	go(counter, NULL);
	/* The counter's rate alone: we sleep, it has the P. */
	uint64_t c0 = atomic_load64(&counted), t0 = nanotime();
	sleep_ns(50 * NSEC_PER_MSEC);
	uint64_t calib_n = atomic_load64(&counted) - c0, calib_ns = nanotime() - t0;
	ASSERT_GT(calib_n, 0);

	printf("# txcheck begin\n");
	uint64_t waits0 = console_tx_waits, irqs0 = console_tx_irqs;
	uint64_t spins0 = console_tx_spins;
	c0 = atomic_load64(&counted);
	uint64_t r0 = atomic_load64(&runs_after_park);
	uint64_t p0 = atomic_load64(&counted_parked);
	t0 = nanotime();
	console_write(text, sizeof text);
	uint64_t t1 = nanotime();
	uint64_t ran = atomic_load64(&counted) - c0;
	uint64_t runs = atomic_load64(&runs_after_park) - r0;
	uint64_t ran_parked = atomic_load64(&counted_parked) - p0;
	uint64_t waits = console_tx_waits - waits0, irqs = console_tx_irqs - irqs0;
	uint64_t spins = console_tx_spins - spins0;
	printf("# txcheck end: %u bytes crc32 %08x\n", (unsigned)sizeof text,
	       (unsigned)crc);

	atomic_store32(&count_stop, 1);
	waitgroup_wait(&count_wg);
	/* The counter's iterations during the write, in its own running
	 * time at the rate it had alone. */
	uint64_t ran_us = ran * calib_ns / calib_n / 1000;
	uint64_t parked_us = ran_parked * calib_ns / calib_n / 1000;
	printf("# console tx: %u bytes in %llu us; writer parked %llu times, "
	       "%llu transmit interrupts, %llu polled waits; a CPU-bound G ran "
	       "~%llu us meanwhile (%llu iterations at its rate alone), after "
	       "%llu of the parks, ~%llu us while the writer was still parked\n",
	       (unsigned)sizeof text, (unsigned long long)((t1 - t0) / 1000),
	       (unsigned long long)waits, (unsigned long long)irqs,
	       (unsigned long long)spins, (unsigned long long)ran_us,
	       (unsigned long long)ran, (unsigned long long)runs,
	       (unsigned long long)parked_us);
	EXPECT_GE(waits, 1);		/* it parked: the ring was full */
	EXPECT_GE(runs, 1);		/* and the core ran the other G */
	EXPECT_GE(irqs, 1);
	EXPECT_EQ(spins, 0);		/* a G never polls for room */
}
