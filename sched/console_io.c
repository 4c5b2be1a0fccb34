/*
 * Console input through the poller: Go's fd read loop (internal/poll's
 * FD.Read: read, on EAGAIN pollDesc.waitRead, again) over the kernel's
 * receive ring (kernel/console_in.c).
 */
#include "kernel/console.h"
#include "kernel/console_in.h"
#include "sched/console_io.h"
#include "sched/netpoll.h"
#include "sched/schedimpl.h"
#include "sched/sync.h"

static struct pollDesc console_pd = { .name = "console" };
static struct mutex readers;	/* one waiter per mode: Go's fdMutex */

static void console_rx_ready(void)
{
	netpollready(&console_pd, 'r');
}

void console_io_init(void)
{
	console_rx_hook = console_rx_ready;
	device_wake_hook = netpoll_kick;
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
