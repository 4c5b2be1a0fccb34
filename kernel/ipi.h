#ifndef GMK_KERNEL_IPI_H
#define GMK_KERNEL_IPI_H

#include <stdint.h>

/* Why a core was interrupted; several may be pending at once. */
enum ipi_kind {
	IPI_WAKE = 1u << 0,	/* work may be waiting: leave wait_for_interrupt */
	IPI_STOP = 1u << 1,	/* another core panicked: stop here */
	IPI_PING = 1u << 2,	/* tests: count and return */
	IPI_CALL = 1u << 3,	/* run the smp_call_all function */
};

void ipi_send(unsigned cpu, enum ipi_kind kind);
/* IPI_WAKE to a core that is halted or about to halt (board_ipi_wake_idle). */
void ipi_wake_idle(unsigned cpu);
/* What IPI_PING runs on its target, if set: tests set it (IPI_WAKE goes
 * to the scheduler, kernel/sched_hooks.h). */
extern void (*ipi_ping_hook)(void);

#endif
