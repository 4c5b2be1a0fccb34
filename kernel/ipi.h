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

#include <stdbool.h>

struct cpu;

void ipi_send(unsigned cpu, enum ipi_kind kind);
/* IPI_WAKE to a core that is halted or about to halt (board_ipi_wake_idle). */
void ipi_wake_idle(unsigned cpu);
/* What IPI_PING runs on its target, if set: tests set it (IPI_WAKE goes
 * to the scheduler, kernel/sched_hooks.h). */
extern void (*ipi_ping_hook)(void);
/*
 * Among c's last IPI_WAKEs taken (struct cpu's wake_hist), the latest one
 * sent at or before sent_hi that came in [at_lo, at_hi]: its times in
 * *sent and *at. The sending time is the earliest of the IPI_WAKEs one
 * interrupt took, or a little earlier (a sender between stamping and
 * setting its bit). For tests and benchmarks.
 */
bool ipi_wake_find(const struct cpu *c, uint64_t sent_hi, uint64_t at_lo, uint64_t at_hi,
		   uint64_t *sent, uint64_t *at);

#endif
