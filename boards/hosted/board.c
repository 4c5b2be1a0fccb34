/*
 * Board "hosted": gmk as one Linux process, one thread per core, running
 * the same kernel/ and sched/ code as the QEMU boards (arch/x86_64-linux/ is the
 * CPU: signals for interrupts, a futex for wfi/hlt).
 *
 *   build/hosted/gmk [--smp=N] [--no-tick] [kernel command line ...]
 *
 * The arguments after the board's own options are the kernel command line
 * (test=..., run=..., seed=...), joined with a space each (one argument
 * is taken exactly: tools/run-hosted passes the line so); the exit
 * status is the kernel's board_exit status. --smp=N gives N cores
 * (default: the host's online cores); --no-tick leaves the per-core
 * timers unarmed (valgrind: the scheduler then only switches at
 * blocking points and timers run late).
 * Standard input is the console's input (stdin.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86_64-linux/host.h"
#include "boards/hosted/hosted.h"
#include "kernel/board.h"
#include "kernel/cmdline.h"
#include "kernel/kernel.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/trap.h"

const char board_name[] = "hosted";

/* RAM for the page allocator, as much as the QEMU boards get. Reserved
 * without backing (MAP_NORESERVE): the host gives pages as they are used. */
#define RAM_SIZE	(1ull << 30)

static char cmdline[CMDLINE_MAX + 1];
static unsigned smp;
static bool no_tick;
static void *ram;
/* Core i runs on the i-th host CPU this process may use, when there is
 * one for every core; overcommitted, the host places the threads. */
static int host_cpu_of[MAX_CPUS];

/* ---- console: stdout, one write per line ---------------------------------- */

/* The line being assembled. board_putc runs under the console's lock, but
 * board_exit's last flush does not (another core may still be printing:
 * TSan saw the two meet on outlen), so the buffer has a lock of its own,
 * taken inside the console's. */
static struct spinlock out_lock = SPINLOCK_INIT("hosted console");
static char outbuf[512];
static size_t outlen;

static void out_flush(void)
{
	size_t off = 0;

	while (off < outlen) {
		ssize_t n = write(1, outbuf + off, outlen - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	outlen = 0;
}

/* kernel/console.c calls this under its lock (or alone, when panicking). */
void board_putc(char c)
{
	if (c == '\r')
		return;
	unsigned long flags = spin_lock_irqsave(&out_lock);
	outbuf[outlen++] = c;
	if (c == '\n' || outlen == sizeof outbuf)
		out_flush();
	spin_unlock_irqrestore(&out_lock, flags);
}

/* The end of a piece: a prompt or an echoed key goes out at once (a whole
 * line has gone at its newline). */
void board_putc_flush(void)
{
	unsigned long flags = spin_lock_irqsave(&out_lock);
	if (outlen)
		out_flush();
	spin_unlock_irqrestore(&out_lock, flags);
}

/* ---- boot ---------------------------------------------------------------- */

/* Set by board_exit: the exits that are not the kernel's are an
 * application's exit() (glibc's), which on_exit reports. */
static volatile int board_exiting;

/* An application's exit(n) ends the process through glibc, not through
 * board_exit: print the line a program's return prints, as _exit does on
 * the bare-metal boards (kernel/main.c, program_exit). */
static void exit_report(int status, void *arg)
{
	(void)arg;
	/* Not a core's thread (libFuzzer's own, which ends the process):
	 * no goroutine called it, and the console is the cores'. */
	if (board_exiting || !host_this_cpu)
		return;
	program_exit_line(status);
	unsigned long flags = spin_lock_irqsave(&out_lock);
	out_flush();
	spin_unlock_irqrestore(&out_lock, flags);
	hosted_stdin_restore();
}

void board_early_init(uintptr_t bootarg)
{
	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED) {
		fprintf(stderr, "gmk: hosted: cannot map %llu MiB of RAM: %s\n",
			RAM_SIZE >> 20, strerror(errno));
		exit(2);
	}
	on_exit(exit_report, NULL);
}

const char *board_cmdline(void)
{
	return cmdline;
}

bool board_mem_region(unsigned i, uintptr_t *base, uintptr_t *size)
{
	if (i != 0)
		return false;
	*base = (uintptr_t)ram;
	*size = RAM_SIZE;
	return true;
}

void board_init(void)
{
	ncpus = smp;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0) {
		host_overcommit = smp > (unsigned)CPU_COUNT(&set);
		if (host_overcommit)
			host_relax_mask = 3;
		for (int h = 0, k = 0; h < CPU_SETSIZE && k < (int)smp; h++)
			if (CPU_ISSET(h, &set))
				host_cpu_of[k++] = h;
	}
	for (unsigned i = 0; i < ncpus; i++)
		cpus[i].hwid = i;
	host_signals_init();
}


static void pin_this_thread(unsigned id)
{
	if (host_overcommit)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(host_cpu_of[id], &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *core_thread(void *arg)
{
	struct cpu *c = arg;

	pin_this_thread(c->id);
	cpu_start(c);
}

bool board_start_cpu(unsigned id)
{
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	int e = pthread_create(&t, &attr, core_thread, &cpus[id]);
	pthread_attr_destroy(&attr);
	if (e) {
		printf("gmk: hosted: pthread_create for core %u: %s\n", id, strerror(e));
		return false;
	}
	return true;
}

/* On each core, masked: its tick timer, a POSIX timer that signals this
 * thread only. */
void board_cpu_init(void)
{
	struct cpu *c = this_cpu();
	struct host_core *h = &host_cores[c->id];
	struct sigevent sev;
	timer_t t;

	if (c->id == 0)
		pin_this_thread(0);	/* the boot core */
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = HOST_SIG_TICK;
	sev._sigev_un._tid = h->tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0)
		panic("hosted: timer_create: %s", strerror(errno));
	h->timer = t;
	h->timer_ok = true;
#ifndef GMK_FUZZ
	/* The fuzzer's process reads no console input. */
	if (c->id == 0)
		hosted_stdin_attach();
#endif
}

/* ---- timer and IPIs -------------------------------------------------------- */

uint64_t board_counter_hz(void)
{
	return host_clock_init();	/* the TSC or CLOCK_MONOTONIC ns */
}

void board_timer_arm(uint64_t deadline)
{
	struct host_core *h = &host_cores[this_cpu()->id];

	if (deadline == h->deadline)
		return;			/* armed for that already: no system call */
	h->deadline = deadline;
	if (!h->timer_ok || no_tick)
		return;			/* the idle wait still honours it */
	struct itimerspec its;
	memset(&its, 0, sizeof its);
	host_counter_timespec(deadline, &its.it_value);
	if (timer_settime(h->timer, TIMER_ABSTIME, &its, NULL) != 0)
		panic("hosted: timer_settime: %s", strerror(errno));
}

void board_ipi_send(unsigned id)
{
	host_core_kick(id);
}

void board_ipi_wake_idle(unsigned id)
{
	host_core_wake(id);
}

int hosted_device_thread(void *(*fn)(void *))
{
	/* The cores' signals are sent to a core's thread by id, but a
	 * process-wide one must not land on a device's thread: it blocks
	 * them all, and its child inherits the mask. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, HOST_SIG_TICK);
	sigaddset(&block, HOST_SIG_IPI);
	sigaddset(&block, HOST_SIG_DEV);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	int e = pthread_create(&t, &attr, fn, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

void board_irq(struct trapframe *tf)
{
	if (tf->vector == HOST_VEC_TIMER)
		kernel_timer_interrupt(tf);
	else if (tf->vector == HOST_VEC_DEV) {
		/* One line for both devices (net.c's events first: the
		 * console's kick may not return, and covers them). */
		bool net = hosted_net_interrupt();
		hosted_console_interrupt(tf);
		if (net)
			netpoll_kick(tf);
	}
	else
		kernel_ipi_interrupt(tf);
}

#ifdef GMK_FUZZ
/* The libFuzzer target (tests/fuzz) owns the process: it decides what a
 * kernel's exit means there. */
__attribute__((noreturn)) void fuzz_board_exit(int status);
#endif

__attribute__((noreturn)) void board_exit(int status)
{
	/* Held to the end. Bounded: a forked child (tests/fuzz) may have
	 * inherited it held by a thread it does not have. */
	(void)arch_irq_save();
	board_exiting = 1;
	for (unsigned i = 0; i < (1u << 20) && !spin_trylock(&out_lock); i++)
		arch_cpu_relax();
	out_flush();
	hosted_stdin_restore();
#ifdef GMK_FUZZ
	fuzz_board_exit(status);
#endif
	exit(status);
}

/* ---- main: the process is the machine -------------------------------------- */

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--smp=N] [--no-tick] [kernel command line...]\n"
		"  e.g. %s --smp=4 test='chan_*' seed=3\n", argv0, argv0);
	exit(2);
}

/* main (boards/hosted/main.c) is this. The libFuzzer build (SAN=fuzz) has
 * libFuzzer's main instead, which calls this on a thread of its own
 * (tests/fuzz/fuzz_sched.c); the host tests (tests/host) link the board
 * without it (build/hosted/libgmk.a) and do not boot. */
int hosted_main(int argc, char **argv)
{
	int i = 1;

	hosted_stdin_probe();
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		char *end;
		if (strncmp(argv[i], "--smp=", 6) == 0) {
			unsigned long n = strtoul(argv[i] + 6, &end, 10);
			if (*end || n < 1 || n > MAX_CPUS) {
				fprintf(stderr, "gmk: hosted: --smp=%s: want 1..%d\n",
					argv[i] + 6, MAX_CPUS);
				exit(2);
			}
			smp = (unsigned)n;
		} else if (strcmp(argv[i], "--no-tick") == 0) {
			no_tick = true;
		} else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else {
			fprintf(stderr, "gmk: hosted: unknown option %s\n", argv[i]);
			usage(argv[0]);
		}
	}
	if (!smp) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		smp = n < 1 ? 1 : n > MAX_CPUS ? MAX_CPUS : (unsigned)n;
	}
	size_t len = 0;
	for (; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (len + (len ? 1 : 0) + n > CMDLINE_MAX) {
			fprintf(stderr, "gmk: hosted: command line longer than %d bytes, "
				"the most gmk takes\n", CMDLINE_MAX);
			exit(2);
		}
		if (len)
			cmdline[len++] = ' ';
		memcpy(cmdline + len, argv[i], n);
		len += n;
	}
	cmdline[len] = 0;
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
	/* TSan runs a handler late, at a point of its choosing, on a copy
	 * of the signal context: a rewritten context would be ignored. The
	 * tick then preempts at safe points only. */
	host_async_preempt = false;
#endif
#endif
	if (getenv("GMK_NO_ASYNC_PREEMPT"))
		host_async_preempt = false;
	const char *guard = getenv("GMK_HOSTED_GUARD");
	if (guard && strcmp(guard, "mprotect") == 0) {
		host_guard_use_mprotect();
	} else if (guard && strcmp(guard, "auto") != 0) {
		fprintf(stderr, "gmk: hosted: GMK_HOSTED_GUARD=%s: want mprotect or auto\n",
			guard);
		exit(2);
	}

	/* What the arch entry does before kmain: this core's struct cpu. */
	cpus[0].self = &cpus[0];
	arch_set_this_cpu(&cpus[0]);
	kmain(0);
}
