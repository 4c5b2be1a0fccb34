/*
 * Sanitizers and gmk's own stacks. A G's stack is a fiber to the
 * sanitizers: ThreadSanitizer keeps a shadow call stack and vector clock
 * per fiber, AddressSanitizer the bounds of the stack it is on. Every
 * switch (gogo, mcall, the tick's leave to g0) tells them which stack comes
 * next. Built without GMK_SAN_FIBERS, all of this is empty.
 */
#include "arch/host/host.h"
#include "kernel/gobuf.h"

#ifndef GMK_SAN_FIBERS

void *host_san_fiber_for(void *old_fiber, void *g) { return old_fiber; }
void host_san_thread_init(struct cpu *c) { }
void host_san_leave_to(void *g) { }

#endif
