/*
 * Where the execution trace goes (sched/tracebuf.c) on the hosted board:
 * the file named by GMK_TRACE_FILE, if set; otherwise nothing here, and
 * the trace is hex-dumped on the console as on a machine without a sink.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernel/tracesink.h"

static int trace_fd = -1;

const char *arch_trace_sink_open(void)
{
	const char *path = getenv("GMK_TRACE_FILE");

	if (!path || !*path)
		return NULL;
	trace_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return trace_fd < 0 ? NULL : path;
}

bool arch_trace_sink_write(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(trace_fd, p, len);
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

void arch_trace_sink_close(void)
{
	if (trace_fd >= 0)
		close(trace_fd);
	trace_fd = -1;
}
