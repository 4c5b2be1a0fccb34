/*
 * PCI for the pc platform: configuration space through the PC's ports
 * (0xCF8 address, 0xCFC data: configuration mechanism #1, which every PC
 * chipset and QEMU's q35 and i440fx have), and the virtio devices on bus
 * 0 in their legacy (transitional) layout: vendor 0x1af4, device ids
 * 0x1000..0x103f, the virtio device type in the subsystem id, registers
 * behind an I/O BAR 0 (kernel/dev/virtio.c). The firmware (SeaBIOS, OVMF)
 * has assigned the BARs and the interrupt line; gmk only turns on I/O
 * decoding and bus mastering. The line is routed through the IOAPIC
 * level-triggered (a PCI INTx), to the boot core.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arch/x86_64/io.h"
#include "arch/x86_64/lapic.h"
#include "boards/platform/pc/ioapic.h"
#include "boards/platform/pc/pc.h"
#include "kernel/board.h"
#include "kernel/dev/virtio.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"

#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc
#define PCI_VENDOR_VIRTIO	0x1af4
#define PCI_COMMAND		0x04
#define PCI_COMMAND_IO		(1u << 0)
#define PCI_COMMAND_MASTER	(1u << 2)
#define PCI_COMMAND_INTX_OFF	(1u << 10)
#define PCI_BAR0		0x10
#define PCI_SUBSYSTEM		0x2c	/* vendor, then id at 0x2e */
#define PCI_INTERRUPT		0x3c	/* line, then pin at 0x3d */
#define MAX_VIRTIO_PCI		PC_MAX_DEV_IRQS

static struct spinlock cfg_lock = SPINLOCK_INIT("pci config");

static uint32_t cfg_read(unsigned dev, unsigned fn, unsigned off)
{
	unsigned long flags = spin_lock_irqsave(&cfg_lock);
	outl(PCI_CONFIG_ADDRESS, 0x80000000u | dev << 11 | fn << 8 | (off & 0xfc));
	uint32_t v = inl(PCI_CONFIG_DATA);
	spin_unlock_irqrestore(&cfg_lock, flags);
	return v;
}

static void cfg_write(unsigned dev, unsigned fn, unsigned off, uint32_t v)
{
	unsigned long flags = spin_lock_irqsave(&cfg_lock);
	outl(PCI_CONFIG_ADDRESS, 0x80000000u | dev << 11 | fn << 8 | (off & 0xfc));
	outl(PCI_CONFIG_DATA, v);
	spin_unlock_irqrestore(&cfg_lock, flags);
}

static uint32_t pio_in(uint16_t port, unsigned size)
{
	return size == 1 ? inb(port) : size == 2 ? inw(port) : inl(port);
}

static void pio_out(uint16_t port, unsigned size, uint32_t v)
{
	if (size == 1)
		outb(port, (uint8_t)v);
	else if (size == 2)
		outw(port, (uint16_t)v);
	else
		outl(port, v);
}

static const struct virtio_pio pc_pio = { .in = pio_in, .out = pio_out };

static struct {
	uint16_t port;
	uint8_t line;		/* the firmware's interrupt line (ISA IRQ) */
	uint32_t type;		/* virtio device type */
} vpci[MAX_VIRTIO_PCI];
static unsigned nvpci;
static bool scanned;

struct pc_dev_irq pc_dev_irqs[PC_MAX_DEV_IRQS];

static void scan(void)
{
	for (unsigned dev = 0; dev < 32 && nvpci < MAX_VIRTIO_PCI; dev++) {
		uint32_t id = cfg_read(dev, 0, 0);
		if ((id & 0xffff) != PCI_VENDOR_VIRTIO || (id >> 16) < 0x1000 ||
		    (id >> 16) > 0x103f)
			continue;
		uint32_t bar = cfg_read(dev, 0, PCI_BAR0);
		if (!(bar & 1) || (bar & ~3u) == 0 || (bar & ~3u) > 0xffff) {
			printf("%s: virtio PCI device %u without an I/O BAR 0 (a modern-only "
			       "device): left alone\n", board_name, dev);
			continue;
		}
		uint32_t cmd = cfg_read(dev, 0, PCI_COMMAND);
		cfg_write(dev, 0, PCI_COMMAND, (cmd & 0xffff & ~PCI_COMMAND_INTX_OFF) |
			  PCI_COMMAND_IO | PCI_COMMAND_MASTER);
		vpci[nvpci].port = (uint16_t)(bar & ~3u);
		vpci[nvpci].line = (uint8_t)cfg_read(dev, 0, PCI_INTERRUPT);
		vpci[nvpci].type = cfg_read(dev, 0, PCI_SUBSYSTEM) >> 16;
		nvpci++;
	}
}

bool board_virtio_pci(unsigned i, struct virtio_dev *d)
{
	/* Called by netstack_start, which runs once: no lock. */
	if (!scanned) {
		scan();
		scanned = true;
	}
	if (i >= nvpci)
		return false;
	virtio_pci_legacy_init(d, &pc_pio, vpci[i].port, vpci[i].type);
	return true;
}

bool board_virtio_pci_irq(unsigned i, void (*handler)(void *), void *arg)
{
	if (i >= nvpci || vpci[i].line == 0 || vpci[i].line >= 16)
		return false;
	pc_dev_irqs[i].arg = arg;
	__atomic_store_n(&pc_dev_irqs[i].handler, handler, __ATOMIC_RELEASE);
	return pc_route_device_irq(vpci[i].line, VEC_PCI_BASE + i);
}
