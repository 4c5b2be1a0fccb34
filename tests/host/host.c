/*
 * The kernel services sched/runq.c and sched/globrunq.c need, for a Linux
 * process: per-thread "cores", spinlocks, panic and delay_ns. Each test
 * thread calls host_cpu_init() first.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <time.h>

#include "kernel/atomic.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "tests/host/host.h"

#define HOST_SPINS_BEFORE_YIELD 64

__thread struct cpu *host_this_cpu;
__thread void *host_curg;
__thread volatile uint32_t host_irq_masked;
__thread volatile uint32_t host_irq_pending;
__thread uint32_t host_relax_spins;
uint32_t host_relax_mask = 63;

/* Nothing signals these threads: no interrupt is ever pending. */
void host_irq_replay(void) { host_irq_pending = 0; }
void *host_san_fiber_for(void *old_fiber, void *g) { return old_fiber; }

struct cpu cpus[MAX_CPUS];
unsigned ncpus = MAX_CPUS;
volatile unsigned ncpus_online;

void host_cpu_init(unsigned id)
{
	if (id >= MAX_CPUS)
		panic("host_cpu_init: core %u >= MAX_CPUS", id);
	cpus[id].self = &cpus[id];
	cpus[id].id = id;
	arch_set_this_cpu(&cpus[id]);
}

/* ---- spinlocks: tickets, as kernel/spinlock.h describes ---- */

void spin_init(struct spinlock *l, const char *name)
{
	l->next = 0;
	l->owner = 0;
	l->name = name;
	l->holder = -1;
}

void spin_lock(struct spinlock *l)
{
	uint32_t ticket = atomic_xadd32(&l->next, 1) - 1;
	/* Threads outnumber host cores: a waiter whose turn has come may be
	 * descheduled, so yield the host core after a short spin rather than
	 * burn the time slice the ticket holder needs. */
	for (unsigned spins = 0; atomic_load32(&l->owner) != ticket; spins++) {
		if (spins < HOST_SPINS_BEFORE_YIELD)
			arch_cpu_relax();
		else
			sched_yield();
	}
	__atomic_store_n(&l->holder, (int32_t)cpu_id(), __ATOMIC_RELAXED);
}

bool spin_trylock(struct spinlock *l)
{
	uint32_t owner = atomic_load32(&l->owner);
	if (!atomic_cas32(&l->next, owner, owner + 1))
		return false;
	__atomic_store_n(&l->holder, (int32_t)cpu_id(), __ATOMIC_RELAXED);
	return true;
}

void spin_unlock(struct spinlock *l)
{
	if (!spin_held(l))
		panic("spin_unlock of %s not held by core %u", l->name, cpu_id());
	__atomic_store_n(&l->holder, -1, __ATOMIC_RELAXED);
	atomic_store32(&l->owner, l->owner + 1);	/* release */
}

bool spin_held(const struct spinlock *l)
{
	return __atomic_load_n(&l->holder, __ATOMIC_RELAXED) == (int32_t)cpu_id();
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();
	spin_lock(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

/* ---- panic ---- */

static __attribute__((noreturn)) void vdie(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: core %u: ", kind, host_this_cpu ? cpu_id() : 0);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	abort();
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdie("panic", fmt, ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdie("fatal error", fmt, ap);
}

/* ---- time ---- */

uint64_t nanotime(void) { return arch_counter(); }

/* A sleep, not a spin: on the host a spinning thief would only steal the
 * host core from the owner it is waiting for. */
void delay_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NSEC_PER_SEC),
			       .tv_nsec = (long)(ns % NSEC_PER_SEC) };
	nanosleep(&ts, NULL);
}
