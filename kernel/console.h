#ifndef GMK_KERNEL_CONSOLE_H
#define GMK_KERNEL_CONSOLE_H

#include <stddef.h>

/*
 * The console. printf/vprintf/puts/putchar are the C library's formatting
 * (vsnprintf from picolibc or newlib) retargeted here: text is assembled
 * per core and written a whole line at a time under one lock, so lines from
 * different cores never interleave.
 */
void console_write(const char *s, size_t n);
/* Write s now, without waiting for the end of the line (after this
 * core's pending partial line): echo and prompts. */
void console_write_now(const char *s, size_t n);
/* After a panic: this core writes without the lock (others are stopping). */
void console_panic_mode(void);

#endif
