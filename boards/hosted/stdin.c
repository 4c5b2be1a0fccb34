/*
 * The hosted board's console input: the process's standard input as the
 * receiver of a UART (kernel/console_in.h), so that console_read, the
 * poller and run=shell work here as on the QEMU boards.
 *
 * A thread of its own (no core: it runs no kernel code) reads fd 0 into a
 * FIFO and raises the device interrupt on core 0 (host_core_raise_dev,
 * a signal), as a UART's receive interrupt reaches the core it is routed
 * to. The interrupt's handler takes the bytes from the FIFO into the
 * console's ring (console_rx_interrupt), and kernel_console_interrupt
 * readies the reader parked on the console: the same path as a PL011's or
 * a 16550's.
 *
 * No byte is lost, as with QEMU's serial backend: the thread reads only
 * while the FIFO has room, so when the ring is full and the receive
 * interrupt is off (console_in.c throttles it), the FIFO fills, the
 * thread stops reading, and the bytes wait in the pipe or the terminal,
 * whose writer then waits too. The FIFO never overruns.
 *
 * End of file (or a read error) ends the line: the receiver says so
 * through `closed` once the FIFO is empty, and console_read returns
 * CONSOLE_ERR_EOF after the last byte. A process started with fd 0 closed
 * has no console input (CONSOLE_ERR_NOINPUT, as a board without a
 * receiver).
 *
 * A terminal on fd 0 is put in the mode QEMU's `-serial stdio` gives it:
 * no line editing and no echo by the terminal (the shell echoes), bytes
 * as typed (Enter is \r), output newlines still \r\n; Ctrl-C still
 * signals the process. The mode is restored at exit, at board_exit (a
 * panic's included) and on a fatal signal (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGABRT), whose default action then ends the process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "arch/x86_64-linux/host.h"
#include "boards/hosted/hosted.h"
#include "kernel/atomic.h"
#include "kernel/console_in.h"

/* Bytes one read(2) may bring: a UART's FIFO, larger, since a read costs
 * a system call and a signal. A power of two. */
#define STDIN_FIFO	256u
_Static_assert((STDIN_FIFO & (STDIN_FIFO - 1)) == 0, "STDIN_FIFO power of two");

/* The core the interrupt is routed to (console_in.c: a single producer). */
#define STDIN_IRQ_CORE	0

/* Single producer (the reader thread, at tail), single consumer (the
 * interrupt handler, at head, under console_in's lock): each publishes
 * its index with a store-release and load-acquires the other's. */
static uint8_t fifo[STDIN_FIFO];
static volatile uint32_t fhead, ftail;
/* Futex word the reader thread sleeps on while the FIFO is full; the
 * consumer bumps it when it takes a byte from a full FIFO. */
static volatile uint32_t room_seq;
/* The receive interrupt is on (the ring has room). */
static volatile uint32_t rx_on;
/* The reader thread saw the end of file or an error: set after its last
 * tail store (store-release). */
static volatile uint32_t at_eof;

static bool tty_raw;
static struct termios tty_saved;

static long futex(volatile uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

/* The interrupt, if it is on. The caller's store (bytes, the end) comes
 * first: the full barrier pairs with stdin_irq's store of rx_on, so that
 * either the interrupt is raised here or stdin_irq sees what was stored. */
static void raise_if_on(void)
{
	smp_mb();
	if (atomic_load32(&rx_on))
		host_core_raise_dev(STDIN_IRQ_CORE);
}

static void *reader(void *unused)
{
	(void)unused;
	for (;;) {
		uint32_t seq = atomic_load32(&room_seq);
		uint32_t t = ftail;
		uint32_t used = t - atomic_load32(&fhead);	/* load-acquire: room */
		if (used == STDIN_FIFO) {
			/* Full: the rest waits in the pipe or the terminal. */
			futex(&room_seq, FUTEX_WAIT_PRIVATE, seq);
			continue;
		}
		uint32_t at = t % STDIN_FIFO;
		size_t n = STDIN_FIFO - used;
		if (n > STDIN_FIFO - at)
			n = STDIN_FIFO - at;	/* up to the wrap; the rest next time */
		ssize_t got = read(0, fifo + at, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			atomic_store32(&at_eof, 1);	/* store-release: after the tail */
			raise_if_on();
			return NULL;
		}
		atomic_store32(&ftail, t + (uint32_t)got);	/* store-release: the bytes */
		raise_if_on();
	}
}

/* ---- the receiver (kernel/console_in.h) --------------------------------- */

static int stdin_get(bool *overrun)
{
	(void)overrun;			/* the thread never overruns the FIFO */
	uint32_t h = fhead;
	uint32_t t = atomic_load32(&ftail);	/* load-acquire: the byte */
	if (h == t)
		return -1;
	int c = fifo[h % STDIN_FIFO];
	atomic_store32(&fhead, h + 1);	/* store-release: the slot is free */
	if (t - h == STDIN_FIFO) {	/* it was full: the thread may sleep */
		atomic_xadd32(&room_seq, 1);
		futex(&room_seq, FUTEX_WAKE_PRIVATE, 1);
	}
	return c;
}

static void stdin_irq(bool on)
{
	atomic_xchg32(&rx_on, on);	/* full barrier: see raise_if_on */
	/* A level-triggered receiver: turned on with bytes (or the end)
	 * waiting, it interrupts at once. */
	if (on && (atomic_load32(&ftail) != fhead || atomic_load32(&at_eof)))
		host_core_raise_dev(STDIN_IRQ_CORE);
}

static bool stdin_closed(void)
{
	/* The end first (load-acquire), then the tail it follows. */
	return atomic_load32(&at_eof) && atomic_load32(&ftail) == fhead;
}

static const struct console_rx_ops stdin_rx = {
	.get = stdin_get, .irq = stdin_irq, .closed = stdin_closed,
};

/* ---- the terminal --------------------------------------------------------- */

void hosted_stdin_restore(void)
{
	if (tty_raw) {
		(void)tcsetattr(0, TCSANOW, &tty_saved);	/* async-signal-safe */
		tty_raw = false;
	}
}

static void restore_and_die(int sig)
{
	hosted_stdin_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void tty_make_raw(void)
{
	static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT };
	struct termios t;

	if (!isatty(0) || tcgetattr(0, &tty_saved) != 0)
		return;
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = restore_and_die;
		sigemptyset(&sa.sa_mask);
		/* One the caller ignores (nohup's SIGHUP) stays ignored. */
		if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(fatal[i], &sa, NULL);
	}
	atexit(hosted_stdin_restore);
	t = tty_saved;
	/* What QEMU's stdio backend sets (char-stdio.c), ISIG kept. */
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
	t.c_oflag |= OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(0, TCSANOW, &t) == 0)
		tty_raw = true;
}

/* ---- attach ----------------------------------------------------------------- */

/* Whether fd 0 was open when the process started: looked at first thing,
 * before the board's own files (a core's schedstat) can take the number. */
static bool stdin_open;

void hosted_stdin_probe(void)
{
	stdin_open = fcntl(0, F_GETFD) >= 0;
}

void hosted_stdin_attach(void)
{
	if (!stdin_open)
		return;			/* fd 0 closed: no console input */
	tty_make_raw();
	int e = hosted_device_thread(reader);
	if (e) {
		hosted_stdin_restore();
		printf("gmk: hosted: no console input: pthread_create: %s\n", strerror(e));
		return;
	}
	console_rx_attach(&stdin_rx);
}

void hosted_console_interrupt(struct trapframe *tf)
{
	console_rx_interrupt();
	kernel_console_interrupt(tf);	/* may switch to the reader */
}
