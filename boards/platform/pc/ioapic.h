/*
 * I/O APIC: routes the board's device interrupt lines (global system
 * interrupts, GSIs) to a vector on a core's local APIC. ISA IRQs reach
 * it through the MADT's interrupt source overrides (acpi.h).
 */
#ifndef GMK_BOARDS_PLATFORM_PC_IOAPIC_H
#define GMK_BOARDS_PLATFORM_PC_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

#define IOAPIC_DEFAULT_BASE	0xfec00000ull

/* Boot core, once: every input masked. */
void ioapic_init(uint64_t mmio_base);
/* Route gsi to vector on the core with this APIC id, fixed delivery,
 * physical destination, and unmask it. */
void ioapic_route(uint32_t gsi, uint8_t vector, uint32_t apic_id,
		  bool level, bool active_low);

#endif
