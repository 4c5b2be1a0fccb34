/*
 * A console on a linear framebuffer (RGB pixels, drawn with a built-in
 * 8-pixel-wide bitmap font) or on a VGA text buffer: what a PC user sees
 * when there is no serial port. Output only; it mirrors the serial console
 * and scrolls. Called with the console lock held (kernel/console.c).
 */
#ifndef GMK_KERNEL_DEV_FBCON_H
#define GMK_KERNEL_DEV_FBCON_H

#include <stdint.h>

#define FBCON_FONT_MAX_HEIGHT	16

enum fb_kind { FB_NONE, FB_RGB, FB_EGA_TEXT };

struct fb_info {
	enum fb_kind kind;
	uint64_t addr;			/* mapped (identity) */
	uint32_t pitch;			/* bytes per row */
	uint32_t width, height;		/* pixels (RGB) or characters (text) */
	uint8_t bpp;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/* The font: printable ASCII (0x20..0x7e), generated from a PSF console
 * font at build time (tools/psf2c). */
extern const unsigned console_font_height;
extern const unsigned char console_font[0x7f - 0x20][FBCON_FONT_MAX_HEIGHT];

/* Start drawing on fb (cleared first). Unusable formats are refused with
 * a message on the serial console. */
void fbcon_init(const struct fb_info *fb);

/* One byte of console output; nothing before fbcon_init. */
void fbcon_putc(char c);

#endif
