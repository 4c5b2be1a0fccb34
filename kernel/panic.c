/*
 * Dying well: one core reports (the first to panic), the others are stopped
 * by IPI, and the machine exits with a failing status. A test that expects
 * this fatal error turns it into a pass (kernel/test.c).
 */
#include <stdarg.h>
#include <stdio.h>

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
#include "kernel/trap.h"

#define BACKTRACE_MAX 24
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

/* Backtrace from a frame pointer (every arch keeps frame pointers). */
static void backtrace_from(uintptr_t fp, uintptr_t pc)
{
	printf("backtrace (addr2line -e build/%s/gmk.elf ADDR):\n", GMK_BOARD);
	if (pc)
		printf("  #0  0x%016lx\n", (unsigned long)pc);
	/* Both arches keep frame records {previous fp, return address}. */
	for (int i = 1; i < BACKTRACE_MAX && fp; i++) {
		if ((fp & 7) || !page_addr_valid(fp) || !page_addr_valid(fp + 15))
			break;
		uintptr_t next = ((uintptr_t *)fp)[0];
		uintptr_t ret = ((uintptr_t *)fp)[1];
		if (!ret)
			break;
		printf("  #%-2d 0x%016lx\n", i, (unsigned long)ret);
		if (next <= fp)		/* stacks grow down: frames go up */
			break;
		fp = next;
	}
}

__attribute__((noreturn)) static void die(void)
{
	stop_other_cpus();
	test_crash_epilogue();
	sched_fingerprint_print();
	board_exit(1);
}

static __attribute__((noreturn)) void vpanic(const char *prefix, const char *fmt,
					     va_list ap)
{
	char msg[256];

	claim_panic();
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (prefix[0] == 'f')
		printf("fatal error: %s\n", msg);
	else
		printf("panic: core %u: %s\n", this_cpu()->id, msg);
	test_fatal_hook(msg);
	backtrace_from(arch_frame_address(), 0);
	die();
}

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic("panic", fmt, ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic("fatal", fmt, ap);
}

void kernel_fault(struct trapframe *tf, const char *kind, const char *detail,
		  uintptr_t addr)
{
	char msg[256], why[160];
	const char *special = NULL;

	claim_panic();
	special = sched_fault_describe(addr, arch_frame_sp(tf), why, sizeof why);
	if (special)
		snprintf(msg, sizeof msg, "%s", special);
	else
		snprintf(msg, sizeof msg,
			 "unexpected exception on core %u: %s%s%s%s at address 0x%lx, pc 0x%lx",
			 this_cpu()->id, kind, detail && detail[0] ? " (" : "",
			 detail ? detail : "", detail && detail[0] ? ")" : "",
			 (unsigned long)addr, (unsigned long)arch_frame_pc(tf));
	printf("panic: core %u: %s\n", this_cpu()->id, msg);
	if (special)
		printf("  %s%s%s at address 0x%lx\n", kind, detail ? ": " : "",
		       detail ? detail : "", (unsigned long)addr);
	arch_dump_frame(tf);
	test_fatal_hook(msg);
	backtrace_from(arch_frame_fp(tf), arch_frame_pc(tf));
	die();
}
