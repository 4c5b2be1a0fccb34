/*
 * Out-of-line forms of what the kernel has inline, for applications
 * (include/gmk.h), which cannot see the inline bodies' internals.
 */
#include <stdint.h>

#include "kernel/percpu.h"
#include "kernel/time.h"

uint64_t time_now(void);
int num_cpu(void);
uint64_t core_idle_ns(int core);

/* Go's time.Now's monotonic reading: ns since boot. */
uint64_t time_now(void)
{
	return nanotime();
}

/* Go's runtime.NumCPU: the cores the board has (ncpus). */
int num_cpu(void)
{
	return (int)ncpus;
}

/* The time core has spent halted, idle, since boot (cpu_idle_ns: a halt
 * in progress counted too); 0 for a core there is not. */
uint64_t core_idle_ns(int core)
{
	if (core < 0 || (unsigned)core >= ncpus)
		return 0;
	return cpu_idle_ns(&cpus[core]);
}
