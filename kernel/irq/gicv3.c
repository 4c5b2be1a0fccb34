/*
 * GICv3 (QEMU -M virt,gic-version=3): a memory-mapped distributor for
 * SPIs, one redistributor per core (two 64 KiB frames: RD_base for power
 * and wake, SGI_base for the core's SGI/PPI configuration), and a CPU
 * interface in system registers (ICC_*_EL1). Affinity routing is on:
 * SGIs are addressed by MPIDR affinity, not by a target bit list.
 */
#include <stddef.h>

#include "kernel/cpu.h"
#include "kernel/irq/gic.h"
#include "kernel/mmio.h"
#include "kernel/percpu.h"

/* The CPU interface's system registers, by encoding (the assembler knows
 * no ICC_* names without the GIC extension enabled). */
#define ICC_SRE_EL1		S3_0_C12_C12_5
#define ICC_PMR_EL1		S3_0_C4_C6_0
#define ICC_BPR1_EL1		S3_0_C12_C12_3
#define ICC_CTLR_EL1		S3_0_C12_C12_4
#define ICC_IGRPEN1_EL1		S3_0_C12_C12_7
#define ICC_IAR1_EL1		S3_0_C12_C12_0
#define ICC_EOIR1_EL1		S3_0_C12_C12_1
#define ICC_SGI1R_EL1		S3_0_C12_C11_5

/* Distributor */
#define GICD_CTLR		0x0000
#define GICD_TYPER		0x0004
#define GICD_ICENABLER(n)	(0x0180 + 4 * (n))
#define GICD_IGROUPR(n)		(0x0080 + 4 * (n))
#define GICD_IPRIORITYR(n)	(0x0400 + (n))
#define GICD_IROUTER(n)		(0x6000 + 8 * (n))
#define GICD_CTLR_RWP		(1u << 31)
#define GICD_CTLR_ARE		(1u << 4)	/* affinity routing (ARE_NS) */
#define GICD_CTLR_ENABLE_G1	(1u << 1)	/* non-secure group 1 */

/* Redistributor: RD_base frame */
#define GICR_FRAME_SIZE		0x10000
#define GICR_STRIDE		(2 * GICR_FRAME_SIZE)	/* RD_base + SGI_base */
#define GICR_TYPER		0x0008			/* 64-bit */
#define GICR_WAKER		0x0014
#define GICR_TYPER_LAST		(1u << 4)
#define GICR_WAKER_PROCESSOR_SLEEP	(1u << 1)
#define GICR_WAKER_CHILDREN_ASLEEP	(1u << 2)
/* Redistributor: SGI_base frame */
#define GICR_IGROUPR0		0x0080
#define GICR_ISENABLER0		0x0100
#define GICR_ICENABLER0		0x0180
#define GICR_IPRIORITYR(n)	(0x0400 + (n))

/* ICC system registers by encoding (no assembler names needed). */
#define ICC_SRE_EL1_SRE		(1u << 0)
#define GIC_PRIO_DEFAULT	0xa0
#define GIC_PRIO_MASK_ALL_PASS	0xff
#define GIC_MAX_REDIST_REGIONS	4
#define WAKE_SPINS		1000000

static uintptr_t gicd;
static uintptr_t redist[GIC_MAX_REDIST_REGIONS];
static uint64_t redist_size[GIC_MAX_REDIST_REGIONS];
static unsigned nredist;
/* This core's redistributor SGI frame, per logical core. */
static uintptr_t sgi_frame[MAX_CPUS];

static void dist_wait_rwp(void)
{
	for (unsigned i = 0; i < WAKE_SPINS && (rd32(gicd + GICD_CTLR) & GICD_CTLR_RWP); i++)
		;
}

/* reg: GICD, then #redistributor-regions GICR regions (then GICC...). */
static bool gicv3_init(const struct irqchip_config *cfg)
{
	if (cfg->nreg < 2)
		return false;
	gicd = cfg->reg[0];
	for (unsigned r = 0; r < cfg->nredist && r < GIC_MAX_REDIST_REGIONS &&
	     1 + r < cfg->nreg; r++) {
		redist[r] = cfg->reg[1 + r];
		redist_size[r] = cfg->reg_size[1 + r];
		nredist++;
	}
	unsigned lines = 32 * ((rd32(gicd + GICD_TYPER) & 0x1f) + 1);

	wr32(gicd + GICD_CTLR, 0);
	dist_wait_rwp();
	/* SPIs: off, group 1, routed to the boot core (enable_device turns one on). */
	uint64_t mpidr;
	mpidr = sysreg_read(mpidr_el1);
	for (unsigned n = 1; n < lines / 32; n++) {
		wr32(gicd + GICD_ICENABLER(n), ~0u);
		wr32(gicd + GICD_IGROUPR(n), ~0u);
	}
	for (unsigned i = GIC_SPI_BASE; i < lines; i++) {
		wr8(gicd + GICD_IPRIORITYR(i), GIC_PRIO_DEFAULT);
		wr64(gicd + GICD_IROUTER(i), mpidr & 0xff00ffffffull);
	}
	dist_wait_rwp();
	wr32(gicd + GICD_CTLR, GICD_CTLR_ARE | GICD_CTLR_ENABLE_G1);
	dist_wait_rwp();
	return true;
}

/* MPIDR affinity packed as GICR_TYPER[63:32] has it: Aff3.Aff2.Aff1.Aff0. */
static uint32_t mpidr_to_typer_aff(uint64_t mpidr)
{
	return (uint32_t)((mpidr >> 8) & 0xff000000u) | (uint32_t)(mpidr & 0xffffffu);
}

/* Walk the redistributor regions for the one whose affinity is ours. */
static uintptr_t find_redist(uint64_t mpidr)
{
	uint32_t want = mpidr_to_typer_aff(mpidr);

	for (unsigned r = 0; r < nredist; r++) {
		uintptr_t base = redist[r];
		uintptr_t end = base + redist_size[r];
		for (uintptr_t rd = base; rd + GICR_STRIDE <= end; rd += GICR_STRIDE) {
			uint64_t typer = rd64(rd + GICR_TYPER);
			if ((uint32_t)(typer >> 32) == want)
				return rd;
			if (typer & GICR_TYPER_LAST)
				break;
		}
	}
	return 0;
}

static bool gicv3_cpu_init(unsigned cpu_id)
{
	uint64_t mpidr;

	mpidr = sysreg_read(mpidr_el1);
	uintptr_t rd = find_redist(mpidr);
	if (!rd || cpu_id >= MAX_CPUS)
		return false;

	/* Wake the redistributor: it forwards nothing while "asleep". */
	wr32(rd + GICR_WAKER, rd32(rd + GICR_WAKER) & ~GICR_WAKER_PROCESSOR_SLEEP);
	for (unsigned i = 0; i < WAKE_SPINS &&
	     (rd32(rd + GICR_WAKER) & GICR_WAKER_CHILDREN_ASLEEP); i++)
		;

	uintptr_t sgi = rd + GICR_FRAME_SIZE;
	sgi_frame[cpu_id] = sgi;
	wr32(sgi + GICR_ICENABLER0, ~0u);	/* SGIs and PPIs off until asked */
	wr32(sgi + GICR_IGROUPR0, ~0u);		/* all group 1: delivered as IRQ */
	for (unsigned i = 0; i < GIC_SPI_BASE; i++)
		wr8(sgi + GICR_IPRIORITYR(i), GIC_PRIO_DEFAULT);

	/* CPU interface: system registers on, every priority passes,
	 * EOI does priority drop and deactivation together, group 1 on. */
	uint64_t sre;
	sre = sysreg_read(ICC_SRE_EL1);
	sysreg_write(ICC_SRE_EL1, sre | ICC_SRE_EL1_SRE);
	isb();
	sysreg_write(ICC_PMR_EL1, GIC_PRIO_MASK_ALL_PASS);
	sysreg_write(ICC_BPR1_EL1, 0);
	sysreg_write(ICC_CTLR_EL1, 0);		/* EOImode 0 */
	sysreg_write(ICC_IGRPEN1_EL1, 1);
	isb();
	return true;
}

static void gicv3_enable_local(unsigned intid)
{
	struct cpu *c = this_cpu();

	wr32(sgi_frame[c->id] + GICR_ISENABLER0, 1u << intid);
}

static unsigned gicv3_ack(uint32_t *iar)
{
	uint64_t v;

	v = sysreg_read(ICC_IAR1_EL1);
	/* The read is a system register access; dsb makes the effects of
	 * acknowledging visible before we act on the interrupt. */
	dsb(sy);
	*iar = (uint32_t)v;
	return (uint32_t)v & 0xffffff;
}

static void gicv3_eoi(uint32_t iar)
{
	sysreg_write(ICC_EOIR1_EL1, iar);
	isb();
}

/*
 * ICC_SGI1R_EL1: Aff3 [55:48], RS [47:44] (which block of 16 Aff0 values),
 * Aff2 [39:32], INTID [27:24], Aff1 [23:16], target list [15:0] (one bit
 * per Aff0 within the block).
 */
static void gicv3_send_ipi(unsigned cpu_id, uint64_t mpidr)
{
	const unsigned intid = GIC_IPI_SGI;
	uint64_t aff0 = mpidr & 0xff, aff1 = (mpidr >> 8) & 0xff;
	uint64_t aff2 = (mpidr >> 16) & 0xff, aff3 = (mpidr >> 32) & 0xff;
	uint64_t v = aff3 << 48 | (aff0 / 16) << 44 | aff2 << 32 |
		     (uint64_t)(intid & 0xf) << 24 | aff1 << 16 | 1ull << (aff0 % 16);

	(void)cpu_id;
	/* A system-register write is not ordered by dmb: the mailbox store
	 * that precedes it must complete first. */
	dsb(ishst);
	sysreg_write(ICC_SGI1R_EL1, v);
	isb();
}

/* An SPI, level or edge as the DT specifier says, to the boot core
 * (where init routed every SPI). */
static void gicv3_enable_device(unsigned intid, const void *spec)
{
	gicd_enable_spi(gicd, intid, spec);
}

static const char *const gicv3_compatible[] = { "arm,gic-v3", NULL };

const struct irqchip gicv3_driver = {
	.name = "GICv3",
	.compatible = gicv3_compatible,
	.max_cpus = MAX_CPUS,
	.ipi = GIC_IPI_SGI,
	.timer = GIC_TIMER_VIRT_PPI,
	.dt_cells = GIC_DT_CELLS,
	.dt_irq = gic_dt_irq,
	.init = gicv3_init,
	.cpu_init = gicv3_cpu_init,
	.enable_local = gicv3_enable_local,
	.enable_device = gicv3_enable_device,
	.ack = gicv3_ack,
	.eoi = gicv3_eoi,
	.send_ipi = gicv3_send_ipi,
};
