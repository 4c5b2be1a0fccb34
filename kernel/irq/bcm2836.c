/*
 * The BCM2836 "ARM local" interrupt block (Raspberry Pi 2 and 3; at
 * 0x40000000 on the Pi 3). Each core has its own routing for the four
 * generic-timer outputs and four mailboxes; there is no distributor and no
 * priority. gmk uses, per core, the virtual timer (CNTV) and mailbox 0 as
 * the IPI: a write of 1 to a core's mailbox-0 set register raises the
 * interrupt there until that core writes the bit to the clear register.
 *
 * Interrupt numbers are the block's source bits, as in the DT
 * ("brcm,bcm2836-l1-intc", first cell): 0 CNTPS, 1 CNTPNS, 2 CNTHP,
 * 3 CNTV, 4-7 mailboxes 0-3, 8 GPU, 9 PMU. The core number is MPIDR.Aff0.
 *
 * Devices (the PL011 among them) interrupt through the BCM2835 ARM
 * interrupt controller ("brcm,bcm2836-armctrl-ic", at 0x7e00b200 on the
 * VideoCore bus, 0x3f00b200 to the Pi 3's cores), whose output is the
 * local block's GPU source 8, delivered to the one core the GPU routing
 * register names. Its DT specifier is <bank irq>: bank 0 the ARM
 * peripherals (basic pending bits 0-7), banks 1 and 2 the GPU IRQs 0-31
 * and 32-63 (pending 1 and 2). Here they are numbered after the local
 * sources: ARMCTRL_BASE + 32 * bank + irq (the PL011, GPU IRQ 57 = bank 2
 * irq 25, is 105).
 */
#include <stddef.h>

#include "kernel/fdt.h"
#include "kernel/irq/irqchip.h"
#include "kernel/mmio.h"
#include "kernel/percpu.h"

#define LOCAL_TIMER_CTL(n)	(0x40 + 4 * (n))	/* bits 0-3: timer IRQ enable */
#define LOCAL_MBOX_CTL(n)	(0x50 + 4 * (n))	/* bits 0-3: mailbox IRQ enable */
#define LOCAL_IRQ_PENDING(n)	(0x60 + 4 * (n))
#define LOCAL_MBOX_SET(n, m)	(0x80 + 0x10 * (n) + 4 * (m))
#define LOCAL_MBOX_CLR(n, m)	(0xc0 + 0x10 * (n) + 4 * (m))

#define LOCAL_GPU_ROUTING	0x0c	/* bits 0-1: the core GPU IRQs go to */

#define SRC_CNTV		3
#define SRC_MBOX0		4
#define SRC_TIMER_LAST		3
#define SRC_MBOX_LAST		7
#define SRC_GPU			8
#define SRC_LAST		9
#define BCM2836_CORES		4

/* The BCM2835 ARM interrupt controller, bank by bank (0 basic, 1, 2). */
#define ARMCTRL_PENDING(b)	((b) == 0 ? 0x00 : (b) == 1 ? 0x04 : 0x08)
#define ARMCTRL_ENABLE(b)	((b) == 0 ? 0x18 : (b) == 1 ? 0x10 : 0x14)
#define ARMCTRL_DISABLE(b)	((b) == 0 ? 0x24 : (b) == 1 ? 0x1c : 0x20)
#define ARMCTRL_BANKS		3
#define ARMCTRL_BANK0_MASK	0xffu	/* basic pending's own lines; above
					 * them are summaries and shortcuts */
#define ARMCTRL_BASE		16	/* our number of bank 0 irq 0 */
/* Only where the DT has no armctrl node (and then no device names it):
 * where it sits on the Pi 2 and 3, so that init still silences it. */
#define ARMCTRL_FALLBACK	0x3f00b200

static uintptr_t base;
static uintptr_t armctrl;
static uint32_t armctrl_enabled[ARMCTRL_BANKS];	/* what enable_device set */

static unsigned core(void)
{
	return this_cpu()->hwid & 0xff;		/* Aff0 */
}

static unsigned bcm2836_dt_irq(const void *spec)
{
	uint32_t src = fdt_be32(spec);

	return src <= SRC_LAST ? src : IRQ_SPURIOUS;
}

static unsigned armctrl_dt_irq(const void *spec)
{
	uint32_t bank = fdt_be32(spec);
	uint32_t irq = fdt_be32((const uint8_t *)spec + 4);

	if (bank >= ARMCTRL_BANKS || irq >= (bank == 0 ? 8u : 32u))
		return IRQ_SPURIOUS;
	return ARMCTRL_BASE + 32 * bank + irq;
}

static bool bcm2836_init(const struct irqchip_config *cfg)
{
	if (cfg->nreg < 1)
		return false;
	base = cfg->reg[0];
	for (unsigned n = 0; n < BCM2836_CORES; n++) {
		wr32(base + LOCAL_TIMER_CTL(n), 0);
		wr32(base + LOCAL_MBOX_CTL(n), 0);
	}
	/* Every device line off (enable_device turns one on). */
	armctrl = cfg->cascade_reg ? cfg->cascade_reg : ARMCTRL_FALLBACK;
	for (unsigned b = 0; b < ARMCTRL_BANKS; b++)
		wr32(armctrl + ARMCTRL_DISABLE(b), ~0u);
	return true;
}

static bool bcm2836_cpu_init(unsigned cpu_id)
{
	unsigned n = core();

	if (n >= BCM2836_CORES)
		return false;
	wr32(base + LOCAL_MBOX_CLR(n, 0), ~0u);	/* nothing left from firmware */
	return true;
}

static void bcm2836_enable_local(unsigned irq)
{
	unsigned n = core();

	if (irq <= SRC_TIMER_LAST)
		wr32(base + LOCAL_TIMER_CTL(n), rd32(base + LOCAL_TIMER_CTL(n)) | 1u << irq);
	else if (irq <= SRC_MBOX_LAST)
		wr32(base + LOCAL_MBOX_CTL(n),
		     rd32(base + LOCAL_MBOX_CTL(n)) | 1u << (irq - SRC_MBOX0));
}

/* A device line in the ARM controller, its output (the GPU source) routed
 * to this core. Level lines: the device's own mask is what clears one. */
static void bcm2836_enable_device(unsigned irq, const void *spec)
{
	(void)spec;		/* no trigger to configure */
	if (irq < ARMCTRL_BASE || irq >= ARMCTRL_BASE + 32 * ARMCTRL_BANKS)
		return;
	unsigned b = (irq - ARMCTRL_BASE) / 32, bit = (irq - ARMCTRL_BASE) % 32;
	wr32(base + LOCAL_GPU_ROUTING, core() & 3);
	armctrl_enabled[b] |= 1u << bit;
	wr32(armctrl + ARMCTRL_ENABLE(b), 1u << bit);
}

/* The GPU source: the lowest pending line we enabled, bank 0 first. The
 * pending registers are read directly rather than through basic
 * pending's summary bits, which leave out the lines it has shortcuts
 * for (GPU IRQ 57, the PL011, among them). */
static unsigned armctrl_pending(void)
{
	for (unsigned b = 0; b < ARMCTRL_BANKS; b++) {
		uint32_t p = rd32(armctrl + ARMCTRL_PENDING(b)) & armctrl_enabled[b];
		if (b == 0)
			p &= ARMCTRL_BANK0_MASK;
		if (p)
			return ARMCTRL_BASE + 32 * b + (unsigned)__builtin_ctz(p);
	}
	return IRQ_SPURIOUS;
}

/* The lowest pending source. A mailbox is cleared here, before the
 * kernel's handler runs (which may never return: IPI_STOP); its bits
 * carry nothing, the kernel's mailbox (cpu->ipi_pending) says why. */
static unsigned bcm2836_ack(uint32_t *token)
{
	unsigned n = core();
	uint32_t pending = rd32(base + LOCAL_IRQ_PENDING(n));

	if (!pending)
		return *token = IRQ_SPURIOUS;
	unsigned src = (unsigned)__builtin_ctz(pending);
	if (src == SRC_GPU)
		return *token = armctrl_pending();
	if (src >= SRC_MBOX0 && src <= SRC_MBOX_LAST) {
		unsigned m = src - SRC_MBOX0;
		wr32(base + LOCAL_MBOX_CLR(n, m), rd32(base + LOCAL_MBOX_CLR(n, m)));
	}
	return *token = src;
}

static void bcm2836_eoi(uint32_t token)
{
	(void)token;		/* level sources: the timer is disarmed instead */
}

static void bcm2836_send_ipi(unsigned cpu_id, uint64_t mpidr)
{
	/* The kernel's mailbox store must be visible before the interrupt. */
	dsb(ishst);
	wr32(base + LOCAL_MBOX_SET(mpidr & 0xff, 0), 1);
}

static const char *const bcm2836_compatible[] = { "brcm,bcm2836-l1-intc", NULL };
static const char *const armctrl_compatible[] = { "brcm,bcm2836-armctrl-ic", NULL };

const struct irqchip bcm2836_local_driver = {
	.name = "BCM2836 local",
	.compatible = bcm2836_compatible,
	.max_cpus = BCM2836_CORES,
	.ipi = SRC_MBOX0,
	.timer = SRC_CNTV,
	.dt_cells = 2,
	.dt_irq = bcm2836_dt_irq,
	.cascade_compatible = armctrl_compatible,
	.cascade_dt_cells = 2,
	.cascade_dt_irq = armctrl_dt_irq,
	.init = bcm2836_init,
	.cpu_init = bcm2836_cpu_init,
	.enable_local = bcm2836_enable_local,
	.enable_device = bcm2836_enable_device,
	.ack = bcm2836_ack,
	.eoi = bcm2836_eoi,
	.send_ipi = bcm2836_send_ipi,
};
