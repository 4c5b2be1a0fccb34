/*
 * What the hosted arch layer (arch/x86_64-linux/cpu.c) and the hosted board
 * (boards/hosted/board.c) share: the per-core thread state, the signals
 * that stand for interrupts, and the sanitizer hooks (arch/x86_64-linux/san.c).
 */
#ifndef GMK_ARCH_X86_64_LINUX_HOST_H
#define GMK_ARCH_X86_64_LINUX_HOST_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>


/* The tick (a per-thread POSIX timer), the IPI and the board's device
 * interrupt (its console input, raised by the thread that reads stdin).
 * None stops gdb by default (`handle SIGALRM/SIGURG/SIGIO nostop
 * noprint` is gdb's default). */
#define HOST_SIG_TICK	SIGALRM
#define HOST_SIG_IPI	SIGURG
#define HOST_SIG_DEV	SIGIO

/* Vector numbers in struct trapframe: the x86-64 board's IDT has the
 * first two; the device's is the one after them. */
#define HOST_VEC_TIMER	32
#define HOST_VEC_IPI	33
#define HOST_VEC_DEV	34

struct host_core {
	pid_t tid;			/* the core's thread */
	volatile uint32_t wake;		/* futex: bumped by every IPI */
	volatile uint32_t sleeping;	/* in arch_wait_for_interrupt */
	volatile uint32_t dev_pending;	/* a device interrupt raised, not yet taken */
	/* The deadline the POSIX timer is armed for, arch_counter units; 0
	 * none or fired. Cleared by the tick signal (irq_handler): a re-arm
	 * for the same deadline after it fired must arm again. */
	volatile uint64_t deadline;
	void *timer;			/* the POSIX timer (timer_t), board.c */
	bool timer_ok;
	void *san_g0_fiber;		/* sanitizer builds: the thread's own fiber */
	/* Idle waits for a deadline that ended more than HOST_LATE_NS after
	 * it: how many, how late in all, and how much of that Linux kept the
	 * thread runnable but not running (its run_delay): the host's share.
	 * Written by the core's own thread (arch_wait_for_interrupt). */
	int schedstat_fd;		/* /proc/thread-self/schedstat, or -1 */
	volatile uint64_t late_waits, late_ns, late_runq_ns;
};
extern struct host_core host_cores[];

/* Guard pages by mprotect even where the kernel has MADV_GUARD_INSTALL
 * (GMK_HOSTED_GUARD=mprotect: the path older kernels take, for the tests). */
void host_guard_use_mprotect(void);
extern bool host_overcommit;

/* arch/x86_64-linux/clock.c: choose and measure the counter (returns its rate in
 * Hz); a counter deadline as the CLOCK_MONOTONIC time Linux waits for. */
uint64_t host_clock_init(void);
struct timespec;
void host_counter_timespec(uint64_t deadline, struct timespec *ts);

void host_signals_init(void);
/* The idle waits' lateness over every core (struct host_core's late_*):
 * how many ended late, by how much in all, and Linux's run_delay (the
 * thread runnable, not run) over them. A wait late with no run_delay to
 * match is not the host's scheduling. */
void host_idle_lateness(uint64_t *waits, uint64_t *late_ns, uint64_t *runq_ns);
/* boards/hosted/board.c: boot with these arguments (never returns). */
int hosted_main(int argc, char **argv);
void host_core_kick(unsigned id);
void host_core_wake(unsigned id);
/* The device interrupt to core id, from any thread (a device's own
 * included): taken at once if the core runs unmasked, when it unmasks if
 * masked, and it ends the core's idle wait. Async-signal-safe. */
void host_core_raise_dev(unsigned id);

/* arch/x86_64-linux/san.c: fiber annotations (no-ops without sanitizers). */
struct cpu;
void host_san_thread_init(struct cpu *c);
void host_san_leave_to(void *g);

#endif
