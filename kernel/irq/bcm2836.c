/*
 * The BCM2836 "ARM local" interrupt block (Raspberry Pi 2 and 3; at
 * 0x40000000 on the Pi 3). Each core has its own routing for the four
 * generic-timer outputs and four mailboxes; there is no distributor and no
 * priority. gmk uses, per core, the virtual timer (CNTV) and mailbox 0 as
 * the IPI: a write of 1 to a core's mailbox-0 set register raises the
 * interrupt there until that core writes the bit to the clear register.
 *
 * Interrupt numbers are the block's source bits, as in the DT
 * ("brcm,bcm2836-l1-intc", one cell): 0 CNTPS, 1 CNTPNS, 2 CNTHP, 3 CNTV,
 * 4-7 mailboxes 0-3, 8 GPU, 9 PMU. The core number is MPIDR.Aff0.
 */
#include <stddef.h>

#include "kernel/fdt.h"
#include "kernel/irq/irqchip.h"
#include "kernel/percpu.h"

#define LOCAL_TIMER_CTL(n)	(0x40 + 4 * (n))	/* bits 0-3: timer IRQ enable */
#define LOCAL_MBOX_CTL(n)	(0x50 + 4 * (n))	/* bits 0-3: mailbox IRQ enable */
#define LOCAL_IRQ_PENDING(n)	(0x60 + 4 * (n))
#define LOCAL_MBOX_SET(n, m)	(0x80 + 0x10 * (n) + 4 * (m))
#define LOCAL_MBOX_CLR(n, m)	(0xc0 + 0x10 * (n) + 4 * (m))

#define SRC_CNTV		3
#define SRC_MBOX0		4
#define SRC_TIMER_LAST		3
#define SRC_MBOX_LAST		7
#define SRC_LAST		9
#define BCM2836_CORES		4

static uintptr_t base;

static inline uint32_t rd32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline void wr32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }

static unsigned core(void)
{
	return this_cpu()->hwid & 0xff;		/* Aff0 */
}

static unsigned bcm2836_dt_irq(const void *spec)
{
	uint32_t src = fdt_be32(spec);

	return src <= SRC_LAST ? src : IRQ_SPURIOUS;
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
	asm volatile("dsb ishst" : : : "memory");
	wr32(base + LOCAL_MBOX_SET(mpidr & 0xff, 0), 1);
}

static const char *const bcm2836_compatible[] = { "brcm,bcm2836-l1-intc", NULL };

const struct irqchip bcm2836_local_driver = {
	.name = "BCM2836 local",
	.compatible = bcm2836_compatible,
	.max_cpus = BCM2836_CORES,
	.ipi = SRC_MBOX0,
	.timer = SRC_CNTV,
	.dt_cells = 2,
	.dt_irq = bcm2836_dt_irq,
	.init = bcm2836_init,
	.cpu_init = bcm2836_cpu_init,
	.enable_local = bcm2836_enable_local,
	.ack = bcm2836_ack,
	.eoi = bcm2836_eoi,
	.send_ipi = bcm2836_send_ipi,
};
