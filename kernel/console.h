#ifndef GMK_KERNEL_CONSOLE_H
#define GMK_KERNEL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The console. printf/vprintf/puts/putchar are the C library's formatting
 * (vsnprintf from picolibc or newlib) retargeted here: text is assembled
 * per goroutine (per core for code that is not one) and written a whole
 * line at a time under one lock, so one goroutine's line is never split
 * by another's text, on its core or any other. A G's partial line goes
 * out when it fills (CONSOLE_GLINE bytes), when the G parks and when it
 * exits.
 *
 * Where the board's UART interrupts on transmit (console_tx_attach), the
 * lines go into a transmit ring that the UART's interrupt drains, and a
 * goroutine that finds the ring full parks until the interrupt makes room
 * (sched/console_io.c, through the poller). Code that cannot park (an
 * interrupt handler, g0, a G holding a spinlock or with interrupts masked,
 * the boot before the scheduler) drains the ring itself by polling when it
 * needs room, so the order of everything written is kept. Without a
 * transmit interrupt every byte is written polled (board_putc).
 */
void console_write(const char *s, size_t n);
/* console_write, unless this core is inside the console already (a
 * formatting call of the console's own that ran out of memory): then
 * nothing, and false. */
bool console_try_write(const char *s, size_t n);
/* Write s now, without waiting for the end of the line (after the
 * writer's pending partial line): echo and prompts. */
void console_write_now(const char *s, size_t n);
/* After a panic: this core writes without the lock (others are stopping);
 * what the ring holds is written out first, then everything is polled. */
void console_panic_mode(void);
/* Is this core the one reporting a panic (after console_panic_mode)? */
bool console_panicking_here(void);
/* Write out what the ring holds, polled, and write polled from now on:
 * the machine is leaving (board_exit). Any context. */
void console_flush(void);

/* ---- transmit by interrupt: the board's half ---- */

/* The console UART's transmitter, for the ring. Called with the console
 * lock held and interrupts masked. */
struct console_tx_ops {
	bool (*room)(void);	/* the FIFO takes a byte now */
	void (*put)(char c);	/* write one byte (room() said yes) */
	void (*irq)(bool on);	/* the transmit interrupt on or off */
	void (*mirror)(char c);	/* optional: a second sink written at once
				   (a screen), byte for byte as the UART's */
	unsigned fifo;		/* bytes written per interrupt at most */
};
/* The board, once the UART's interrupt is routed (to any core): console
 * output goes through the ring from now on. */
void console_tx_attach(const struct console_tx_ops *ops);
/* The board's UART interrupt handler, on every interrupt of the UART
 * (before kernel_console_interrupt): refill the FIFO from the ring. */
void console_tx_interrupt(void);

#define CONSOLE_TX_RING 4096	/* bytes; a power of two */
/* A goroutine's line buffer: a longer line goes out in pieces this long. */
#define CONSOLE_GLINE	236
/* A goroutine's line (kernel/glocal.h's struct glocal points to it), the
 * G's own: allocated at its first printf, kept until it exits. gopark
 * reads len to flush a partial line (sched/park.c). */
struct console_gline {
	uint32_t len;			/* bytes in buf, not yet written out */
	char buf[CONSOLE_GLINE];
};

/* ---- a goroutine's line: what kernel/glocal.c calls ---- */
struct glocal;
/* Write out the G's partial line (it is about to park). */
void console_gline_flush(struct glocal *l);
/* Write out the G's partial line and free its buffer (it is exiting). */
void console_gline_free(struct glocal *l);

/* ---- tests: what the console writes, as the serial line sees it ----
 * Between start and stop, every byte the console writes (lines whole, as
 * they reach the ring or the UART; '\r' left out) is also copied into
 * buf, up to size bytes; stop returns how many were. One capture at a
 * time; buf must stay valid until stop. */
void console_capture_start(char *buf, size_t size);
size_t console_capture_stop(void);
/* Bytes captured so far. */
size_t console_capture_len(void);

/* ---- transmit by interrupt: what the scheduler's half calls ----------
 * (sched/console_io.c; the kernel calls it through kernel/sched_hooks.h:
 * sched_console_tx_can_park, _wait, _room) */

/* For the wait: true if the ring has room for need bytes; else the
 * interrupt calls sched_console_tx_room once there is. */
bool console_tx_has_room(size_t need);
/* For the wait, once the G is parked: make sure the transmitter runs
 * (its interrupt makes the room). */
void console_tx_start(void);

/* Statistics. waits: Gs parked for room; spins: times a context that
 * cannot park polled the UART for room; irqs: transmit interrupts that
 * wrote bytes; bytes: bytes through the ring. */
extern volatile uint64_t console_tx_waits, console_tx_spins, console_tx_irqs,
	console_tx_bytes;
bool console_tx_by_interrupt(void);

#endif
