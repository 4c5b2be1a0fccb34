/*
 * Arm Generic Interrupt Controller, versions 2 and 3 (gicv2.c, gicv3.c,
 * both behind kernel/irq/irqchip.h).
 *
 * INTIDs: 0-15 SGIs (software, per core), 16-31 PPIs (per core: timers),
 * 32+ SPIs, 1020-1023 special (1023 = spurious: nothing to acknowledge).
 * gmk uses SGIs, PPIs and device SPIs (routed to the boot core), all at
 * one priority, delivered as IRQ
 * (group 1 on GICv3; group 0 on a GICv2 without security extensions,
 * group 1 where firmware left the non-secure view, as on a Raspberry Pi 4).
 */
#ifndef GMK_KERNEL_IRQ_GIC_H
#define GMK_KERNEL_IRQ_GIC_H

#include "kernel/fdt.h"
#include "kernel/irq/irqchip.h"
#include "kernel/mmio.h"

#define GIC_SGI_BASE		0
#define GIC_PPI_BASE		16
#define GIC_SPI_BASE		32
#define GIC_IPI_SGI		1	/* the kernel's IPI */
#define GIC_TIMER_VIRT_PPI	27	/* CNTV, when the DT does not say */
#define GIC_DT_CELLS		3	/* <type number flags> */
#define GIC_DT_SPI		0
#define GIC_DT_PPI		1
#define GIC_DT_FLAGS_EDGE	3	/* third cell: 1/2 edge, 4/8 level */
#define GICD_ISENABLER(n)	(0x100 + 4 * (n))
#define GICD_ICFGR(n)		(0xc00 + 4 * (n))	/* 2 bits per INTID */
#define GICD_ICFGR_EDGE(intid)	(2u << ((intid) % 16 * 2))

/* A GIC interrupt specifier (3 cells) to its INTID. */
static inline unsigned gic_dt_irq(const void *spec)
{
	uint32_t type = fdt_be32(spec), num = fdt_be32((const uint8_t *)spec + 4);

	if (type == GIC_DT_PPI && num < 16)
		return GIC_PPI_BASE + num;
	if (type == GIC_DT_SPI && num < 988)
		return GIC_SPI_BASE + num;
	return IRQ_SPURIOUS;
}

/* The distributor's part of enabling a device's SPI, the same on GICv2 and
 * GICv3: level or edge as the DT specifier says, then the enable bit. The
 * caller routes it first (GICv2's ITARGETSR; GICv3's IROUTER at init).
 * Returns false for an INTID that is not an SPI. */
static inline bool gicd_enable_spi(uintptr_t gicd, unsigned intid, const void *spec)
{
	uintptr_t cfg = gicd + GICD_ICFGR(intid / 16);
	bool edge = fdt_be32((const uint8_t *)spec + 8) & GIC_DT_FLAGS_EDGE;

	if (intid < GIC_SPI_BASE)
		return false;
	wr32(cfg, edge ? rd32(cfg) | GICD_ICFGR_EDGE(intid) : rd32(cfg) & ~GICD_ICFGR_EDGE(intid));
	wr32(gicd + GICD_ISENABLER(intid / 32), 1u << (intid % 32));
	return true;
}

#endif
