/*
 * Starting a secondary core: copy trampoline.S below 1 MiB, give it the
 * kernel's CR3 and the core's struct cpu, and send INIT, then STARTUP
 * twice (Intel's MP start-up sequence). Cores start one at a time, since
 * they share the trampoline's variables; the core says it has arrived by
 * writing its id to x86_ap_started (start.S, ap_start64).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/lapic.h"
#include "arch/x86_64/paging.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/x86.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/time.h"

#define INIT_DELAY_NS		(10 * NSEC_PER_MSEC)	/* after INIT */
#define SIPI_DELAY_NS		(200 * NSEC_PER_USEC)	/* between STARTUPs */
#define AP_START_TIMEOUT_NS	(1 * NSEC_PER_SEC)

extern char trampoline_start[], trampoline_end[];
extern uint64_t tramp_cpu;
extern uint32_t tramp_cr3;
extern volatile uint32_t x86_ap_started;	/* start.S */

/* Address of a trampoline variable in the copy at TRAMPOLINE_BASE. */
static void *tramp_var(void *sym)
{
	return (void *)(TRAMPOLINE_BASE + ((char *)sym - trampoline_start));
}

bool x86_start_ap(struct cpu *c)
{
	static bool copied;

	if (!copied) {
		memcpy((void *)TRAMPOLINE_BASE, trampoline_start,
		       trampoline_end - trampoline_start);
		copied = true;
	}
	*(volatile uint32_t *)tramp_var(&tramp_cr3) = (uint32_t)paging_root();
	*(volatile uint64_t *)tramp_var(&tramp_cpu) = (uintptr_t)c;
	atomic_store32(&x86_ap_started, 0);	/* release: publishes the above */

	lapic_send_init(c->hwid);
	delay_ns(INIT_DELAY_NS);
	lapic_send_sipi(c->hwid, TRAMPOLINE_BASE >> 12);
	delay_ns(SIPI_DELAY_NS);
	if (atomic_load32(&x86_ap_started) != c->id)	/* ignored if running */
		lapic_send_sipi(c->hwid, TRAMPOLINE_BASE >> 12);

	uint64_t deadline = nanotime() + AP_START_TIMEOUT_NS;
	while (atomic_load32(&x86_ap_started) != c->id) {
		if (nanotime() > deadline) {
			printf("smp: core %u (APIC id %u) did not answer INIT-SIPI-SIPI within %llu ms\n",
			       c->id, c->hwid,
			       (unsigned long long)(AP_START_TIMEOUT_NS / NSEC_PER_MSEC));
			return false;
		}
		arch_cpu_relax();
	}
	return true;
}
