/*
 * Where the execution trace goes (sched/tracebuf.c): a host file through
 * semihosting when the board has it (QEMU with -semihosting), written to
 * the emulator's working directory as TRACE_SINK_FILE. Without semihosting
 * there is no sink and the trace is hex-dumped on the console.
 */
#include <stddef.h>

#include "arch/aarch64/semihost.h"
#include "kernel/tracesink.h"

#if GMK_SEMIHOSTING
static long handle = -1;

const char *arch_trace_sink_open(void)
{
	handle = semihost_open(TRACE_SINK_FILE, SEMIHOST_MODE_WB);
	return handle < 0 ? NULL : "semihosting file " TRACE_SINK_FILE;
}

bool arch_trace_sink_write(const void *buf, size_t len)
{
	return semihost_write(handle, buf, len) == 0;
}

void arch_trace_sink_close(void)
{
	semihost_close(handle);
	handle = -1;
}
#else
const char *arch_trace_sink_open(void) { return NULL; }
bool arch_trace_sink_write(const void *buf, size_t len) { return false; }
void arch_trace_sink_close(void) {}
#endif
