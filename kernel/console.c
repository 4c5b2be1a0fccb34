#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"

#define FORMAT_BUF 512

static struct spinlock console_lock = SPINLOCK_INIT("console");
/* Core id + 1 of a panicking core that writes without the lock; 0 = none. */
static volatile uint32_t console_owner_forced;

static void emit_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			board_putc('\r');
		board_putc(s[i]);
	}
}

/* Append to this core's line buffer; write out every completed line. */
static void line_append(struct cpu *c, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		c->line[c->linelen++] = s[i];
		if (s[i] == '\n' || c->linelen == sizeof c->line) {
			emit_line(c->line, c->linelen);
			c->linelen = 0;
		}
	}
}

void console_write(const char *s, size_t n)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	bool forced = atomic_load32(&console_owner_forced) == c->id + 1;

	if (!forced)
		spin_lock(&console_lock);
	line_append(c, s, n);
	if (!forced)
		spin_unlock(&console_lock);
	arch_irq_restore(flags);
}

void console_write_now(const char *s, size_t n)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	bool forced = atomic_load32(&console_owner_forced) == c->id + 1;

	if (!forced)
		spin_lock(&console_lock);
	emit_line(c->line, c->linelen);
	c->linelen = 0;
	emit_line(s, n);
	if (!forced)
		spin_unlock(&console_lock);
	arch_irq_restore(flags);
}

void console_panic_mode(void)
{
	struct cpu *c = this_cpu();

	atomic_store32(&console_owner_forced, c->id + 1);
	if (c->linelen) {		/* finish a partial line first */
		line_append(c, "\n", 1);
	}
}

/*
 * newlib's vsnprintf keeps state in one global reentrancy structure (its
 * dtoa buffers), so formatting is serialised by the console lock too.
 * Formatting is quick next to the UART, which is the real bottleneck.
 */
int vprintf(const char *fmt, va_list ap)
{
	char buf[FORMAT_BUF];
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	bool forced = atomic_load32(&console_owner_forced) == c->id + 1;
	int n;

	if (!forced)
		spin_lock(&console_lock);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	if (n > 0)
		line_append(c, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
	if (!forced)
		spin_unlock(&console_lock);
	arch_irq_restore(flags);
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
