/*
 * Hosted CPU operations: the kernel/cpu.h inlines for a Linux process in
 * which each core is a thread (the hosted board, boards/hosted/, and the
 * run-queue tests in tests/host). Only included through kernel/cpu.h.
 *
 * Per-core data. The kernel reaches its struct cpu through a register the
 * kernel alone can set (GS base on x86-64, TPIDR_EL1 on aarch64). A Linux
 * thread has one such register that is its own and already points at
 * per-thread memory: %fs (TPIDR_EL0 on aarch64), glibc's thread pointer.
 * So the core's struct cpu * and its running G are __thread variables read
 * %fs-relative with the local-exec TLS model: one instruction each, like
 * %gs:0 and %gs:8 in the kernel. Why not arch_prctl(ARCH_SET_GS) and the
 * kernel's code as it is: aarch64 user code cannot write TPIDRRO_EL0 at
 * all, so a GS-based design would not carry over to an arm64 host; gdb,
 * the sanitizers and valgrind all understand TLS, and not all of them
 * emulate a user GS base. The loads are inline assembly rather than plain
 * C reads of the variables: a G migrates between threads at any switch, and
 * the compiler may keep the *address* of a __thread variable (the thread
 * pointer plus an offset) across a call, which would then be the old
 * thread's. "movq %fs:var@tpoff" computes it afresh every time.
 *
 * Interrupts: the "interrupts" of a core are signals to its thread (the
 * tick timer, IPIs and the board's device interrupt, boards/hosted/). Masking them is a per-thread flag,
 * not sigprocmask (a system call per spinlock would ruin every figure). A
 * signal that finds the flag set is only recorded in host_irq_pending; the
 * unmask that follows sees it and has the interrupt taken then
 * (host_irq_replay), as a CPU takes a pending interrupt right after sti.
 */
#ifndef GMK_ARCH_X86_64_LINUX_CPU_ARCH_H
#define GMK_ARCH_X86_64_LINUX_CPU_ARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "kernel/compiler.h"
#include "x86.h"		/* arch/x86_64/, on the include path */

struct cpu;

/* This thread's core, its running G, its interrupt mask and the
 * interrupts that arrived while masked (bits: HOST_IRQ_*). Defined in
 * arch/x86_64-linux/cpu.c. */
extern __thread struct cpu *host_this_cpu;
extern __thread void *host_curg;
extern __thread volatile uint32_t host_irq_masked;
extern __thread volatile uint32_t host_irq_pending;

#define HOST_IRQ_TIMER	1u
#define HOST_IRQ_IPI	2u
#define HOST_IRQ_DEV	4u	/* the board's devices (its console input) */

/* Take the interrupts recorded in host_irq_pending now (unmasked). */
void host_irq_replay(void);

/* false: the tick only marks the G (safe-point preemption); set by the
 * board for builds and runs where a rewritten signal context cannot be
 * honoured (ThreadSanitizer delivers signals late, from its own copy). */
extern bool host_async_preempt;
#define arch_async_preempt_enabled() (host_async_preempt)

#define HOST_TLS_LOAD(var, out) \
	asm volatile("movq %%fs:" #var "@tpoff, %0" : "=r"(out))
#define HOST_TLS_STORE(var, in) \
	asm volatile("movq %0, %%fs:" #var "@tpoff" : : "r"(in) : "memory")

static inline struct cpu *arch_this_cpu(void)
{
	struct cpu *c;

	HOST_TLS_LOAD(host_this_cpu, c);
	return c;
}

static inline void arch_set_this_cpu(struct cpu *c)
{
	*(struct cpu **)c = c;		/* c->self, as on the kernel */
	HOST_TLS_STORE(host_this_cpu, c);
}

static inline void *arch_getg(void)
{
	void *g;

	HOST_TLS_LOAD(host_curg, g);
	return g;
}

static inline void arch_setg(void *g)
{
	HOST_TLS_STORE(host_curg, g);
}

/* The flag is only ever read and written by its own thread and that
 * thread's signal handlers, so a compiler barrier is all the ordering it
 * needs; the read of the pending word after the unmask is an xchg, which
 * a handler cannot split. */
static inline void host_irq_unmask(void)
{
	asm volatile("" : : : "memory");
	host_irq_masked = 0;
	asm volatile("" : : : "memory");
	if (unlikely(host_irq_pending != 0))
		host_irq_replay();
}

static inline unsigned long arch_irq_save(void)
{
	unsigned long was_masked = host_irq_masked;

	host_irq_masked = 1;
	asm volatile("" : : : "memory");
	return was_masked;
}

static inline void arch_irq_restore(unsigned long was_masked)
{
	if (!was_masked)
		host_irq_unmask();
}

static inline void arch_irq_enable(void) { host_irq_unmask(); }

static inline void arch_irq_disable(void)
{
	host_irq_masked = 1;
	asm volatile("" : : : "memory");
}

static inline bool arch_irq_enabled(void) { return !host_irq_masked; }

/*
 * The tick found the G in the C library or the vDSO (arch_frame_preemptible
 * refuses: it is not gmk's code), which has no safe point: a G calling
 * clock_gettime in a loop (nanotime, with the CLOCK_MONOTONIC counter)
 * spends most of its time there, and a look a millisecond would leave it
 * its core for several. 50 us there, the usual millisecond elsewhere.
 */
struct trapframe;
unsigned long long host_preempt_retry_ns(const struct trapframe *tf);
#define arch_preempt_retry_ns(tf) host_preempt_retry_ns(tf)

/*
 * A thread spinning for a lock whose holder the host has descheduled only
 * burns the time slice the holder needs (the host is shared; and with more
 * cores than host CPUs, SMP=8 on a 2-core machine, it is the rule). So a
 * spin-wait gives the host CPU away every host_relax_mask + 1 pauses, as a
 * hypervisor's pause-loop exiting does for a spinning vCPU: every 4 when
 * the cores outnumber the host's CPUs, every 256 (some microseconds of
 * spinning) otherwise. Set by the board.
 */
extern uint32_t host_relax_mask;
extern __thread uint32_t host_relax_spins;

/*
 * The yield is a raw system call, inlined into the spinning code: a tick
 * signal delivered on its return then finds the PC in gmk's text, where
 * the G can be preempted (arch_frame_preemptible). In libc's sched_yield
 * the PC would be libc's, where no G is switched out; and on a loaded
 * host a spin-wait spends nearly all its time in that call, so a G
 * spinning for a G queued on its own P would keep the P for as long as
 * the host keeps the CPU busy.
 */
static inline void host_sched_yield(void)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"(24L /* SYS_sched_yield */)
			 : "rcx", "r11", "memory");
	(void)ret;
}

static inline void arch_cpu_relax(void)
{
	__builtin_ia32_pause();
	if ((++host_relax_spins & host_relax_mask) == 0)
		host_sched_yield();
}

/* Called masked: sleep on this core's futex until an interrupt is pending
 * (an IPI's wake, the timer's deadline), take it, return masked. */
void arch_wait_for_interrupt(void);

/* The counter (arch/x86_64-linux/clock.c): the TSC since boot, read as the
 * x86-64 board reads it, where the host's clock is the TSC (host_tsc);
 * elsewhere nanoseconds of CLOCK_MONOTONIC (the vDSO: no system call). */
extern bool host_tsc;
extern uint64_t host_tsc_base;

/* The x86-64 board's reading (x86.h): not taken before earlier loads
 * complete (a time compared with a stamp another core stored). */
static inline uint64_t host_tsc_read(void)
{
	return x86_rdtsc_ordered();
}

static inline uint64_t arch_counter(void)
{
	if (likely(host_tsc))
		return host_tsc_read() - host_tsc_base;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
