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
	/* ISA IRQ n arrives at GSI isa_gsi[n] with these MPS INTI flags
	 * (bits 1:0 polarity, 3:2 trigger; 0 = the bus's default: ISA is
	 * edge, active high); identity unless an override says otherwise. */
	uint32_t isa_gsi[16];
	uint16_t isa_flags[16];
};
#define MPS_POLARITY_LOW	3
#define MPS_TRIGGER_LEVEL	3

/* Find the RSDP in the EBDA or the BIOS area (0xE0000-0xFFFFF); 0 if
 * none. Reads low memory: call it while page 0 is still mapped. */
uintptr_t acpi_find_rsdp(void);

/* Parse the MADT reached from rsdp. false (with a message printed) when a
 * table is missing or its checksum is wrong. */
bool acpi_read_madt(uintptr_t rsdp, struct acpi_madt *m);

/* Where the S5 (soft-off) values come from, for acpi_poweroff and tests. */
struct acpi_s5 {
	uint16_t pm1a_cnt, pm1b_cnt;	/* I/O ports; pm1b 0 if none */
	uint16_t slp_typa, slp_typb;	/* from the DSDT's \_S5 package */
	uint32_t smi_cmd;		/* to switch ACPI mode on, 0 if not */
	uint8_t acpi_enable;
};

/* The \_S5 package's first two integers from DSDT AML bytes [aml, aml+len).
 * false if there is no such Name or it is not a package of integers. */
bool acpi_parse_s5(const uint8_t *aml, uint32_t len, uint16_t *typa, uint16_t *typb);

/* Power the machine off (ACPI S5): SLP_TYPx | SLP_EN to PM1a/PM1b_CNT.
 * Returns only when that could not be done, with *why set. */
void acpi_poweroff(uintptr_t rsdp, const char **why);

#endif
