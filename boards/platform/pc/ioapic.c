/*
 * I/O APIC through its two memory-mapped registers: IOREGSEL selects an
 * indirect register, IOWIN reads or writes it. Redirection entry n is the
 * pair 0x10 + 2n (low: vector, delivery, polarity, trigger, mask) and
 * 0x11 + 2n (high: destination APIC id in bits 31:24).
 */
#include <stdio.h>

#include "boards/platform/pc/ioapic.h"
#include "kernel/mmio.h"

#define IOREGSEL	0x00
#define IOWIN		0x10
#define IOAPICVER	0x01	/* bits 23:16: last redirection entry */
#define REDTBL_LO(n)	(0x10 + 2 * (n))
#define REDTBL_HI(n)	(0x11 + 2 * (n))
#define RTE_ACTIVE_LOW	(1u << 13)
#define RTE_LEVEL	(1u << 15)
#define RTE_MASKED	(1u << 16)

static uintptr_t base;
static uint32_t nentries;

static uint32_t ioapic_read(uint32_t reg)
{
	wr32(base + IOREGSEL, reg);
	return rd32(base + IOWIN);
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	wr32(base + IOREGSEL, reg);
	wr32(base + IOWIN, v);
}

void ioapic_init(uint64_t mmio_base)
{
	base = (uintptr_t)mmio_base;
	nentries = ((ioapic_read(IOAPICVER) >> 16) & 0xff) + 1;
	for (uint32_t i = 0; i < nentries; i++)
		ioapic_write(REDTBL_LO(i), RTE_MASKED);
}

void ioapic_route(uint32_t gsi, uint8_t vector, uint32_t apic_id,
		  bool level, bool active_low)
{
	if (!base || gsi >= nentries) {
		printf("ioapic: GSI %u: no such input (%u inputs)\n", gsi, nentries);
		return;
	}
	ioapic_write(REDTBL_HI(gsi), apic_id << 24);
	ioapic_write(REDTBL_LO(gsi), vector | (level ? RTE_LEVEL : 0) |
					     (active_low ? RTE_ACTIVE_LOW : 0));
}
