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

#include "arch/x86_64/io.h"
#include "arch/x86_64/x86.h"
#include "boards/platform/pc/acpi.h"
#include "boards/platform/pc/fwtable.h"

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

static bool checksum_ok(uintptr_t a, uint32_t len)
{
	uint8_t sum = 0;

	for (uint32_t i = 0; i < len; i++)
		sum += fw_rd8(a + i);
	return sum == 0;
}

static uintptr_t scan_rsdp(uintptr_t lo, uintptr_t hi)
{
	for (uintptr_t a = lo; a + RSDP_V1_LEN <= hi; a += RSDP_ALIGN) {
		if (memcmp((const void *)a, "RSD PTR ", 8) != 0)
			continue;
		if (!checksum_ok(a, RSDP_V1_LEN))
			continue;
		if (fw_rd8(a + 15) >= 2 && !checksum_ok(a, RSDP_V2_LEN))
			continue;
		return a;
	}
	return 0;
}

uintptr_t acpi_find_rsdp(void)
{
	uintptr_t ebda = (uintptr_t)fw_rd16(BDA_EBDA_SEGMENT) << 4;
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
	uint32_t len = fw_rd32(a + 4);
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

	if (fw_rd8(rsdp + 15) >= 2 && fw_rd64(rsdp + 24)) {
		root = sdt_check(fw_rd64(rsdp + 24), "XSDT");
		entry_size = 8;
	} else {
		root = sdt_check(fw_rd32(rsdp + 16), "RSDT");
		entry_size = 4;
	}
	if (!root)
		return 0;
	uint32_t len = fw_rd32(root + 4);
	for (uint32_t off = SDT_HEADER_LEN; off + entry_size <= len; off += entry_size) {
		uintptr_t t = entry_size == 8 ? fw_rd64(root + off) : fw_rd32(root + off);
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
	uint32_t len = fw_rd32(madt + 4);
	for (unsigned i = 0; i < 16; i++)
		m->isa_gsi[i] = i;
	m->lapic_base = fw_rd32(madt + 36);
	m->pcat_compat = fw_rd32(madt + 40) & MADT_PCAT_COMPAT;

	for (uint32_t off = MADT_ENTRIES; off + 2 <= len;) {
		uintptr_t e = madt + off;
		uint8_t type = fw_rd8(e), elen = fw_rd8(e + 1);

		if (elen < 2 || off + elen > len)
			break;			/* malformed: stop, keep what we have */
		switch (type) {
		case MADT_LAPIC:
			add_cpu(m, fw_rd8(e + 3), fw_rd32(e + 4));
			break;
		case MADT_X2APIC:
			add_cpu(m, fw_rd32(e + 4), fw_rd32(e + 8));
			break;
		case MADT_IOAPIC:
			if (!m->ioapic_base)
				m->ioapic_base = fw_rd32(e + 4);
			break;
		case MADT_ISO:		/* bus, source, GSI, flags */
			if (fw_rd8(e + 2) == 0 && fw_rd8(e + 3) < 16) {
				m->isa_gsi[fw_rd8(e + 3)] = fw_rd32(e + 4);
				m->isa_flags[fw_rd8(e + 3)] = (uint16_t)(fw_rd8(e + 8) | fw_rd8(e + 9) << 8);
			}
			break;
		case MADT_LAPIC_OVERRIDE:
			m->lapic_base = fw_rd64(e + 4);
			break;
		}
		off += elen;
	}
	return m->ncpus > 0;
}

/*
 * Power-off (ACPI 6.x, 4.8.3.2 and 7.4.2): the FADT names the PM1 control
 * register blocks, the DSDT's \_S5 object the values of SLP_TYP for soft
 * off. Writing SLP_TYP | SLP_EN to PM1a_CNT (and PM1b_CNT when there is
 * one) turns the machine off. Only I/O-space PM1 blocks are handled: the
 * FADT's 32-bit PM1x_CNT_BLK fields, or its X_ variants when those are in
 * I/O space. Hardware-reduced ACPI (sleep control register) is not.
 */
#define FADT_DSDT		40
#define FADT_SMI_CMD		48
#define FADT_ACPI_ENABLE	52
#define FADT_PM1A_CNT		64
#define FADT_PM1B_CNT		68
#define FADT_FLAGS		112
#define FADT_X_DSDT		140
#define FADT_X_PM1A_CNT		172
#define FADT_X_PM1B_CNT		184
#define FADT_HW_REDUCED		(1u << 20)
#define GAS_SPACE_IO		1

#define PM1_SCI_EN		(1u << 0)
#define PM1_SLP_TYP_SHIFT	10
#define PM1_SLP_TYP_MASK	(7u << PM1_SLP_TYP_SHIFT)
#define PM1_SLP_EN		(1u << 13)

#define AML_ZERO		0x00
#define AML_ONE			0x01
#define AML_NAME		0x08
#define AML_BYTE		0x0a
#define AML_WORD		0x0b
#define AML_DWORD		0x0c
#define AML_PACKAGE		0x12
#define AML_ONES		0xff

#define ACPI_ENABLE_POLLS	3000000	/* inw()s: about 3 s on hardware */
#define POWEROFF_POLLS		3000000

static bool aml_integer(const uint8_t *p, const uint8_t *end, uint16_t *v, unsigned *used)
{
	if (p >= end)
		return false;
	switch (p[0]) {
	case AML_ZERO: *v = 0; *used = 1; return true;
	case AML_ONE: *v = 1; *used = 1; return true;
	case AML_ONES: *v = 0xffff; *used = 1; return true;
	case AML_BYTE:
		if (p + 2 > end)
			return false;
		*v = p[1]; *used = 2; return true;
	case AML_WORD:
		if (p + 3 > end)
			return false;
		*v = (uint16_t)(p[1] | p[2] << 8); *used = 3; return true;
	case AML_DWORD:
		if (p + 5 > end)
			return false;
		*v = (uint16_t)(p[1] | p[2] << 8); *used = 5; return true;
	}
	return false;
}

bool acpi_parse_s5(const uint8_t *aml, uint32_t len, uint16_t *typa, uint16_t *typb)
{
	const uint8_t *end = aml + len;

	for (const uint8_t *p = aml + 1; p + 4 < end; p++) {
		if (memcmp(p, "_S5_", 4) != 0)
			continue;
		/* NameOp, optionally with a root prefix, then the name. */
		if (!(p[-1] == AML_NAME || (p[-1] == '\\' && p - 2 >= aml && p[-2] == AML_NAME)))
			continue;
		const uint8_t *q = p + 4;
		if (q >= end || *q++ != AML_PACKAGE || q >= end)
			continue;
		q += 1 + (*q >> 6);		/* PkgLength: lead byte + 0..3 */
		if (q >= end || *q++ < 1)	/* NumElements */
			continue;
		unsigned used;
		if (!aml_integer(q, end, typa, &used))
			continue;
		q += used;
		if (!aml_integer(q, end, typb, &used))
			*typb = *typa;		/* one-element package */
		return true;
	}
	return false;
}

static uint16_t io_port(uintptr_t fadt, uint32_t flen, unsigned legacy, unsigned gas)
{
	uint32_t port = fw_rd32(fadt + legacy);

	if (!port && flen >= gas + 12 && fw_rd8(fadt + gas) == GAS_SPACE_IO)
		port = (uint32_t)fw_rd64(fadt + gas + 4);
	return port <= 0xffff ? (uint16_t)port : 0;
}

/* Find the FADT's PM1 control ports and the \_S5 sleep types in the DSDT.
 * false with *why set when something needed is missing. */
static bool acpi_find_s5(uintptr_t rsdp, struct acpi_s5 *s5, const char **why)
{
	memset(s5, 0, sizeof *s5);
	uintptr_t fadt = rsdp ? find_table(rsdp, "FACP") : 0;
	if (!fadt) {
		*why = "no valid FADT";
		return false;
	}
	uint32_t flen = fw_rd32(fadt + 4);
	if (flen > FADT_FLAGS + 4 && (fw_rd32(fadt + FADT_FLAGS) & FADT_HW_REDUCED)) {
		*why = "hardware-reduced ACPI (no PM1 control block)";
		return false;
	}
	s5->pm1a_cnt = io_port(fadt, flen, FADT_PM1A_CNT, FADT_X_PM1A_CNT);
	s5->pm1b_cnt = io_port(fadt, flen, FADT_PM1B_CNT, FADT_X_PM1B_CNT);
	if (!s5->pm1a_cnt) {
		*why = "the FADT has no I/O-space PM1a control block";
		return false;
	}
	s5->smi_cmd = fw_rd32(fadt + FADT_SMI_CMD);
	s5->acpi_enable = fw_rd8(fadt + FADT_ACPI_ENABLE);
	uintptr_t dsdt = 0;
	if (flen >= FADT_X_DSDT + 8)
		dsdt = fw_rd64(fadt + FADT_X_DSDT);
	if (!dsdt)
		dsdt = fw_rd32(fadt + FADT_DSDT);
	dsdt = sdt_check(dsdt, "DSDT");
	if (!dsdt) {
		*why = "no valid DSDT";
		return false;
	}
	if (!acpi_parse_s5((const uint8_t *)(dsdt + SDT_HEADER_LEN),
			   fw_rd32(dsdt + 4) - SDT_HEADER_LEN, &s5->slp_typa, &s5->slp_typb)) {
		*why = "no \\_S5 package in the DSDT";
		return false;
	}
	return true;
}

void acpi_poweroff(uintptr_t rsdp, const char **why)
{
	struct acpi_s5 s5;

	if (!acpi_find_s5(rsdp, &s5, why))
		return;
	arch_irq_save();
	/* Legacy mode (SCI_EN clear): ask the firmware to hand over ACPI. */
	if (!(inw(s5.pm1a_cnt) & PM1_SCI_EN) && s5.smi_cmd && s5.acpi_enable) {
		outb((uint16_t)s5.smi_cmd, s5.acpi_enable);
		for (unsigned i = 0; i < ACPI_ENABLE_POLLS; i++)
			if (inw(s5.pm1a_cnt) & PM1_SCI_EN)
				break;
	}
	uint16_t a = inw(s5.pm1a_cnt) & ~(PM1_SLP_TYP_MASK | PM1_SLP_EN);
	outw(s5.pm1a_cnt, a | (uint16_t)((s5.slp_typa << PM1_SLP_TYP_SHIFT) & PM1_SLP_TYP_MASK));
	outw(s5.pm1a_cnt, a | (uint16_t)((s5.slp_typa << PM1_SLP_TYP_SHIFT) & PM1_SLP_TYP_MASK) | PM1_SLP_EN);
	if (s5.pm1b_cnt) {
		uint16_t b = inw(s5.pm1b_cnt) & ~(PM1_SLP_TYP_MASK | PM1_SLP_EN);
		outw(s5.pm1b_cnt, b | (uint16_t)((s5.slp_typb << PM1_SLP_TYP_SHIFT) & PM1_SLP_TYP_MASK) | PM1_SLP_EN);
	}
	for (unsigned i = 0; i < POWEROFF_POLLS; i++)
		(void)inw(s5.pm1a_cnt);		/* a few seconds on hardware */
	*why = "the machine did not turn off after SLP_EN";
}
