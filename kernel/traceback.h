/*
 * Stacks in a fatal error's report, as Go prints them: per frame
 *
 *   function(...)
 *   	file.c:LINE +0xOFF
 *
 * from the image's own table (kernel/symtab.h), walking the frame records
 * that every arch keeps (-fno-omit-frame-pointer: aarch64 x29/x30, x86-64
 * rbp and the return address above it). kernel/panic.c prints the message
 * and asks the scheduler (sched_traceback, kernel/sched_hooks.h) for the
 * goroutines, whose stacks come here.
 *
 * How much is printed is traceback= on the command line, Go's GOTRACEBACK:
 * none (the message only), single (the failing goroutine; the default) or
 * all (every goroutine). As in Go, a fatal error (fatal(): a deadlock, a
 * misuse the runtime caught) prints every goroutine unless it is none.
 */
#ifndef GMK_KERNEL_TRACEBACK_H
#define GMK_KERNEL_TRACEBACK_H

#include <stdbool.h>
#include <stdint.h>

enum traceback_level { TRACEBACK_NONE, TRACEBACK_SINGLE, TRACEBACK_ALL };

extern enum traceback_level traceback_level;

/* traceback=<val>: false (and nothing set) if val is not none, single or
 * all; "" keeps the default. */
bool traceback_set(const char *val);

/*
 * Print a stack: the frame at pc (0: none; the walk starts at fp's
 * record); then, if pc's function has no frame record (a leaf, or one
 * stopped in its prologue), its caller, from the link register lr or,
 * where the arch has none (lr 0), the word at the stack pointer sp (0:
 * not known); then every frame record from fp up. A record is followed
 * only while it lies in the stack [lo, hi) (both 0: whichever of this
 * core's own stacks holds fp; if none, no record is read), is aligned,
 * and the next one lies above it; the walk ends at a zero return address
 * (a G's first frame, goentry's).
 */
void traceback_frames(uintptr_t pc, uintptr_t lr, uintptr_t sp, uintptr_t fp,
		      uintptr_t lo, uintptr_t hi);

/* Go's "created by F in goroutine N" and the go statement's file:line,
 * for the G that the go statement returning to gopc made. */
void traceback_createdby(uintptr_t gopc, uint64_t parentgoid);

/* printf for the report: also kept in a buffer that a fatal test's
 * expectation reads (kernel/test.c, test_expect_traceback). */
void tb_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *traceback_text(void);

#endif
