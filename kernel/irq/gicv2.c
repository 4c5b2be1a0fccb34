/*
 * GICv2 (GIC-400, QEMU's default for -M virt): a memory-mapped distributor
 * (GICD) shared by all cores and a memory-mapped CPU interface (GICC) whose
 * registers are banked per core, as are the distributor's SGI/PPI ones.
 * At most 8 cores: an SGI names its targets by CPU interface number, a
 * bit in an 8-bit list.
 */
#include <stddef.h>

#include "kernel/irq/gic.h"
#include "kernel/mmio.h"
#include "kernel/percpu.h"

/* Distributor */
#define GICD_CTLR		0x000
#define GICD_TYPER		0x004
#define GICD_ICENABLER(n)	(0x180 + 4 * (n))
#define GICD_ICPENDR(n)		(0x280 + 4 * (n))
#define GICD_IPRIORITYR(n)	(0x400 + (n))		/* byte per INTID */
#define GICD_ITARGETSR(n)	(0x800 + (n))		/* byte per INTID */
#define GICD_SGIR		0xf00
#define GICD_CTLR_ENABLE	1u
#define GICD_SGIR_TARGET_SHIFT	16
#define GICD_SGIR_FILTER_SELF	(2u << 24)	/* only the requesting core */

/* CPU interface */
#define GICC_CTLR		0x000
#define GICC_PMR		0x004
#define GICC_BPR		0x008
#define GICC_IAR		0x00c
#define GICC_EOIR		0x010
#define GICC_CTLR_ENABLE	1u

#define GIC_PRIO_DEFAULT	0xa0	/* every interrupt gmk uses */
#define GIC_PRIO_MASK_ALL_PASS	0xff	/* PMR: let every priority through */
#define GICV2_MAX_CPUS		8

static uintptr_t gicd, gicc;
/* CPU interface mask of each logical core, learnt on that core. */
static uint8_t cpu_mask[MAX_CPUS];

/* reg: GICD, GICC (then GICH, GICV, unused). */
static bool gicv2_init(const struct irqchip_config *cfg)
{
	if (cfg->nreg < 2)
		return false;
	gicd = cfg->reg[0];
	gicc = cfg->reg[1];
	unsigned lines = 32 * ((rd32(gicd + GICD_TYPER) & 0x1f) + 1);

	wr32(gicd + GICD_CTLR, 0);
	/* SPIs: all off, cleared, routed to core 0 (enable_device turns one on). */
	for (unsigned n = 1; n < lines / 32; n++) {
		wr32(gicd + GICD_ICENABLER(n), ~0u);
		wr32(gicd + GICD_ICPENDR(n), ~0u);
	}
	for (unsigned i = GIC_SPI_BASE; i < lines; i++) {
		wr8(gicd + GICD_IPRIORITYR(i), GIC_PRIO_DEFAULT);
		wr8(gicd + GICD_ITARGETSR(i), 1);
	}
	wr32(gicd + GICD_CTLR, GICD_CTLR_ENABLE);
	return true;
}

static bool gicv2_cpu_init(unsigned cpu_id)
{
	if (cpu_id >= GICV2_MAX_CPUS)
		return false;
	/* ITARGETSR0-7 are banked and read as this core's own interface bit,
	 * except on a uniprocessor GIC, where they read as zero and the only
	 * interface is number 0. */
	cpu_mask[cpu_id] = rd8(gicd + GICD_ITARGETSR(0));
	if (cpu_mask[cpu_id] == 0)
		cpu_mask[cpu_id] = 1;
	wr32(gicd + GICD_ICENABLER(0), ~0u);	/* SGIs and PPIs off until asked */
	for (unsigned i = 0; i < GIC_SPI_BASE; i++)
		wr8(gicd + GICD_IPRIORITYR(i), GIC_PRIO_DEFAULT);
	wr32(gicc + GICC_PMR, GIC_PRIO_MASK_ALL_PASS);
	wr32(gicc + GICC_BPR, 0);
	wr32(gicc + GICC_CTLR, GICC_CTLR_ENABLE);
	return true;
}

static void gicv2_enable_local(unsigned intid)
{
	wr32(gicd + GICD_ISENABLER(0), 1u << intid);	/* banked per core */
}

static unsigned gicv2_ack(uint32_t *iar)
{
	*iar = rd32(gicc + GICC_IAR);
	/* Bits 12:10 hold an SGI's source core; the INTID is 9:0. */
	return *iar & 0x3ff;
}

static void gicv2_eoi(uint32_t iar)
{
	wr32(gicc + GICC_EOIR, iar);		/* the whole IAR, source included */
}

static void gicv2_send_ipi(unsigned cpu_id, uint64_t mpidr)
{
	const unsigned intid = GIC_IPI_SGI;

	(void)mpidr;
	/* The mailbox write that precedes this must be visible first. */
	dsb(ishst);
	if (cpu_id == this_cpu()->id)
		wr32(gicd + GICD_SGIR, GICD_SGIR_FILTER_SELF | intid);
	else
		wr32(gicd + GICD_SGIR,
		     (uint32_t)cpu_mask[cpu_id] << GICD_SGIR_TARGET_SHIFT | intid);
}

/* An SPI, level or edge as the DT specifier says, to the boot core
 * (where init routed every SPI). */
static void gicv2_enable_device(unsigned intid, const void *spec)
{
	if (intid >= GIC_SPI_BASE)
		wr8(gicd + GICD_ITARGETSR(intid), cpu_mask[0] ? cpu_mask[0] : 1);
	gicd_enable_spi(gicd, intid, spec);
}

static const char *const gicv2_compatible[] = {
	"arm,gic-400", "arm,cortex-a15-gic", "arm,cortex-a9-gic", NULL
};

const struct irqchip gicv2_driver = {
	.name = "GICv2",
	.compatible = gicv2_compatible,
	.max_cpus = GICV2_MAX_CPUS,
	.ipi = GIC_IPI_SGI,
	.timer = GIC_TIMER_VIRT_PPI,
	.dt_cells = GIC_DT_CELLS,
	.dt_irq = gic_dt_irq,
	.init = gicv2_init,
	.cpu_init = gicv2_cpu_init,
	.enable_local = gicv2_enable_local,
	.enable_device = gicv2_enable_device,
	.ack = gicv2_ack,
	.eoi = gicv2_eoi,
	.send_ipi = gicv2_send_ipi,
};
