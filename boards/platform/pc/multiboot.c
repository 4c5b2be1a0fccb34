/*
 * Multiboot 1 and 2 information, read through the boot identity map
 * (start.S maps the first 4 GiB, where loaders put it).
 *
 * Multiboot 1: flags word, then fixed fields; QEMU's -kernel writes the
 * image path before the options and names itself "qemu".
 * Multiboot 2: u32 total size, u32 reserved, then 8-byte aligned tags
 * {u32 type, u32 size, ...} up to the end tag (type 0). GRUB passes no
 * image path in tag 1. Under UEFI there is no RSDP in the BIOS area: the
 * loader's copy (tag 15 for ACPI 2.0+, 14 for 1.0) is the only way in.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boards/platform/pc/fwtable.h"
#include "boards/platform/pc/multiboot.h"
#include "arch/x86_64/x86.h"
#include "kernel/cmdline.h"

/* Multiboot 1 */
#define MB1_FLAG_CMDLINE	(1u << 2)
#define MB1_FLAG_MMAP		(1u << 6)
#define MB1_FLAG_LOADER		(1u << 9)
#define MB1_SIZE		88
#define MB1_CMDLINE		16
#define MB1_MMAP_LENGTH		44
#define MB1_MMAP_ADDR		48
#define MB1_LOADER		64
#define MB1_CMDLINE_SCAN	(1u << 20)	/* sanity bound on its length */

/* Multiboot 2 tags */
#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1
#define MB2_TAG_LOADER		2
#define MB2_TAG_MMAP		6
#define MB2_TAG_FRAMEBUFFER	8
#define MB2_TAG_EFI32		11
#define MB2_TAG_EFI64		12
#define MB2_TAG_ACPI_OLD	14
#define MB2_TAG_ACPI_NEW	15
#define MB2_TAG_EFI_MMAP	17
#define MB2_INFO_MAX		(1u << 20)	/* sanity bound on total size */

#define MB2_FB_RGB		1
#define MB2_FB_EGA_TEXT		2

#define MMAP_TYPE_RAM		1

static void note(struct boot_info *bi, uint64_t addr, uint64_t len)
{
	if (addr < bi->info_lo)
		bi->info_lo = addr;
	if (addr + len > bi->info_hi)
		bi->info_hi = addr + len;
}

static void add_range(struct boot_info *bi, uint64_t base, uint64_t len, uint32_t type)
{
	if (!len)
		return;
	if (bi->nmemmap < BOOT_MAX_MAP)
		bi->memmap[bi->nmemmap++] = (struct phys_range){ base, len };
	if (type == MMAP_TYPE_RAM && bi->nram < BOOT_MAX_MAP)
		bi->ram[bi->nram++] = (struct phys_range){ base, len };
}

static void copy_str(char *dst, size_t cap, const char *src, size_t srcmax)
{
	size_t n = strnlen(src, srcmax);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* The loader's line, raw (NUL-terminated within rawmax bytes): the
 * options, the image path dropped where there is one. */
static bool set_cmdline(struct boot_info *bi, const char *raw, size_t rawmax,
			char *err, unsigned errlen)
{
	/* Only QEMU's -kernel is known to put the path first: it names
	 * itself "qemu" in the multiboot 1 loader name. */
	bool path_first = bi->protocol == 1 && strcmp(bi->loader, "qemu") == 0;

	if (strnlen(raw, rawmax) == rawmax) {
		snprintf(err, errlen, "the loader's command line has no end (no NUL in %zu bytes)",
			 rawmax);
		return false;
	}
	cmdline_copy(bi->cmdline, cmdline_skip_image_path(raw, path_first), SIZE_MAX);
	return true;
}

static bool mb1_read(uintptr_t mbi, struct boot_info *bi, char *err, unsigned errlen)
{
	uint32_t flags = fw_rd32(mbi);

	bi->protocol = 1;
	note(bi, mbi, MB1_SIZE);
	if (flags & MB1_FLAG_LOADER) {
		const char *s = (const char *)(uintptr_t)fw_rd32(mbi + MB1_LOADER);
		copy_str(bi->loader, sizeof bi->loader, s, BOOT_LOADER_MAX);
	}
	if (flags & MB1_FLAG_CMDLINE) {
		const char *s = (const char *)(uintptr_t)fw_rd32(mbi + MB1_CMDLINE);
		note(bi, (uintptr_t)s, strnlen(s, MB1_CMDLINE_SCAN) + 1);
		if (!set_cmdline(bi, s, MB1_CMDLINE_SCAN, err, errlen))
			return false;
	}
	if (!(flags & MB1_FLAG_MMAP)) {
		snprintf(err, errlen, "the multiboot 1 loader passed no memory map");
		return false;
	}
	uintptr_t p = fw_rd32(mbi + MB1_MMAP_ADDR);
	uintptr_t end = p + fw_rd32(mbi + MB1_MMAP_LENGTH);
	note(bi, p, end - p);
	/* Each entry: u32 size (of the rest), u64 base, u64 length, u32 type. */
	for (; p < end; p += fw_rd32(p) + 4)
		add_range(bi, fw_rd64(p + 4), fw_rd64(p + 12), fw_rd32(p + 20));
	return true;
}

static bool mb2_read(uintptr_t mbi, struct boot_info *bi, char *err, unsigned errlen)
{
	uint32_t total = fw_rd32(mbi);
	bool have_mmap = false;

	bi->protocol = 2;
	if (total < 16 || total > MB2_INFO_MAX) {
		snprintf(err, errlen, "multiboot 2 information of %u bytes", total);
		return false;
	}
	note(bi, mbi, total);
	/* The loader name first: nothing depends on tag order then. */
	for (uintptr_t t = mbi + 8; t + 8 <= mbi + total;) {
		uint32_t type = fw_rd32(t), size = fw_rd32(t + 4);
		if (type == MB2_TAG_END || size < 8)
			break;
		if (type == MB2_TAG_LOADER)
			copy_str(bi->loader, sizeof bi->loader, (const char *)(t + 8), size - 8);
		t += (size + 7) & ~7u;
	}
	for (uintptr_t t = mbi + 8; t + 8 <= mbi + total;) {
		uint32_t type = fw_rd32(t), size = fw_rd32(t + 4);

		if (type == MB2_TAG_END)
			break;
		if (size < 8 || t + size > mbi + total) {
			snprintf(err, errlen, "multiboot 2 tag %u at 0x%lx: bad size %u",
				 type, (unsigned long)t, size);
			return false;
		}
		switch (type) {
		case MB2_TAG_CMDLINE:
			if (!set_cmdline(bi, (const char *)(t + 8), size - 8, err, errlen))
				return false;
			break;
		case MB2_TAG_MMAP: {
			/* u32 entry_size, u32 entry_version, then entries of
			 * u64 base, u64 length, u32 type, u32 reserved. */
			uint32_t esize = fw_rd32(t + 8);
			if (esize < 24)
				break;
			for (uintptr_t e = t + 16; e + esize <= t + size; e += esize)
				add_range(bi, fw_rd64(e), fw_rd64(e + 8), fw_rd32(e + 16));
			have_mmap = true;
			break;
		}
		case MB2_TAG_ACPI_NEW:
		case MB2_TAG_ACPI_OLD: {
			size_t n = size - 8;
			/* The 2.0+ copy wins whichever tag comes first. */
			if (bi->has_rsdp && type == MB2_TAG_ACPI_OLD)
				break;
			if (n > ACPI_RSDP_MAX)
				n = ACPI_RSDP_MAX;
			memcpy(bi->rsdp, (const void *)(t + 8), n);
			bi->has_rsdp = true;
			break;
		}
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
			bi->efi = true;
			break;
		case MB2_TAG_FRAMEBUFFER: {
			/* u64 addr, u32 pitch, u32 width, u32 height, u8 bpp,
			 * u8 type, u16 reserved, then colour info. */
			struct fb_info *fb = &bi->fb;
			uint8_t kind = *(const uint8_t *)(t + 29);
			fb->addr = fw_rd64(t + 8);
			fb->pitch = fw_rd32(t + 16);
			fb->width = fw_rd32(t + 20);
			fb->height = fw_rd32(t + 24);
			fb->bpp = *(const uint8_t *)(t + 28);
			if (kind == MB2_FB_RGB && size >= 38) {
				const uint8_t *c = (const uint8_t *)(t + 32);
				fb->red_pos = c[0], fb->red_size = c[1];
				fb->green_pos = c[2], fb->green_size = c[3];
				fb->blue_pos = c[4], fb->blue_size = c[5];
				fb->kind = FB_RGB;
			} else if (kind == MB2_FB_EGA_TEXT) {
				fb->kind = FB_EGA_TEXT;
			}
			break;
		}
		}
		t += (size + 7) & ~7u;
	}
	if (!have_mmap) {
		snprintf(err, errlen, "the multiboot 2 loader passed no memory map (tag 6)");
		return false;
	}
	return true;
}

bool multiboot_read(uint32_t magic, uintptr_t info, struct boot_info *bi,
		    char *err, unsigned errlen)
{
	memset(bi, 0, sizeof *bi);
	bi->info_lo = UINT64_MAX;
	if (magic == MULTIBOOT_BOOT_MAGIC)
		return mb1_read(info, bi, err, errlen);
	if (magic == MULTIBOOT2_BOOT_MAGIC)
		return mb2_read(info, bi, err, errlen);
	snprintf(err, errlen, "not started by a multiboot loader (magic 0x%x)", magic);
	return false;
}
