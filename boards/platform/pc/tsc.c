/*
 * The TSC's frequency. CPUID states it on recent Intel parts (leaf 0x15,
 * with leaf 0x16 where 0x15 leaves the crystal out) and on some hypervisors
 * (leaf 0x40000010, in kHz); QEMU's default CPU states neither, under TCG
 * or KVM, so it is usually measured: against PIT channel 2 (1,193,182 Hz,
 * polled through port 0x61), or the HPET if the PIT does not answer (PCs
 * whose firmware gates the 8254's clock to save power).
 *
 * Reviewed, not run: TCG never reaches the CPUID 0x15/0x16 paths (QEMU's
 * TCG CPUs report neither) nor the HPET fallback (its PIT always counts,
 * under SeaBIOS and under OVMF alike, where GRUB's multiboot 2 hand-over
 * leaves the 8254 programmed as the firmware had it). They follow Intel's
 * SDM vol. 3 (18.7.3, "Determining the Processor Base Frequency") and
 * are only trusted on Intel CPUs, which define these leaves.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/io.h"
#include "boards/platform/pc/tsc.h"
#include "arch/x86_64/x86.h"
#include "kernel/cpu.h"

#define CPUID_TSC_CRYSTAL	0x15
#define CPUID_FREQ		0x16	/* eax: base frequency in MHz */
#define CPUID_HYPERVISOR	0x40000000
#define CPUID_HV_TIMING		0x40000010
#define CPUID1_ECX_HYPERVISOR	(1u << 31)

#define PIT_HZ			1193182ull
#define PIT_CH2_DATA		0x42
#define PIT_MODE		0x43
#define PIT_CH2_ONESHOT		0xb0	/* ch 2, lo/hi byte, mode 0, binary */
#define PORT_61			0x61	/* bit 0 ch2 gate, 1 speaker, 5 ch2 out */
#define P61_GATE		0x01
#define P61_SPEAKER		0x02
#define P61_OUT2		0x20

#define HPET_BASE		0xfed00000ul
#define HPET_CAP		0x000	/* bits 63:32: period in femtoseconds */
#define HPET_CONFIG		0x010
#define HPET_COUNTER		0x0f0
#define HPET_ENABLE		0x1
#define FS_PER_SEC		1000000000000000ull

#define CAL_MS			10	/* one measurement */
#define CAL_RUNS		5	/* keep the shortest: least disturbed */
#define PIT_POLL_LIMIT		10000000 /* inb()s before giving up on it */

static uint64_t from_cpuid(const char **how)
{
	uint32_t r[4];

	cpuid(0, 0, r);
	uint32_t max_leaf = r[0];
	/* "GenuineIntel" in ebx, edx, ecx. */
	bool intel = r[1] == 0x756e6547 && r[3] == 0x49656e69 && r[2] == 0x6c65746e;
	if (intel && max_leaf >= CPUID_TSC_CRYSTAL) {
		cpuid(CPUID_TSC_CRYSTAL, 0, r);	/* TSC = crystal * ebx / eax */
		if (r[0] && r[1] && r[2]) {
			*how = "CPUID 0x15";
			return (uint64_t)r[2] * r[1] / r[0];
		}
		/* Ratio without the crystal (Skylake/Kaby Lake clients): the
		 * TSC runs at the base frequency, which leaf 0x16 states in
		 * whole MHz (as Linux's native_calibrate_tsc derives it). */
		if (r[0] && r[1] && max_leaf >= CPUID_FREQ) {
			cpuid(CPUID_FREQ, 0, r);
			if (r[0] & 0xffff) {
				*how = "CPUID 0x16 base frequency";
				return (uint64_t)(r[0] & 0xffff) * 1000000;
			}
		}
	}
	cpuid(1, 0, r);
	if (r[2] & CPUID1_ECX_HYPERVISOR) {
		cpuid(CPUID_HYPERVISOR, 0, r);
		if (r[0] >= CPUID_HV_TIMING) {
			cpuid(CPUID_HV_TIMING, 0, r);
			if (r[0]) {
				*how = "hypervisor CPUID";
				return (uint64_t)r[0] * 1000;
			}
		}
	}
	return 0;
}

/* TSC ticks over `CAL_MS` of PIT channel 2 counting down; 0 if it never
 * reaches zero. */
static uint64_t pit_measure(void)
{
	uint16_t latch = PIT_HZ * CAL_MS / 1000;

	outb(PORT_61, (inb(PORT_61) & ~P61_SPEAKER) | P61_GATE);
	outb(PIT_MODE, PIT_CH2_ONESHOT);
	outb(PIT_CH2_DATA, latch & 0xff);
	outb(PIT_CH2_DATA, latch >> 8);	/* counting starts now */
	uint64_t t0 = arch_counter();
	for (unsigned i = 0; i < PIT_POLL_LIMIT; i++)
		if (inb(PORT_61) & P61_OUT2)
			return arch_counter() - t0;
	return 0;
}

static uint64_t hpet_read(unsigned off)
{
	return *(volatile uint64_t *)(HPET_BASE + off);
}

static uint64_t hpet_measure(void)
{
	uint64_t period_fs = hpet_read(HPET_CAP) >> 32;

	if (period_fs == 0 || period_fs > 100000000)	/* spec: <= 100 ns */
		return 0;
	*(volatile uint64_t *)(HPET_BASE + HPET_CONFIG) |= HPET_ENABLE;
	uint64_t ticks = FS_PER_SEC / 1000 * CAL_MS / period_fs;
	uint64_t h0 = hpet_read(HPET_COUNTER), t0 = arch_counter();
	while (hpet_read(HPET_COUNTER) - h0 < ticks)
		arch_cpu_relax();
	return arch_counter() - t0;
}

uint64_t tsc_calibrate(const char **how)
{
	uint64_t hz = from_cpuid(how), best = 0;

	if (hz)
		return hz;
	*how = "PIT";
	for (unsigned i = 0; i < CAL_RUNS; i++) {
		uint64_t d = pit_measure();
		if (!d)
			break;
		if (!best || d < best)
			best = d;
	}
	if (!best) {
		*how = "HPET";
		for (unsigned i = 0; i < CAL_RUNS; i++) {
			uint64_t d = hpet_measure();
			if (d && (!best || d < best))
				best = d;
		}
	}
	return best * 1000 / CAL_MS;
}
