/*
 * The C library's thread-local storage (see cpu_arch.h for why TPIDR_EL0 is
 * picolibc's and the G pointer lives in TPIDRRO_EL0).
 *
 * picolibc's layout (aarch64 variant I, local-exec): TPIDR_EL0 points at a
 * 16-byte thread control block, and the TLS image (.tdata then .tbss)
 * follows it. _init_tls fills a block from the image in the kernel;
 * _set_tls points TPIDR_EL0 at it. The linker script lays the image out
 * and checks it fits in TLS_BLOCK_SIZE.
 */
#include <picolibc.h>	/* defines PICOLIBC_TLS, which picotls.h tests */
#include <picotls.h>
#include <stdint.h>

#include "kernel/cpu.h"
#include "kernel/percpu.h"

#define TLS_BLOCK_SIZE	256	/* bytes per block; linker/aarch64.ld asserts the fit */

static uint8_t tls_blocks[MAX_CPUS][TLS_BLOCK_SIZE] __attribute__((aligned(64)));

/* start.S, on each core once its MMU is on, before any other C. */
void tls_boot_setup(unsigned cpu_id);
void tls_boot_setup(unsigned cpu_id)
{
	void *block = tls_blocks[cpu_id % MAX_CPUS];

	_init_tls(block);
	_set_tls(block);
}
