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

#define SEMIHOST_SYS_OPEN	0x01
#define SEMIHOST_SYS_CLOSE	0x02
#define SEMIHOST_SYS_WRITE	0x05

static long semihost_call(uint64_t op, volatile uint64_t *block)
{
	register uint64_t x0 asm("x0") = op;
	register uint64_t x1 asm("x1") = (uintptr_t)block;

	asm volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	return (long)x0;
}

long semihost_open(const char *name, int mode)
{
	volatile uint64_t block[3] = { (uintptr_t)name, (uint64_t)mode, 0 };

	while (name[block[2]])
		block[2]++;
	return semihost_call(SEMIHOST_SYS_OPEN, block);
}

long semihost_write(long handle, const void *buf, unsigned long len)
{
	volatile uint64_t block[3] = { (uint64_t)handle, (uintptr_t)buf, len };

	return semihost_call(SEMIHOST_SYS_WRITE, block);
}

long semihost_close(long handle)
{
	volatile uint64_t block[1] = { (uint64_t)handle };

	return semihost_call(SEMIHOST_SYS_CLOSE, block);
}
