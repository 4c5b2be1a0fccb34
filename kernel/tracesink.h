/*
 * The execution trace's way out of the machine (sched/tracebuf.c), one per
 * arch: semihosting on aarch64 (arch/aarch64/tracesink.c), QEMU's debug
 * console on x86-64 (arch/x86_64/tracesink.c). Where neither is present the
 * tracer hex-dumps on the console, which every board has.
 */
#ifndef GMK_KERNEL_TRACESINK_H
#define GMK_KERNEL_TRACESINK_H

#include <stdbool.h>
#include <stddef.h>

/* The host file semihosting writes, in the emulator's working directory. */
#define TRACE_SINK_FILE "gmk-trace.bin"

/* Returns a description of the sink, or NULL when there is none. */
const char *arch_trace_sink_open(void);
bool arch_trace_sink_write(const void *buf, size_t len);
void arch_trace_sink_close(void);

#endif
