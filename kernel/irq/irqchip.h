/*
 * An interrupt controller for the arm64 device-tree platform
 * (boards/platform/arm64-dt), behind one small interface so that the
 * platform picks the driver whose `compatible` the DTB names:
 *   gicv2.c    "arm,gic-400", "arm,cortex-a15-gic"  (QEMU virt, Raspberry Pi 4)
 *   gicv3.c    "arm,gic-v3"                          (QEMU virt,gic-version=3)
 *   bcm2836.c  "brcm,bcm2836-l1-intc"                (Raspberry Pi 2/3 local block,
 *              with the "brcm,bcm2836-armctrl-ic" chained into it)
 * A board links the drivers its board.mk lists; the platform sees the
 * others as absent (weak references).
 *
 * Interrupt numbers are the driver's own: GIC INTIDs (0-15 SGIs, 16-31
 * PPIs, 1020-1023 special), or the BCM2836 block's source bits and,
 * above them, the BCM2835 ARM controller's lines chained into it. gmk uses
 * two per core: the kernel's IPI and the virtual timer (CNTV); and a
 * device's (the console UART's receive interrupt) where the driver can
 * route one (enable_device).
 */
#ifndef GMK_KERNEL_IRQ_IRQCHIP_H
#define GMK_KERNEL_IRQ_IRQCHIP_H

#include <stdbool.h>
#include <stdint.h>

#define IRQ_SPURIOUS		1023	/* ack: nothing (more) pending */
#define IRQCHIP_MAX_REGS	6

/* The controller's DT node, its reg entries already translated to CPU
 * physical addresses (through every parent's `ranges`). */
struct irqchip_config {
	uintptr_t reg[IRQCHIP_MAX_REGS];
	uint64_t reg_size[IRQCHIP_MAX_REGS];
	unsigned nreg;
	unsigned nredist;	/* GICv3 #redistributor-regions (default 1) */
	/* The chained controller's (struct irqchip's cascade_compatible)
	 * reg 0, translated; 0 when the DT has no such node. */
	uintptr_t cascade_reg;
	int cascade_node;	/* its DT node, -1 if none */
};

struct irqchip {
	const char *name;
	const char *const *compatible;	/* DT compatibles, NULL-terminated */
	unsigned max_cpus;		/* cores it can address */
	unsigned ipi;			/* the kernel's IPI arrives as this */
	unsigned timer;			/* CNTV's number when the DT does not say */
	unsigned dt_cells;		/* #interrupt-cells in a DT */
	/* One DT interrupt specifier (dt_cells big-endian cells) to this
	 * driver's number, IRQ_SPURIOUS when it cannot be one of ours. */
	unsigned (*dt_irq)(const void *spec);
	/* A second controller chained into this one, which devices name as
	 * their interrupt-parent (the BCM2835 ARM controller behind the
	 * BCM2836 block's GPU source): its DT compatibles (NULL: none), and
	 * its specifiers (cascade_dt_cells cells) to this driver's numbers. */
	const char *const *cascade_compatible;
	unsigned cascade_dt_cells;
	unsigned (*cascade_dt_irq)(const void *spec);
	/* Boot core, once. False: the node does not describe a usable one. */
	bool (*init)(const struct irqchip_config *cfg);
	/* Each core, on itself, interrupts masked. `cpu_id` is the logical
	 * core number; this_cpu()->hwid holds its packed MPIDR. */
	bool (*cpu_init)(unsigned cpu_id);
	/* Enable a per-core interrupt (IPI, timer) on this core. */
	void (*enable_local)(unsigned irq);
	/* Enable a device's interrupt (its DT specifier `spec`, number irq
	 * from dt_irq or cascade_dt_irq), delivered to the boot core (the
	 * platform calls it there). NULL: the driver routes
	 * no device interrupts; the console is then polled for input. */
	void (*enable_device)(unsigned irq, const void *spec);
	/* Take the highest-priority pending interrupt: its number
	 * (IRQ_SPURIOUS if none) and in *token what eoi needs back. */
	unsigned (*ack)(uint32_t *token);
	void (*eoi)(uint32_t token);
	/* Raise the IPI on logical core `cpu_id` whose MPIDR is `mpidr`. */
	void (*send_ipi)(unsigned cpu_id, uint64_t mpidr);
};

extern const struct irqchip gicv2_driver, gicv3_driver, bcm2836_local_driver;

#endif
