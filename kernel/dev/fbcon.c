/*
 * Framebuffer console. RGB framebuffers get glyphs from the built-in font
 * (light grey on black), VGA text buffers get characters with attribute
 * 0x07. The cursor wraps at the right edge; at the bottom the screen
 * scrolls up by a quarter of its height at once ("jump scroll"): moving a
 * 3 MiB framebuffer for every line costs a PC little but an emulator a lot,
 * and a quarter screen keeps most recent lines in view.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kernel/dev/fbcon.h"

#define GLYPH_W		8
#define FIRST_CHAR	0x20
#define LAST_CHAR	0x7e
#define TAB		8
#define FG_RGB		0xc0	/* each channel */
#define EGA_ATTR	0x07	/* light grey on black */

static struct fb_info fb;
static bool on;
static unsigned cols, rows, col, row, glyph_h, bytespp;
static uint32_t fg_pixel;

static uint32_t channel(uint8_t v, uint8_t pos, uint8_t size)
{
	return (uint32_t)(v >> (8 - size)) << pos;
}

void fbcon_init(const struct fb_info *f)
{
	fb = *f;
	glyph_h = console_font_height;
	if (fb.kind == FB_RGB) {
		bytespp = fb.bpp / 8;
		if ((fb.bpp != 32 && fb.bpp != 24 && fb.bpp != 16) ||
		    !fb.red_size || fb.red_size > 8 || !fb.green_size ||
		    fb.green_size > 8 || !fb.blue_size || fb.blue_size > 8 ||
		    glyph_h == 0 || glyph_h > FBCON_FONT_MAX_HEIGHT) {
			printf("fbcon: framebuffer of %u bpp not supported: serial only\n",
			       fb.bpp);
			return;
		}
		cols = fb.width / GLYPH_W;
		rows = fb.height / glyph_h;
		fg_pixel = channel(FG_RGB, fb.red_pos, fb.red_size) |
			   channel(FG_RGB, fb.green_pos, fb.green_size) |
			   channel(FG_RGB, fb.blue_pos, fb.blue_size);
		for (uint32_t y = 0; y < fb.height; y++)
			memset((void *)(uintptr_t)(fb.addr + (uint64_t)y * fb.pitch), 0,
			       (size_t)fb.width * bytespp);
	} else if (fb.kind == FB_EGA_TEXT) {
		cols = fb.width;
		rows = fb.height;
		volatile uint16_t *cell = (volatile uint16_t *)(uintptr_t)fb.addr;
		for (unsigned i = 0; i < cols * rows; i++)
			cell[i] = EGA_ATTR << 8 | ' ';
	} else {
		return;
	}
	if (cols == 0 || rows == 0)
		return;
	col = row = 0;
	on = true;
}

static void put_pixel(uint8_t *p, uint32_t v)
{
	switch (bytespp) {
	case 4: *(volatile uint32_t *)p = v; break;
	case 3: p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); break;
	case 2: *(volatile uint16_t *)p = (uint16_t)v; break;
	}
}

static void draw(unsigned c, unsigned r, char ch)
{
	unsigned char u = (unsigned char)ch;

	if (u < FIRST_CHAR || u > LAST_CHAR)
		u = '?';
	if (fb.kind == FB_EGA_TEXT) {
		volatile uint16_t *cell = (volatile uint16_t *)(uintptr_t)fb.addr;
		cell[r * cols + c] = EGA_ATTR << 8 | u;
		return;
	}
	const unsigned char *g = console_font[u - FIRST_CHAR];
	uint8_t *base = (uint8_t *)(uintptr_t)(fb.addr + (uint64_t)r * glyph_h * fb.pitch) +
			c * GLYPH_W * bytespp;
	for (unsigned y = 0; y < glyph_h; y++) {
		uint8_t *p = base + (uint64_t)y * fb.pitch;
		for (unsigned x = 0; x < GLYPH_W; x++, p += bytespp)
			put_pixel(p, (g[y] & (0x80 >> x)) ? fg_pixel : 0);
	}
}

/* Move the screen up by n text rows; the freed rows are cleared. */
static void scroll(unsigned n)
{
	if (fb.kind == FB_EGA_TEXT) {
		volatile uint16_t *cell = (volatile uint16_t *)(uintptr_t)fb.addr;
		for (unsigned i = 0; i < (rows - n) * cols; i++)
			cell[i] = cell[i + n * cols];
		for (unsigned i = (rows - n) * cols; i < rows * cols; i++)
			cell[i] = EGA_ATTR << 8 | ' ';
	} else {
		uint8_t *fbp = (uint8_t *)(uintptr_t)fb.addr;
		size_t band = (size_t)n * glyph_h * fb.pitch;
		size_t keep = (size_t)(rows - n) * glyph_h * fb.pitch;
		memmove(fbp, fbp + band, keep);
		memset(fbp + keep, 0, band);
	}
	row -= n;
}

static void newline(void)
{
	col = 0;
	if (++row == rows)
		scroll(rows >= 4 ? rows / 4 : 1);
}

void fbcon_putc(char ch)
{
	if (!on)
		return;
	switch (ch) {
	case '\r':
		col = 0;
		return;
	case '\n':
		newline();
		return;
	case '\t':
		col = (col + TAB) / TAB * TAB;
		if (col >= cols)
			newline();
		return;
	}
	draw(col, row, ch);
	if (++col == cols)
		newline();
}
