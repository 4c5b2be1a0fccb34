/*
 * The host tests run on the kernel's own code as the hosted board builds
 * it (build/hosted[-tsan]/libgmk.a: kernel/spinlock.c, kernel/panic.c,
 * kernel/time.c, sched/, arch/x86_64-linux/), without booting it: each test thread
 * makes itself core `id` through the arch's per-core register, as a core's
 * thread does when the board starts it, and a panic is the kernel's (its
 * report on stdout, exit status 1).
 */
#ifndef GMK_TESTS_HOST_HOST_H
#define GMK_TESTS_HOST_HOST_H

#include <unistd.h>

#include "kernel/board.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/time.h"

/* Make the calling thread core `id` (this_cpu(), spin_held, ...). */
static inline void host_cpu_init(unsigned id)
{
	if (id >= MAX_CPUS)
		panic("host_cpu_init: core %u >= MAX_CPUS", id);
	cpus[id].self = &cpus[id];
	cpu_set_id(&cpus[id], id);
	arch_set_this_cpu(&cpus[id]);
}

/* Once, first: the clock (nanotime, delay_ns), as kmain does, and how
 * often a spin-wait yields the host CPU, as the board sets it (threads
 * that outnumber the host's CPUs: every 4 pauses). */
static inline void host_tests_init(unsigned threads)
{
	host_cpu_init(0);
	time_init(board_counter_hz());
	if (threads > (unsigned)sysconf(_SC_NPROCESSORS_ONLN))
		host_relax_mask = 3;
}

#endif
