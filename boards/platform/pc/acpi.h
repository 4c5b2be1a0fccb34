/* ACPI, just enough to find the cores and the interrupt controllers. */
#ifndef GMK_BOARDS_PLATFORM_PC_ACPI_H
#define GMK_BOARDS_PLATFORM_PC_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/percpu.h"

struct acpi_madt {
	unsigned ncpus;			/* enabled local APICs, MADT order */
	uint32_t apic_id[MAX_CPUS];
	unsigned ncpus_ignored;		/* beyond MAX_CPUS */
	uint64_t lapic_base;		/* physical */
	uint64_t ioapic_base;		/* first IOAPIC, 0 if none */
	bool pcat_compat;		/* 8259 PICs present: mask them */
};

/* Find the RSDP in the EBDA or the BIOS area (0xE0000-0xFFFFF); 0 if
 * none. Reads low memory: call it while page 0 is still mapped. */
uintptr_t acpi_find_rsdp(void);

/* Parse the MADT reached from rsdp. false (with a message printed) when a
 * table is missing or its checksum is wrong. */
bool acpi_read_madt(uintptr_t rsdp, struct acpi_madt *m);

#endif
