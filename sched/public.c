/*
 * Out-of-line forms of what the kernel has inline, for applications
 * (include/gmk.h), which cannot see the inline bodies' internals.
 */
#include <stdint.h>

#include "kernel/time.h"

uint64_t time_now(void);

/* Go's time.Now's monotonic reading: ns since boot. */
uint64_t time_now(void)
{
	return nanotime();
}
