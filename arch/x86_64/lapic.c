/*
 * The local APIC. x2APIC mode (registers as MSRs 0x800 + offset/16) when
 * CPUID has it, as under KVM; the xAPIC MMIO page otherwise, as under TCG.
 * The choice is made once and is the same on every core.
 *
 * Reviewed, not run here: QEMU 7.2's TCG has no x2APIC and no TSC-deadline
 * timer, so those paths run only under KVM or on hardware. x2APIC: going
 * from xAPIC (or disabled) to x2APIC in one IA32_APIC_BASE write is a legal
 * transition (SDM vol. 3, 11.12.5), and firmware
 * that already chose x2APIC (OVMF with many cores, PCs with interrupt
 * remapping on) leaves EN|EXTD set, which lapic_enable keeps; IDs are 32
 * bits (MADT type 9 entries, ICR destination in bits 63:32).
 *
 * The timer: TSC-deadline mode when CPUID has it (the deadline is written
 * as is), else one-shot mode with the count converted from TSC ticks with
 * the rate measured against the TSC at boot.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arch/x86_64/lapic.h"
#include "arch/x86_64/x86.h"
#include "kernel/cpu.h"

/* Register offsets (xAPIC MMIO); x2APIC MSR = 0x800 + offset / 16. */
#define LAPIC_ID	0x020
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0b0
#define LAPIC_SVR	0x0f0
#define LAPIC_ICR_LO	0x300
#define LAPIC_ICR_HI	0x310
#define LAPIC_LVT_TIMER	0x320
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR	0x390
#define LAPIC_TIMER_DIV	0x3e0
#define X2APIC_MSR(off)	(0x800 + ((off) >> 4))

#define SVR_ENABLE	0x100
#define LVT_MASKED	0x10000
#define LVT_TSC_DEADLINE 0x40000
#define TIMER_DIV_1	0xb
#define ICR_INIT	0x500
#define ICR_STARTUP	0x600
#define ICR_ASSERT	0x4000
#define ICR_PENDING	0x1000		/* xAPIC delivery status */

#define APIC_BASE_EXTD	(1u << 10)	/* IA32_APIC_BASE: x2APIC mode */
#define APIC_BASE_EN	(1u << 11)
#define CPUID1_ECX_X2APIC	(1u << 21)
#define CPUID1_ECX_TSC_DEADLINE	(1u << 24)

#define CALIBRATE_MS	10
#define TIMER_MAX_COUNT	0xffffffffull

static volatile uint32_t *xapic;	/* MMIO base in xAPIC mode */
static bool x2apic, tsc_deadline;
static uint64_t timer_hz, tsc_hz;

static uint32_t rd(uint32_t off)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR(off));
	return xapic[off / 4];
}

static void wr(uint32_t off, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(off), v);
	else
		xapic[off / 4] = v;
}

uint32_t lapic_id(void)
{
	return x2apic ? rd(LAPIC_ID) : rd(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

static void icr_write(uint32_t apic_id, uint32_t lo)
{
	unsigned long flags = arch_irq_save();	/* ICR_HI/LO is one pair */

	if (x2apic) {
		/* x2APIC MSR writes are not serializing: make earlier stores
		 * (the IPI mailbox) visible before the interrupt is sent. */
		asm volatile("mfence" : : : "memory");
		wrmsr(X2APIC_MSR(LAPIC_ICR_LO), (uint64_t)apic_id << 32 | lo);
	} else {
		while (rd(LAPIC_ICR_LO) & ICR_PENDING)
			arch_cpu_relax();
		wr(LAPIC_ICR_HI, apic_id << 24);
		wr(LAPIC_ICR_LO, lo);
		while (rd(LAPIC_ICR_LO) & ICR_PENDING)
			arch_cpu_relax();
	}
	arch_irq_restore(flags);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	icr_write(apic_id, ICR_ASSERT | vector);	/* fixed delivery */
}

void lapic_send_init(uint32_t apic_id)
{
	icr_write(apic_id, ICR_ASSERT | ICR_INIT);
}

void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	icr_write(apic_id, ICR_ASSERT | ICR_STARTUP | page);
}

static void lapic_enable(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;

	if (x2apic)
		base |= APIC_BASE_EXTD;
	wrmsr(MSR_APIC_BASE, base);
	wr(LAPIC_TPR, 0);			/* accept every priority */
	wr(LAPIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
}

void lapic_cpu_init(void)
{
	lapic_enable();
	wr(LAPIC_TIMER_DIV, TIMER_DIV_1);
	if (tsc_deadline) {
		wr(LAPIC_LVT_TIMER, LVT_TSC_DEADLINE | VEC_TIMER);
		wrmsr(MSR_TSC_DEADLINE, 0);
	} else {
		wr(LAPIC_LVT_TIMER, VEC_TIMER);	/* one-shot */
		wr(LAPIC_TIMER_INIT, 0);
	}
}

/*
 * Timer ticks per second, measured over CALIBRATE_MS of TSC time. The TSC
 * window brackets the timer's (t0 before the count starts, t1 after it is
 * read), so a core stopped at either end (a loaded emulator host
 * descheduling the vCPU) only makes a run read low, never high: the
 * highest of CALIBRATE_RUNS runs. One low run alone made every timer fire
 * early: a pc boot under a loaded TCG host ticked 409 times where 302 were
 * due.
 */
#define CALIBRATE_RUNS	4

static uint64_t timer_calibrate(void)
{
	uint64_t wait = tsc_hz * CALIBRATE_MS / 1000, best = 0;

	wr(LAPIC_TIMER_DIV, TIMER_DIV_1);
	wr(LAPIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	for (unsigned i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t t0 = arch_counter();
		wr(LAPIC_TIMER_INIT, (uint32_t)TIMER_MAX_COUNT);
		while (arch_counter() - t0 < wait)
			arch_cpu_relax();
		uint32_t left = rd(LAPIC_TIMER_CUR);
		uint64_t t1 = arch_counter();
		wr(LAPIC_TIMER_INIT, 0);
		uint64_t hz = (uint64_t)((unsigned __int128)(TIMER_MAX_COUNT - left) *
					 tsc_hz / (t1 - t0));
		if (hz > best)
			best = hz;
	}
	return best;
}

void lapic_init(uint64_t mmio_base, uint64_t tsc_freq)
{
	uint32_t r[4];

	cpuid(1, 0, r);
	x2apic = r[2] & CPUID1_ECX_X2APIC;
	tsc_deadline = r[2] & CPUID1_ECX_TSC_DEADLINE;
	xapic = (volatile uint32_t *)(uintptr_t)mmio_base;
	tsc_hz = tsc_freq;
	lapic_enable();
	timer_hz = timer_calibrate();
	if (!tsc_deadline && timer_hz == 0) {
		printf("lapic: timer does not count; no timer interrupts\n");
		timer_hz = 1;
	}
}

void lapic_timer_arm(uint64_t deadline)
{
	if (tsc_deadline) {
		/* Order the MSR write after earlier LVT (MMIO) writes. */
		asm volatile("mfence" : : : "memory");
		wrmsr(MSR_TSC_DEADLINE, deadline);
		return;
	}
	if (deadline == 0) {
		wr(LAPIC_TIMER_INIT, 0);	/* stops the count */
		return;
	}
	uint64_t now = arch_counter();
	uint64_t count = 1;			/* past due: fire at once */
	if (deadline > now)
		count = (uint64_t)((unsigned __int128)(deadline - now) * timer_hz / tsc_hz);
	if (count == 0)
		count = 1;
	if (count > TIMER_MAX_COUNT)		/* re-armed when it fires */
		count = TIMER_MAX_COUNT;
	wr(LAPIC_TIMER_INIT, (uint32_t)count);
}

bool lapic_x2apic(void) { return x2apic; }
bool lapic_tsc_deadline(void) { return tsc_deadline; }
uint64_t lapic_timer_hz(void) { return timer_hz; }
