#include <stdint.h>

#include "arch/aarch64/semihost.h"

#define SEMIHOST_SYS_EXIT_EXTENDED	0x20
#define ADP_STOPPED_APPLICATION_EXIT	0x20026

void semihost_exit(int status)
{
	/* The parameter block: reason, then the exit code. */
	static volatile uint64_t block[2];
	register uint64_t x0 asm("x0") = SEMIHOST_SYS_EXIT_EXTENDED;
	register uint64_t x1 asm("x1") = (uintptr_t)block;

	block[0] = ADP_STOPPED_APPLICATION_EXIT;
	block[1] = (uint64_t)(int64_t)status;
	asm volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
}
