/*
 * Where the execution trace goes (sched/tracebuf.c): QEMU's debug console
 * at port 0xe9 (`-debugcon file:...`), a byte per port write. The device
 * reads back 0xe9; with nothing there (a real PC, or QEMU without
 * -debugcon) the port reads 0xff, and the trace is hex-dumped on the
 * console instead.
 */
#include "arch/x86_64/io.h"
#include "kernel/tracesink.h"

#define DEBUGCON_PORT	0xe9
#define DEBUGCON_MAGIC	0xe9	/* QEMU's isa-debugcon readback default */

const char *arch_trace_sink_open(void)
{
	return inb(DEBUGCON_PORT) == DEBUGCON_MAGIC ? "debugcon (port 0xe9)" : NULL;
}

bool arch_trace_sink_write(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		outb(DEBUGCON_PORT, p[i]);
	return true;
}

void arch_trace_sink_close(void) {}
