/*
 * The C library's thread-local storage (see cpu_arch.h for why TPIDR_EL0 is
 * picolibc's and the G pointer lives in TPIDRRO_EL0).
 *
 * picolibc's layout (aarch64 variant I, local-exec): TPIDR_EL0 points at a
 * 16-byte thread control block, and the TLS image (.tdata then .tbss)
 * follows it. _init_tls fills the image part (the address after the
 * control block, which nothing reads); the compiled code reaches a
 * variable as TPIDR_EL0 plus a link-time offset, so whatever runs must
 * have a valid block. A block here is the GLOCAL_ARCH_TLS bytes from the
 * control block on, and TPIDR_EL0 holds its address. The linker script
 * lays the image out and checks it fits.
 *
 * A goroutine is a thread to the C library: each G has a block of its
 * own, in the G-local area at the top of its stack (kernel/glocal.h), set
 * up when it starts (arch_glocal_tls_init) and pointed at by gogo. g0 and
 * the boot use their core's block (struct cpu's libc_tls), which mcall
 * and arch_irq_leave_to point at.
 */
#include <picolibc.h>	/* defines PICOLIBC_TLS, which picotls.h tests */
#include <picotls.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel/compiler.h"
#include "kernel/cpu.h"
#include "kernel/glocal.h"
#include "kernel/percpu.h"

static uint8_t tls_blocks[MAX_CPUS][GLOCAL_ARCH_TLS] __attribute__((aligned(64)));

/* The image's bounds (linker/aarch64.ld). */
extern char __tdata_start[], __tdata_end[];

/* Set at boot (tls_boot_setup); arch_glocal_tls_init (gobuf_arch.h)
 * zeroes a G's block when it is true. */
_Bool arch_tls_all_bss;

void arch_glocal_tls_init_image(void *block)
{
	_init_tls((uint8_t *)block + TLS_TCB_SIZE);
}

/* start.S, on each core once its MMU is on, before any other C. */
void tls_boot_setup(unsigned cpu_id);
void tls_boot_setup(unsigned cpu_id)
{
	void *block = tls_blocks[cpu_id % MAX_CPUS];

	/* Compared as numbers: gcc may take two arrays' addresses for
	 * different. Every core stores the same value. */
	uintptr_t start = (uintptr_t)__tdata_start, end = (uintptr_t)__tdata_end;
	__asm__("" : "+r"(start), "+r"(end));
	arch_tls_all_bss = start == end;
	arch_glocal_tls_init(block);
	cpus[cpu_id % MAX_CPUS].libc_tls = block;
	/* _set_tls would take the image's address: the block's is ours. */
	sysreg_write(tpidr_el0, (uintptr_t)block);
}
