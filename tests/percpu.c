/*
 * The per-core register (kernel/percpu.h): this_cpu() names the core's own
 * struct cpu on every core.
 */
#include <stdint.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/percpu.h"
#include "kernel/test.h"

static volatile uint32_t percpu_seen[MAX_CPUS];
static void record_percpu(void *arg)
{
	struct cpu *c = this_cpu();
	(void)arg;
	if (c->self == c && c == &cpus[c->id])
		atomic_xadd32(&percpu_seen[c->id], 1);
}

TEST(percpu_register_names_own_core)
{
	memset((void *)percpu_seen, 0, sizeof percpu_seen);
	smp_call_all(record_percpu, NULL);
	for (unsigned i = 0; i < ncpus; i++)
		EXPECT_EQ(percpu_seen[i], 1);
}
