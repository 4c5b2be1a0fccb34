/*
 * Console input for Gs, through the poller (sched/netpoll.h): a reader
 * parks until the UART's receive interrupt brings bytes, and costs no
 * core meanwhile.
 *
 *   long n = console_read(buf, len);   >= 1 bytes, blocking; or
 *                                      CONSOLE_ERR_TIMEOUT after the read
 *                                      deadline, CONSOLE_ERR_NOINPUT on a
 *                                      board without receive interrupts,
 *                                      CONSOLE_ERR_EOF once every byte of
 *                                      an input that ended was read (the
 *                                      hosted board's stdin; a UART's
 *                                      line never ends)
 *   console_set_read_deadline(t)       absolute nanotime(), 0 = none (Go's
 *                                      SetReadDeadline); bytes that come
 *                                      after a timeout wait in the ring
 *   console_write_now(s, n)            write at once, partial line too
 *                                      (echo, prompts)
 */
#ifndef GMK_SCHED_CONSOLE_IO_H
#define GMK_SCHED_CONSOLE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/console.h"	/* console_write_now */

#define CONSOLE_ERR_TIMEOUT	(-1L)
#define CONSOLE_ERR_NOINPUT	(-2L)
#define CONSOLE_ERR_EOF		(-3L)	/* the input ended (Go's io.EOF) */

long console_read(void *buf, size_t len);
void console_set_read_deadline(uint64_t deadline);

#endif
