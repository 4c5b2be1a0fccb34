/* The PC platform (boards/platform/pc/pc.c), for the boards built on it. */
#ifndef GMK_BOARDS_PLATFORM_PC_PC_H
#define GMK_BOARDS_PLATFORM_PC_PC_H

#include <stdbool.h>
#include <stdint.h>

/* The ACPI RSDP in use (the loader's copy or the BIOS-area one), 0 if none. */
uintptr_t pc_rsdp(void);

/* Device interrupts (pci.c): entry i arrives as vector VEC_PCI_BASE + i,
 * its handler run before the APIC's EOI (it acknowledges the device),
 * then netpoll_kick. */
#define PC_MAX_DEV_IRQS		4
#define VEC_PCI_BASE		0x58
struct pc_dev_irq {
	void (*handler)(void *);	/* set last: the entry is complete */
	void *arg;
};
extern struct pc_dev_irq pc_dev_irqs[PC_MAX_DEV_IRQS];
/* Route ISA IRQ line (a PCI INTx the firmware put there) through the
 * IOAPIC, level-triggered, to the boot core as vector vec; false without
 * an IOAPIC. */
bool pc_route_device_irq(unsigned line, uint8_t vec);

#endif
