/*
 * ACPI table discovery: RSDP -> RSDT/XSDT -> MADT ("APIC"). Tables are
 * read in place through the identity map (paging.c maps every range of
 * the firmware memory map, where the tables live). Every table's checksum
 * is verified before it is trusted.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boards/platform/pc/acpi.h"

#define BDA_EBDA_SEGMENT	0x40e		/* real-mode segment of the EBDA */
#define EBDA_SCAN_LEN		1024
#define BIOS_AREA_START		0xe0000
#define BIOS_AREA_END		0x100000
#define RSDP_ALIGN		16
#define RSDP_V1_LEN		20
#define RSDP_V2_LEN		36

#define SDT_HEADER_LEN		36
#define MADT_ENTRIES		44		/* after local APIC addr + flags */
#define MADT_PCAT_COMPAT	0x1

#define MADT_LAPIC		0
#define MADT_IOAPIC		1
#define MADT_ISO		2		/* interrupt source override */
#define MADT_LAPIC_OVERRIDE	5
#define MADT_X2APIC		9
#define LAPIC_ENABLED		0x1

static uint8_t rd8(uintptr_t a) { return *(const volatile uint8_t *)a; }

static uint16_t rd16(uintptr_t a)
{
	uint16_t v;

	memcpy(&v, (const void *)a, sizeof v);
	return v;
}

static uint32_t rd32(uintptr_t a)
{
	uint32_t v;

	memcpy(&v, (const void *)a, sizeof v);
	return v;
}

static uint64_t rd64(uintptr_t a)
{
	uint64_t v;

	memcpy(&v, (const void *)a, sizeof v);
	return v;
}

static bool checksum_ok(uintptr_t a, uint32_t len)
{
	uint8_t sum = 0;

	for (uint32_t i = 0; i < len; i++)
		sum += rd8(a + i);
	return sum == 0;
}

static uintptr_t scan_rsdp(uintptr_t lo, uintptr_t hi)
{
	for (uintptr_t a = lo; a + RSDP_V1_LEN <= hi; a += RSDP_ALIGN) {
		if (memcmp((const void *)a, "RSD PTR ", 8) != 0)
			continue;
		if (!checksum_ok(a, RSDP_V1_LEN))
			continue;
		if (rd8(a + 15) >= 2 && !checksum_ok(a, RSDP_V2_LEN))
			continue;
		return a;
	}
	return 0;
}

uintptr_t acpi_find_rsdp(void)
{
	uintptr_t ebda = (uintptr_t)rd16(BDA_EBDA_SEGMENT) << 4;
	uintptr_t r = 0;

	if (ebda >= 0x80000 && ebda < 0xa0000)	/* sane EBDA location */
		r = scan_rsdp(ebda, ebda + EBDA_SCAN_LEN);
	if (!r)
		r = scan_rsdp(BIOS_AREA_START, BIOS_AREA_END);
	return r;
}

/* A table whose signature and checksum are right, else 0. */
static uintptr_t sdt_check(uintptr_t a, const char *sig)
{
	if (!a || memcmp((const void *)a, sig, 4) != 0)
		return 0;
	uint32_t len = rd32(a + 4);
	if (len < SDT_HEADER_LEN || !checksum_ok(a, len)) {
		printf("acpi: table %.4s at 0x%lx has a bad checksum\n", sig,
		       (unsigned long)a);
		return 0;
	}
	return a;
}

static uintptr_t find_table(uintptr_t rsdp, const char *sig)
{
	uintptr_t root;
	unsigned entry_size;

	if (rd8(rsdp + 15) >= 2 && rd64(rsdp + 24)) {
		root = sdt_check(rd64(rsdp + 24), "XSDT");
		entry_size = 8;
	} else {
		root = sdt_check(rd32(rsdp + 16), "RSDT");
		entry_size = 4;
	}
	if (!root)
		return 0;
	uint32_t len = rd32(root + 4);
	for (uint32_t off = SDT_HEADER_LEN; off + entry_size <= len; off += entry_size) {
		uintptr_t t = entry_size == 8 ? rd64(root + off) : rd32(root + off);
		if (t && memcmp((const void *)t, sig, 4) == 0)
			return sdt_check(t, sig);
	}
	return 0;
}

static void add_cpu(struct acpi_madt *m, uint32_t apic_id, uint32_t flags)
{
	if (!(flags & LAPIC_ENABLED))
		return;
	for (unsigned i = 0; i < m->ncpus; i++)	/* listed as both types */
		if (m->apic_id[i] == apic_id)
			return;
	if (m->ncpus < MAX_CPUS)
		m->apic_id[m->ncpus++] = apic_id;
	else
		m->ncpus_ignored++;
}

bool acpi_read_madt(uintptr_t rsdp, struct acpi_madt *m)
{
	memset(m, 0, sizeof *m);
	if (!rsdp) {
		printf("acpi: no RSDP found\n");
		return false;
	}
	uintptr_t madt = find_table(rsdp, "APIC");
	if (!madt) {
		printf("acpi: no valid MADT\n");
		return false;
	}
	uint32_t len = rd32(madt + 4);
	for (unsigned i = 0; i < 16; i++)
		m->isa_gsi[i] = i;
	m->lapic_base = rd32(madt + 36);
	m->pcat_compat = rd32(madt + 40) & MADT_PCAT_COMPAT;

	for (uint32_t off = MADT_ENTRIES; off + 2 <= len;) {
		uintptr_t e = madt + off;
		uint8_t type = rd8(e), elen = rd8(e + 1);

		if (elen < 2 || off + elen > len)
			break;			/* malformed: stop, keep what we have */
		switch (type) {
		case MADT_LAPIC:
			add_cpu(m, rd8(e + 3), rd32(e + 4));
			break;
		case MADT_X2APIC:
			add_cpu(m, rd32(e + 4), rd32(e + 8));
			break;
		case MADT_IOAPIC:
			if (!m->ioapic_base)
				m->ioapic_base = rd32(e + 4);
			break;
		case MADT_ISO:		/* bus, source, GSI, flags */
			if (rd8(e + 2) == 0 && rd8(e + 3) < 16) {
				m->isa_gsi[rd8(e + 3)] = rd32(e + 4);
				m->isa_flags[rd8(e + 3)] = (uint16_t)(rd8(e + 8) | rd8(e + 9) << 8);
			}
			break;
		case MADT_LAPIC_OVERRIDE:
			m->lapic_base = rd64(e + 4);
			break;
		}
		off += elen;
	}
	return m->ncpus > 0;
}
