/*
 * Hosted gobuf: the host tests only exercise the run queues, which never
 * switch stacks, so this only has to give struct g a gobuf of some shape.
 */
#ifndef GMK_ARCH_HOST_GOBUF_H
#define GMK_ARCH_HOST_GOBUF_H

#ifndef __ASSEMBLY__
#include <stdint.h>
struct gobuf {
	uintptr_t sp;
	uintptr_t pc;
	void *g;
	uintptr_t regs[8];
};
#endif

#endif
