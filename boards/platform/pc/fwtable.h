/*
 * Reads of the tables firmware and loaders leave in memory (ACPI,
 * multiboot): little-endian fields at any alignment, read through memcpy
 * so that an unaligned one is no undefined behaviour. (Device registers
 * are read and written through kernel/mmio.h.)
 */
#ifndef GMK_BOARDS_PLATFORM_PC_FWTABLE_H
#define GMK_BOARDS_PLATFORM_PC_FWTABLE_H

#include <stdint.h>
#include <string.h>

static inline uint8_t fw_rd8(uintptr_t a) { return *(const volatile uint8_t *)a; }

static inline uint16_t fw_rd16(uintptr_t a)
{
	uint16_t v;

	memcpy(&v, (const void *)a, sizeof v);
	return v;
}

static inline uint32_t fw_rd32(uintptr_t a)
{
	uint32_t v;

	memcpy(&v, (const void *)a, sizeof v);
	return v;
}

static inline uint64_t fw_rd64(uintptr_t a)
{
	uint64_t v;

	memcpy(&v, (const void *)a, sizeof v);
	return v;
}

#endif
