/*
 * Dying well: one core reports (the first to panic), the others are stopped
 * by IPI, and the machine exits with status 2, as Go's. A test that expects
 * this fatal error turns it into a pass (kernel/test.c). Between the
 * message and the end, the goroutines' stacks as Go prints them
 * (kernel/traceback.h), as many as traceback= asks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/console.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "kernel/traceback.h"
#include "kernel/trap.h"

#define STOP_WAIT_NS (50 * NSEC_PER_MSEC)

/* Core id + 1 of the core that is dying; the first one wins. */
static volatile uint32_t panicking;

/* Every other core that panics meanwhile just stops. */
static void claim_panic(void)
{
	arch_irq_disable();
	uint32_t me = this_cpu()->id + 1;
	if (!atomic_cas32(&panicking, 0, me) && atomic_load32(&panicking) != me)
		for (;;)
			arch_wait_for_interrupt();
	console_panic_mode();
}

void stop_other_cpus(void)
{
	unsigned me = this_cpu()->id;

	for (unsigned i = 0; i < ncpus; i++)
		if (i != me && cpus[i].online)
			ipi_send(i, IPI_STOP);
	uint64_t until = nanotime() + STOP_WAIT_NS;
	for (unsigned i = 0; i < ncpus; i++)
		while (i != me && atomic_load32((volatile uint32_t *)&cpus[i].online) &&
		       nanotime() < until)
			arch_cpu_relax();
}

/* Go's status for a panic, a fatal error and a fatal signal alike. */
#define DIE_STATUS 2

__attribute__((noreturn)) static void die(void)
{
	stop_other_cpus();
	test_crash_epilogue();
	sched_fingerprint_print();
	board_exit(DIE_STATUS);
}

/* Set on the dying core while it prints the stacks: a fault meanwhile (a
 * frame record that lied) ends the report instead of starting another. */
static bool reporting;

/*
 * The stacks (kernel/traceback.h), then the test harness's verdict. The
 * failing code's stack starts at pc, lr, sp, fp (as traceback_frames
 * takes them); all: every goroutine too; sched_stack: the failing code's
 * stack also when it is the scheduler's rather than a G's.
 */
static void report(const char *msg, uintptr_t pc, uintptr_t lr, uintptr_t sp,
		   uintptr_t fp, bool sched_stack, bool all)
{
	if (reporting) {
		printf("fatal error while printing the stacks: %s\n", msg);
		die();
	}
	reporting = true;
	if (traceback_level != TRACEBACK_NONE) {
		/* Go stops the world before it walks other goroutines' stacks:
		 * a G that moves on meanwhile would be walked as it changes. */
		stop_other_cpus();
		sched_traceback(pc, lr, sp, fp, sched_stack,
				all || traceback_level == TRACEBACK_ALL);
		printf("\n");
	}
	test_fatal_hook(msg);
}

static __attribute__((noreturn)) void vpanic(bool is_fatal, uintptr_t fp,
					     const char *fmt, va_list ap)
{
	char msg[256];

	claim_panic();
	vsnprintf(msg, sizeof msg, fmt, ap);
	/* Go's words: "panic: <message>" (a kernel message that is about
	 * a core names it itself). */
	printf("%s: %s\n", is_fatal ? "fatal error" : "panic", msg);
	/* As Go's throw: a fatal error prints every goroutine (unless
	 * traceback=none), and the scheduler's stack only when asked for
	 * all; a panic (an application's, or a kernel bug) its own stack,
	 * as Go's panic at the default GOTRACEBACK. */
	report(msg, 0, 0, 0, fp, !is_fatal || traceback_level == TRACEBACK_ALL, is_fatal);
	die();
}

/* fp: panic()'s and fatal()'s own frame record, whose return address is
 * their caller: the stack starts at the call of panic, as Go's does. */
void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic(false, (uintptr_t)__builtin_frame_address(0), fmt, ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic(true, (uintptr_t)__builtin_frame_address(0), fmt, ap);
}

/*
 * The C library's abort(), the same on every board (newlib's and
 * picolibc's would end the machine silently with status 1; glibc's, the
 * hosted process with a bare SIGABRT): Go's report of a SIGABRT, "SIGABRT:
 * abort" and the pc, then the caller's stack (traceback=), status 2. The
 * C library's own calls of abort inside glibc (the hosted board) still
 * take glibc's. Weak: glibc's static libc.a (make BOARD=hosted static)
 * brings its own abort along with symbols it needs, and that one then
 * serves (a bare SIGABRT) rather than the link failing.
 */
#ifndef GMK_FUZZ	/* libFuzzer's process: abort is how it learns of a crash */
__attribute__((weak)) void abort(void)
{
	uintptr_t pc = (uintptr_t)__builtin_return_address(0);

	claim_panic();
	printf("SIGABRT: abort\nPC=0x%lx: abort() called on core %u\n", (unsigned long)pc,
	       this_cpu()->id);
	report("SIGABRT: abort", 0, 0, 0, (uintptr_t)__builtin_frame_address(0), true, false);
	die();
}
#endif

void kernel_fault(struct trapframe *tf, const char *kind, const char *detail,
		  uintptr_t addr)
{
	char msg[256], why[160];
	const char *special = NULL;

	claim_panic();
	special = sched_fault_describe(addr, arch_frame_sp(tf), why, sizeof why);
	/* "at address" only where the exception has one (a page fault, a
	 * data abort): a divide error's or a #GP's would be a made-up 0. */
	char at[40] = "";
	if (addr != FAULT_NO_ADDR)
		snprintf(at, sizeof at, " at address 0x%lx", (unsigned long)addr);
	if (special)
		snprintf(msg, sizeof msg, "%s", special);
	else
		snprintf(msg, sizeof msg,
			 "unexpected exception on core %u: %s%s%s%s%s, pc 0x%lx",
			 this_cpu()->id, kind, detail && detail[0] ? " (" : "",
			 detail ? detail : "", detail && detail[0] ? ")" : "", at,
			 (unsigned long)arch_frame_pc(tf));
	printf("panic: %s\n", msg);
	if (special)
		printf("  %s%s%s%s, pc 0x%lx\n", kind, detail ? ": " : "",
		       detail ? detail : "", at, (unsigned long)arch_frame_pc(tf));
	if (traceback_level != TRACEBACK_NONE)
		arch_dump_frame(tf);
	report(msg, arch_frame_pc(tf), arch_frame_lr(tf), arch_frame_sp(tf), arch_frame_fp(tf),
	       true, false);
	die();
}
