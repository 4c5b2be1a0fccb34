/*
 * Console input through the poller: Go's fd read loop (internal/poll's
 * FD.Read: read, on EAGAIN pollDesc.waitRead, again) over the kernel's
 * receive ring (kernel/console_in.c).
 *
 * Console output through it too, where the UART interrupts on transmit:
 * Go's FD.Write loop (write, on EAGAIN pollDesc.waitWrite, again) over
 * the kernel's transmit ring (kernel/console.c). The G parks on the same
 * descriptor's write side (wg), and the transmit interrupt readies it
 * once half the ring is free (kernel/console.c, tx_room_for_waiter), as
 * epoll reports a socket writable again.
 */
#include "kernel/atomic.h"
#include "kernel/console.h"
#include "kernel/console_in.h"
#include "kernel/sched_hooks.h"
#include "sched/console_io.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/sync.h"

static struct pollDesc console_pd = { .name = "console" };
static struct mutex readers;	/* one waiter per mode: Go's fdMutex */
static struct mutex writers;

void sched_console_rx_ready(void)
{
	netpollready(&console_pd, 'r');
}

/* From the transmit interrupt (or a context that drained the ring by
 * polling): room to write. Not a reason to take a busy core, unlike a
 * keypress (netpoll_kick): the writer runs at its P's next netpoll step
 * or tick, or on an idle P at once. */
void sched_console_tx_room(void)
{
	netpollready(&console_pd, 'w');
	netpoll_wake();
}

/* A G, not g0, once the scheduler runs: it may park. */
bool sched_console_tx_can_park(void)
{
	if (!atomic_load32(&mainstarted))
		return false;
	struct g *gp = getg();
	return gp && gp->m && gp != gp->m->g0;
}

/*
 * Once the writer is parked (on g0): start the transmitter. Starting it
 * before parking would let its interrupt, on this very core where the
 * UART is as fast as the interrupt (QEMU's), empty the ring before the G
 * is off the core: the G would then never wait, and would hold the core
 * for the whole write through the interrupt handler, as polling does. On
 * a real UART, far slower than the writer, it makes no difference. (Go
 * needs nothing of the kind: the kernel's socket drains on its own.)
 */
static void console_tx_parked(void *unused)
{
	(void)unused;
	atomic_xadd64(&console_tx_waits, 1);
	console_tx_start();
}

void sched_console_tx_wait(size_t need)
{
	mutex_lock(&writers);
	while (!console_tx_has_room(need))
		poll_wait_commit(&console_pd, 'w', console_tx_parked, NULL);
	mutex_unlock(&writers);
}

long console_read(void *buf, size_t len)
{
	if (len == 0)
		return 0;
	long r;
	mutex_lock(&readers);
	for (;;) {
		size_t got = console_rx_take(buf, len);
		if (got) {
			r = (long)got;
			break;
		}
		if (!console_rx_irq_enabled) {
			r = CONSOLE_ERR_NOINPUT;
			break;
		}
		if (console_rx_closed()) {
			/* Ended: the bytes before the end are in the ring now. */
			got = console_rx_take(buf, len);
			r = got ? (long)got : CONSOLE_ERR_EOF;
			break;
		}
		if (poll_wait(&console_pd, 'r') == POLL_ERR_TIMEOUT) {
			r = CONSOLE_ERR_TIMEOUT;
			break;
		}
	}
	mutex_unlock(&readers);
	return r;
}

void console_set_read_deadline(uint64_t deadline)
{
	poll_setdeadline(&console_pd, deadline, 'r');
}
