/*
 * The TSC's frequency. CPUID states it on recent Intel parts (leaf 0x15,
 * with leaf 0x16 where 0x15 leaves the crystal out) and on some hypervisors
 * (leaf 0x40000010, in kHz); QEMU's default CPU states neither, under TCG
 * or KVM, so it is usually measured: against PIT channel 2 (1,193,182 Hz,
 * its count latched and read at both ends of the span), or the HPET if the
 * PIT does not count (PCs whose firmware gates the 8254's clock to save
 * power).
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
#include "kernel/mmio.h"

#define CPUID_TSC_CRYSTAL	0x15
#define CPUID_FREQ		0x16	/* eax: base frequency in MHz */
#define CPUID_HYPERVISOR	0x40000000
#define CPUID_HV_TIMING		0x40000010
#define CPUID1_ECX_HYPERVISOR	(1u << 31)

#define PIT_HZ			1193182ull
#define PIT_CH2_DATA		0x42
#define PIT_MODE		0x43
#define PIT_CH2_ONESHOT		0xb0	/* ch 2, lo/hi byte, mode 0, binary */
#define PIT_CH2_LATCH		0x80	/* ch 2: latch the count */
#define PORT_61			0x61	/* bit 0 ch2 gate, 1 speaker, 5 ch2 out */
#define P61_GATE		0x01
#define P61_SPEAKER		0x02

#define HPET_BASE		0xfed00000ul
#define HPET_CAP		0x000	/* bits 63:32: period in femtoseconds */
#define HPET_CONFIG		0x010
#define HPET_COUNTER		0x0f0
#define HPET_ENABLE		0x1
#define FS_PER_SEC		1000000000000000ull

#define CAL_MS			10	/* one measurement */
#define CAL_RUNS		5	/* keep the least disturbed */
#define CAL_TOLERANCE		2000	/* brackets within 1/2000 of the span */
#define PIT_POLL_LIMIT		1000000	/* readings (3 port accesses each,
					 * about 3 s on hardware) before giving
					 * up on a PIT that does not count */

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

/*
 * One PIT reading: channel 2's count, latched, bracketed by two TSC reads.
 * The TSC of the reading is the bracket's middle, right within its width
 * (`err`): a core that was stopped between the TSC reads and the latch (an
 * SMI, a hypervisor or a loaded emulator host descheduling it) gives a
 * wide bracket, which the caller sees, instead of a silent error.
 */
struct pit_sample {
	uint64_t tsc, err;
	uint16_t count;
};

static void pit_sample(struct pit_sample *s)
{
	uint64_t a = arch_counter();

	outb(PIT_MODE, PIT_CH2_LATCH);
	uint8_t lo = inb(PIT_CH2_DATA);
	uint8_t hi = inb(PIT_CH2_DATA);
	uint64_t b = arch_counter();
	s->count = (uint16_t)(lo | hi << 8);
	s->tsc = a + (b - a) / 2;
	s->err = b - a;
}

/*
 * TSC Hz measured over CAL_MS of PIT channel 2 counting down from 0xffff
 * (mode 0), from two bracketed readings of its count; *err is the sum of
 * their brackets in TSC ticks. 0 if the PIT does not count.
 *
 * Earlier gmk timed the channel's terminal count through port 0x61; a core
 * stopped just after the count ran out then read long, and under a loaded
 * TCG host the frequency came out up to 18% high (3005 MHz for 2596),
 * which stretched every timer by as much. Reading the count at both ends
 * bounds the error instead.
 */
static uint64_t pit_measure(uint64_t *err)
{
	struct pit_sample s0, s1;
	uint16_t span = PIT_HZ * CAL_MS / 1000;
	unsigned i;

	outb(PORT_61, (inb(PORT_61) & ~P61_SPEAKER) | P61_GATE);
	outb(PIT_MODE, PIT_CH2_ONESHOT);
	outb(PIT_CH2_DATA, 0xff);
	outb(PIT_CH2_DATA, 0xff);	/* loaded at the next PIT clock */
	for (i = 0; i < PIT_POLL_LIMIT; i++) {
		pit_sample(&s0);
		if (s0.count != 0xffff)
			break;			/* counting */
	}
	for (; i < PIT_POLL_LIMIT; i++) {
		pit_sample(&s1);
		if ((uint16_t)(s0.count - s1.count) >= span)
			break;
	}
	if (i >= PIT_POLL_LIMIT)
		return 0;
	*err = s0.err + s1.err;
	return (uint64_t)((unsigned __int128)(s1.tsc - s0.tsc) * PIT_HZ /
			  (uint16_t)(s0.count - s1.count));
}

static uint64_t hpet_read(unsigned off)
{
	return rd64(HPET_BASE + off);
}

static uint64_t hpet_measure(void)
{
	uint64_t period_fs = hpet_read(HPET_CAP) >> 32;

	if (period_fs == 0 || period_fs > 100000000)	/* spec: <= 100 ns */
		return 0;
	wr64(HPET_BASE + HPET_CONFIG, hpet_read(HPET_CONFIG) | HPET_ENABLE);
	uint64_t ticks = FS_PER_SEC / 1000 * CAL_MS / period_fs;
	uint64_t h0 = hpet_read(HPET_COUNTER), t0 = arch_counter();
	while (hpet_read(HPET_COUNTER) - h0 < ticks)
		arch_cpu_relax();
	return arch_counter() - t0;
}

/* The PIT measurement with the narrowest brackets of CAL_RUNS, at once
 * when its brackets are within 1/CAL_TOLERANCE of the span. */
static uint64_t pit_calibrate(void)
{
	uint64_t best = 0, best_err = UINT64_MAX;

	for (unsigned i = 0; i < CAL_RUNS; i++) {
		uint64_t err, hz = pit_measure(&err);
		if (!hz)
			return 0;
		if (err < best_err) {
			best = hz;
			best_err = err;
		}
		/* The span is CAL_MS of TSC ticks: hz * CAL_MS / 1000. */
		if (best_err * CAL_TOLERANCE * 1000 < best * CAL_MS)
			break;
	}
	return best;
}

uint64_t tsc_calibrate(const char **how)
{
	uint64_t hz = from_cpuid(how), best = 0;

	if (hz)
		return hz;
	*how = "PIT";
	hz = pit_calibrate();
	if (hz)
		return hz;
	*how = "HPET";
	for (unsigned i = 0; i < CAL_RUNS; i++) {
		uint64_t d = hpet_measure();
		if (d && (!best || d < best))
			best = d;
	}
	return best * 1000 / CAL_MS;
}
