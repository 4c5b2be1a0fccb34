/*
 * The console (see console.h): line assembly per goroutine (and per core
 * for what is not a goroutine), one lock, and either polled output
 * (board_putc) or a transmit ring that the UART's interrupt drains.
 *
 * A goroutine's line: a G's text goes into a buffer of its own (struct
 * console_gline, allocated at its first write and pointed at from its
 * G-local area, kernel/glocal.h) and out, whole, at a newline, when the
 * buffer fills, when the G parks (glocal_park: a prompt before a read)
 * and when it exits. So a line that a G prints in pieces, preempted or
 * yielding between them, is never split by another G's text, whichever
 * core each runs on. Code that is not a G, or runs with interrupts
 * masked (an interrupt handler, a G inside an _irqsave lock), uses its
 * core's line (struct cpu's line[]), as everything did before goroutines.
 *
 * The transmit ring, and why gmk has one where Go has none: Go has no
 * console of its own; a goroutine writing to a slow file descriptor gets
 * EAGAIN and parks on the descriptor's write side (internal/poll's
 * FD.Write -> pollDesc.waitWrite, the pollDesc's wg), and netpoll readies
 * it when epoll says the descriptor is writable again. gmk's console is
 * that descriptor: "writable" is room in the ring, which the UART's
 * transmit interrupt makes (console_tx_interrupt), and a G that finds the
 * ring full parks on the console's pollDesc for 'w' (sched/console_io.c)
 * instead of spinning on the UART's FIFO-full bit with the core held.
 *
 * Everything in the ring is under console_lock, taken with interrupts
 * masked: writers append whole lines, the interrupt handler and contexts
 * that cannot park take bytes out to the UART. The transmit interrupt is
 * on only while the ring holds bytes (an empty FIFO interrupts for as long
 * as it is enabled). It is started at the end of each write call, and by
 * a G about to park (once parked, see console_tx_start): within one call
 * the ring only fills, so a call larger than the ring parks on every
 * ring-full even where the UART is as fast as the interrupt (QEMU's).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/console.h"
#include "kernel/glocal.h"
#include "kernel/kmalloc.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/sched_hooks.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

#define FORMAT_BUF 512
/* A waiting writer is readied once this much of the ring is free: it then
 * has half a ring's transmit time to come back before the UART idles
 * (Linux's tty layer wakes writers at a low-water mark the same way). */
#define TX_WAKE_ROOM (CONSOLE_TX_RING / 2)
/* A panicking core waits this long for the lock before writing anyway. */
#define PANIC_LOCK_WAIT_NS (50 * NSEC_PER_MSEC)
/* A piece of console_write_now's text: with each '\n' doubled it fits
 * the ring (a line does too: line[] is 256 bytes). */
#define NOW_PIECE 256

_Static_assert((CONSOLE_TX_RING & (CONSOLE_TX_RING - 1)) == 0,
	       "CONSOLE_TX_RING power of two");
_Static_assert(2 * NOW_PIECE <= TX_WAKE_ROOM, "a line fits the wake room");

static struct spinlock console_lock = SPINLOCK_INIT("console");
/* Core id + 1 of a panicking core that writes without the lock; 0 = none. */
static volatile uint32_t console_owner_forced;

/* The transmit ring, under console_lock. */
static char txring[CONSOLE_TX_RING];
static uint32_t txhead, txtail;		/* next to send, next free */
static const struct console_tx_ops *volatile txops;	/* NULL: polled */
static bool tx_armed;		/* the transmit interrupt is on */
static bool tx_wanted;		/* a G waits for room (console_tx_has_room) */

volatile uint64_t console_tx_waits, console_tx_spins, console_tx_irqs,
	console_tx_bytes;

static inline uint32_t tx_free(void)
{
	return CONSOLE_TX_RING - (txtail - txhead);
}

/* Set by tx_push: it stopped on a full FIFO (the UART, not the
 * interrupt, is what limits the drain). */
static bool tx_fifo_full;

/* Give the UART what its FIFO takes now, at most max bytes. */
static uint32_t tx_push(uint32_t max)
{
	uint32_t n = 0;
	tx_fifo_full = false;
	while (txhead != txtail && n < max) {
		if (!txops->room()) {
			tx_fifo_full = true;
			break;
		}
		txops->put(txring[txhead % CONSOLE_TX_RING]);
		txhead++;
		n++;
	}
	return n;
}

/* Start the transmitter if it is idle: fill the FIFO (a PL011 interrupts
 * when its FIFO drains past a level, so it must be primed), then let its
 * interrupt send the rest. */
static void tx_start_locked(void)
{
	if (!txops || tx_armed || txhead == txtail)
		return;
	tx_push(txops->fifo);
	if (txhead != txtail) {
		tx_armed = true;
		txops->irq(true);
	}
}

/* A waiting G was promised room: tell it (after the lock is dropped)
 * once half the ring is free -- if the UART is what holds the bytes back
 * (`uart_bound`: its FIFO was full). Where the FIFO still takes them the
 * next interrupts follow at once and empty the ring (QEMU's UARTs): the G
 * is told when it is empty, after them, rather than halfway through a
 * burst of interrupts that its core has to take before running it. */
static bool tx_room_for_waiter(bool uart_bound)
{
	if (!tx_wanted)
		return false;
	if (txhead != txtail && (!uart_bound || tx_free() < TX_WAKE_ROOM))
		return false;
	tx_wanted = false;
	return true;
}

/* Polled, for contexts that cannot park: until the ring has room. */
static void tx_drain_polled(uint32_t need)
{
	while (tx_free() < need)
		if (!tx_push(CONSOLE_TX_RING))
			arch_cpu_relax();
}

static void ring_put(const char *s, size_t n)
{
	const struct console_tx_ops *ops = txops;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			txring[txtail++ % CONSOLE_TX_RING] = '\r';
			if (ops->mirror)
				ops->mirror('\r');
		}
		txring[txtail++ % CONSOLE_TX_RING] = s[i];
		if (ops->mirror)
			ops->mirror(s[i]);
	}
}

static size_t newlines(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* A goroutine's line (see the top; struct console_gline: console.h):
 * with len and kmalloc's header, one 256-byte slot. */
_Static_assert(sizeof(struct console_gline) + 16 <= 256, "one kmalloc slot");

/* Test capture (console_capture_start): what emit writes, '\r' left out. */
static char *cap_buf;
static size_t cap_len, cap_size;

static void capture(const char *s, size_t n)
{
	if (!cap_buf)
		return;
	for (size_t i = 0; i < n && cap_len < cap_size; i++)
		cap_buf[cap_len++] = s[i];
}

/* One writer's stay in the console: the lock (unless panicking) with
 * interrupts masked, whether it may park for room, and the line it
 * appends to (its G's, or NULL: its core's). */
struct wctx {
	unsigned long flags;
	bool forced, canpark;
	struct console_gline *gl;
};

/* The running G's line, allocated at its first use; NULL where the
 * writer uses its core's line (not a G, interrupts masked, or no memory
 * for a buffer). Before enter: it may allocate. */
static struct console_gline *gline_get(void)
{
	if (!arch_irq_enabled())
		return NULL;
	struct glocal *l = glocal_current();
	if (!l)
		return NULL;
	if (!l->line)
		l->line = kmalloc_try(sizeof *l->line);	/* zeroed */
	return l->line;
}

static void enter(struct wctx *w)
{
	/* Before masking: a G may park only if there is a ring (a racy
	 * look: emit decides under the lock), it came with interrupts on
	 * and no spinlock (preempt count 0), and the scheduler says it is a
	 * G at all (not g0, not before the scheduler). */
	w->canpark = txops && arch_irq_enabled() && preempt_count() == 0 &&
		     sched_console_tx_can_park();
	w->flags = arch_irq_save();
	w->forced = atomic_load32(&console_owner_forced) == this_cpu()->id + 1;
	if (w->forced)
		w->canpark = false;
	else
		spin_lock(&console_lock);
}

static void leave(struct wctx *w)
{
	tx_start_locked();
	if (!w->forced)
		spin_unlock(&console_lock);
	arch_irq_restore(w->flags);
}

/* Write s (at most 2 * NOW_PIECE bytes once '\n' is doubled) as one
 * piece: nothing from another core comes inside it. If the writer may
 * park, s must not be this core's line buffer (other Gs use it then). */
static void emit(struct wctx *w, const char *s, size_t n)
{
	for (;;) {
		if (!txops) {
			capture(s, n);
			for (size_t i = 0; i < n; i++) {
				if (s[i] == '\n')
					board_putc('\r');
				board_putc(s[i]);
			}
			if (board_putc_flush)
				board_putc_flush();
			return;
		}
		uint32_t need = (uint32_t)(n + newlines(s, n));
		if (tx_free() >= need) {
			capture(s, n);
			ring_put(s, n);
			atomic_xadd64(&console_tx_bytes, need);
			return;
		}
		if (w->canpark) {
			/* Go's FD.Write on EAGAIN: wait for the descriptor to
			 * be writable, then try again. */
			spin_unlock(&console_lock);
			arch_irq_restore(w->flags);
			sched_console_tx_wait(need);
			w->flags = arch_irq_save();
			spin_lock(&console_lock);
			continue;
		}
		atomic_xadd64(&console_tx_spins, 1);
		tx_drain_polled(need);
		if (tx_room_for_waiter(true))
			sched_console_tx_room();	/* netpollready: lock-free */
	}
}

/* Take this core's line out of its buffer and write it. A writer that
 * may park copies it first: while it waits, other Gs write on this core. */
static void emit_line(struct wctx *w)
{
	struct cpu *c = this_cpu();
	size_t n = c->linelen;

	c->linelen = 0;
	if (!w->canpark) {
		emit(w, c->line, n);	/* nothing else runs here meanwhile */
		return;
	}
	char l[sizeof c->line];
	memcpy(l, c->line, n);
	emit(w, l, n);
}

/* Take the G's line out of its buffer and write it. While a writer that
 * may park waits, nothing else writes to the buffer (it is this G's), and
 * the length is 0 first, so the wait's glocal_park finds nothing to do. */
static void emit_gline(struct wctx *w)
{
	size_t n = w->gl->len;

	w->gl->len = 0;
	emit(w, w->gl->buf, n);
}

/* Append to the writer's line buffer; write out every completed line.
 * The core can change across a line written (a G that parked). */
static void line_append(struct wctx *w, const char *s, size_t n)
{
	struct console_gline *gl = w->gl;

	if (gl) {
		for (size_t i = 0; i < n; i++) {
			gl->buf[gl->len++] = s[i];
			if (s[i] == '\n' || gl->len == sizeof gl->buf)
				emit_gline(w);
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct cpu *c = this_cpu();
		c->line[c->linelen++] = s[i];
		if (s[i] == '\n' || c->linelen == sizeof c->line)
			emit_line(w);
	}
}

void console_write(const char *s, size_t n)
{
	struct wctx w;

	w.gl = gline_get();
	enter(&w);
	line_append(&w, s, n);
	leave(&w);
}

bool console_try_write(const char *s, size_t n)
{
	if (spin_held(&console_lock))
		return false;
	console_write(s, n);
	return true;
}

void console_capture_start(char *buf, size_t size)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	cap_len = 0;
	cap_size = size;
	cap_buf = buf;
	spin_unlock_irqrestore(&console_lock, flags);
}

size_t console_capture_stop(void)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	size_t n = cap_len;
	cap_buf = NULL;
	spin_unlock_irqrestore(&console_lock, flags);
	return n;
}

size_t console_capture_len(void)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	size_t n = cap_len;
	spin_unlock_irqrestore(&console_lock, flags);
	return n;
}

void console_gline_flush(struct glocal *l)
{
	struct wctx w;

	if (!l->line->len)
		return;
	w.gl = l->line;
	enter(&w);
	emit_gline(&w);
	leave(&w);
}

void console_gline_free(struct glocal *l)
{
	struct console_gline *gl = l->line;

	console_gline_flush(l);
	l->line = NULL;
	kfree(gl);
}

void console_write_now(const char *s, size_t n)
{
	struct wctx w;

	w.gl = gline_get();
	enter(&w);
	if (w.gl && w.gl->len)
		emit_gline(&w);
	if (this_cpu()->linelen)
		emit_line(&w);
	while (n) {
		size_t k = n < NOW_PIECE ? n : NOW_PIECE;
		emit(&w, s, k);
		s += k;
		n -= k;
	}
	leave(&w);
}

/* Drain the ring, polled, and write polled from now on. */
static void tx_to_polled(bool forced)
{
	unsigned long flags = arch_irq_save();
	bool locked = false;

	if (!forced && !spin_held(&console_lock)) {
		uint64_t until = nanotime() + PANIC_LOCK_WAIT_NS;
		while (!(locked = spin_trylock(&console_lock)) && nanotime() < until)
			arch_cpu_relax();
	}
	if (txops) {
		if (tx_armed)
			txops->irq(false);
		tx_armed = false;
		tx_drain_polled(CONSOLE_TX_RING);
		txops = NULL;
	}
	if (locked)
		spin_unlock(&console_lock);
	arch_irq_restore(flags);
}

void console_flush(void)
{
	tx_to_polled(atomic_load32(&console_owner_forced) == this_cpu()->id + 1);
}

bool console_panicking_here(void)
{
	return atomic_load32(&console_owner_forced) == this_cpu()->id + 1;
}

void console_panic_mode(void)
{
	struct cpu *c = this_cpu();

	/* Everything queued before the panic goes out before its message. */
	tx_to_polled(false);
	atomic_store32(&console_owner_forced, c->id + 1);
	/* Finish a partial line first: the panicking G's, then the core's.
	 * The G's only if its area is sane: an overflow of the pool stack
	 * above may have written over it, and the report comes first. */
	struct glocal *l = glocal_current_checked();
	if (l && l->line && l->line->len) {
		struct wctx w = { .gl = l->line };
		enter(&w);
		line_append(&w, "\n", 1);
		leave(&w);
	}
	if (c->linelen) {
		struct wctx w = { .gl = NULL };
		enter(&w);
		line_append(&w, "\n", 1);
		leave(&w);
	}
}

/* ---- transmit by interrupt -------------------------------------------- */

void console_tx_attach(const struct console_tx_ops *ops)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	txops = ops;
	spin_unlock_irqrestore(&console_lock, flags);
}

bool console_tx_by_interrupt(void)
{
	return txops != NULL;
}

void console_tx_interrupt(void)
{
	bool wake;

	if (!txops)
		return;
	spin_lock(&console_lock);	/* interrupts are masked */
	if (txops && tx_armed) {
		if (tx_push(txops->fifo))
			atomic_xadd64(&console_tx_irqs, 1);
		if (txhead == txtail) {
			tx_armed = false;
			txops->irq(false);
		}
	}
	wake = tx_room_for_waiter(tx_fifo_full);
	spin_unlock(&console_lock);
	if (wake)
		sched_console_tx_room();
}

bool console_tx_has_room(size_t need)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	bool room = !txops || tx_free() >= need;
	if (!room)
		tx_wanted = true;
	spin_unlock_irqrestore(&console_lock, flags);
	return room;
}

void console_tx_start(void)
{
	unsigned long flags = spin_lock_irqsave(&console_lock);
	tx_start_locked();
	spin_unlock_irqrestore(&console_lock, flags);
}

/*
 * A G formats before it takes the console: the C library's state (newlib's
 * dtoa buffers, errno) is its own (kernel/glocal.h). What is not a G uses
 * its core's state, which an interrupt handler on the same core could
 * use too: it formats under the lock, with interrupts masked.
 */
int vprintf(const char *fmt, va_list ap)
{
	char buf[FORMAT_BUF];
	struct wctx w;
	int n;

	w.gl = gline_get();
	if (w.gl) {
		n = vsnprintf(buf, sizeof buf, fmt, ap);
		enter(&w);
	} else {
		enter(&w);
		n = vsnprintf(buf, sizeof buf, fmt, ap);
	}
	if (n > 0)
		line_append(&w, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
	leave(&w);
	return n;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int puts(const char *s)
{
	console_write(s, strlen(s));
	console_write("\n", 1);
	return 1;
}

int (putchar)(int ch)	/* parenthesised: picolibc defines a putchar macro */
{
	char c = (char)ch;

	console_write(&c, 1);
	return ch;
}
