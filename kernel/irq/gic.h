/*
 * Arm Generic Interrupt Controller, versions 2 and 3, behind one small
 * interface so a board picks the driver the DTB names:
 *   "arm,cortex-a15-gic", "arm,gic-400"  -> gicv2_driver (memory-mapped
 *                                           distributor + CPU interface)
 *   "arm,gic-v3"                         -> gicv3_driver (distributor,
 *                                           per-core redistributors, ICC_*
 *                                           system registers)
 *
 * INTIDs: 0-15 SGIs (software, per core), 16-31 PPIs (per core: timers),
 * 32+ SPIs, 1020-1023 special (1023 = spurious: nothing to acknowledge).
 * gmk uses SGIs and PPIs only, all at one priority, delivered as IRQ
 * (group 1 on GICv3; group 0 on a GICv2 without security extensions).
 */
#ifndef GMK_KERNEL_IRQ_GIC_H
#define GMK_KERNEL_IRQ_GIC_H

#include <stdbool.h>
#include <stdint.h>

#define GIC_SGI_BASE		0
#define GIC_PPI_BASE		16
#define GIC_SPI_BASE		32
#define GIC_INTID_SPURIOUS	1023
#define GIC_MAX_REDIST_REGIONS	4

struct gic_config {
	uintptr_t dist;					/* GICD */
	uintptr_t cpuif;				/* GICv2: GICC */
	uintptr_t redist[GIC_MAX_REDIST_REGIONS];	/* GICv3: GICR regions */
	uint64_t redist_size[GIC_MAX_REDIST_REGIONS];
	unsigned nredist;
};

struct gic_driver {
	const char *name;
	/* Boot core, once: the distributor. */
	void (*init)(const struct gic_config *cfg);
	/* Each core, on itself, interrupts masked: its CPU interface (and
	 * redistributor). `cpu_id` is the logical core number. */
	bool (*cpu_init)(unsigned cpu_id);
	/* Enable an SGI or PPI on this core. */
	void (*enable_local)(unsigned intid);
	/* Acknowledge the highest-priority pending interrupt: returns its
	 * INTID (GIC_INTID_SPURIOUS if none) and stores in *iar the value to
	 * hand back to eoi. */
	unsigned (*ack)(uint32_t *iar);
	void (*eoi)(uint32_t iar);
	/* Raise SGI `intid` on logical core `cpu_id` whose MPIDR is `mpidr`. */
	void (*send_sgi)(unsigned intid, unsigned cpu_id, uint64_t mpidr);
};

extern const struct gic_driver gicv2_driver, gicv3_driver;

#endif
