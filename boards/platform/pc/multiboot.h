/*
 * What a multiboot loader hands over, read from either protocol:
 * multiboot 1 (QEMU's -kernel, GRUB's `multiboot`) or multiboot 2 (GRUB's
 * `multiboot2`, under a BIOS or UEFI). Everything needed is copied out, so
 * the loader's structures may be reused afterwards.
 */
#ifndef GMK_BOARDS_PLATFORM_PC_MULTIBOOT_H
#define GMK_BOARDS_PLATFORM_PC_MULTIBOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/paging.h"
#include "kernel/cmdline.h"
#include "kernel/dev/fbcon.h"

#define MULTIBOOT2_BOOT_MAGIC	0x36d76289

#define BOOT_MAX_MAP		128
#define BOOT_LOADER_MAX		64
#define ACPI_RSDP_MAX		36	/* ACPI 2.0+ RSDP length */

struct boot_info {
	int protocol;			/* 1 or 2 */
	char loader[BOOT_LOADER_MAX];	/* boot loader name, "" if none */
	char cmdline[CMDLINE_MAX + 2];	/* options only: no image path
					   (cmdline_copy: a longer line is
					   refused by cmdline_parse) */
	struct phys_range memmap[BOOT_MAX_MAP];	/* every firmware range */
	unsigned nmemmap;
	struct phys_range ram[BOOT_MAX_MAP];	/* usable RAM */
	unsigned nram;
	uint64_t info_lo, info_hi;	/* span of the loader's structures */
	uint8_t rsdp[ACPI_RSDP_MAX];	/* copy from multiboot2 tag 15/14 */
	bool has_rsdp;
	bool efi;			/* booted through UEFI (tag 11/12) */
	struct fb_info fb;		/* kind FB_NONE if none */
};

/*
 * Parse the loader's information at `info` (magic: EAX at entry). false,
 * with a message in err, when the magic is neither protocol's or a part
 * gmk needs (the memory map) is missing.
 */
bool multiboot_read(uint32_t magic, uintptr_t info, struct boot_info *bi,
		    char *err, unsigned errlen);

#endif
