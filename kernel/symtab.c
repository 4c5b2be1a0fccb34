/*
 * Reading the table tools/mksymtab builds (its format is described there):
 * a function found by binary search on the start offsets, then its line
 * rows decoded in order up to the address. Offsets are from _text_start,
 * whose run-time address the loader may have moved (the hosted board is a
 * position-independent executable), so a lookup subtracts the run-time
 * _text_start and the table holds no absolute address.
 */
#include <stddef.h>

#include "kernel/symtab.h"

#define SYMTAB_MAGIC 0x534B4D47u	/* "GMKS" */

/* The second link's table (Makefile); weak: an image linked without one
 * (the hosted board's library for the host tests) finds nothing. */
extern const unsigned char gmk_symtab[] __attribute__((weak));
extern const unsigned char gmk_symtab_end[] __attribute__((weak));
extern char _text_start[];

struct symtab_hdr {
	uint32_t magic, nfuncs, nfiles, funcs_off, files_off, lines_off, strs_off, size;
};
struct symtab_func {
	uint32_t start, name, lines;
};

/* The table, if it is there and its parts lie inside it; NULL if not. */
static const struct symtab_hdr *table(void)
{
	const struct symtab_hdr *h = (const struct symtab_hdr *)gmk_symtab;
	uintptr_t have;

	if (!gmk_symtab || !gmk_symtab_end)
		return NULL;
	have = (uintptr_t)gmk_symtab_end - (uintptr_t)gmk_symtab;
	if (have < sizeof *h || h->magic != SYMTAB_MAGIC || h->size > have ||
	    h->funcs_off > h->size || h->nfuncs >= (h->size - h->funcs_off) / 12 ||
	    h->files_off > h->size || h->nfiles > (h->size - h->files_off) / 4 ||
	    h->lines_off > h->strs_off || h->strs_off >= h->size)
		return NULL;
	return h;
}

uint32_t symtab_size(void)
{
	const struct symtab_hdr *h = table();
	return h ? h->size : 0;
}

/* A string of the table, or "?" if its offset is outside the strings or
 * it has no NUL before the table's end. */
static const char *str(const struct symtab_hdr *h, uint32_t off)
{
	const char *s = (const char *)h + h->strs_off;
	uint32_t n = h->size - h->strs_off;

	if (off >= n)
		return "?";
	for (uint32_t i = off; i < n; i++)
		if (s[i] == 0)
			return s + off;
	return "?";
}

/* One LEB128 number from [*p, end); false if it runs past end. */
static bool leb(const unsigned char **p, const unsigned char *end, bool sign, int64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char b;

	do {
		if (*p >= end || shift > 63)
			return false;
		b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	*out = (int64_t)v;
	return true;
}

bool symtab_lookup(uintptr_t pc, struct symtab_loc *out)
{
	const struct symtab_hdr *h = table();
	const struct symtab_func *f;
	uintptr_t off;
	uint32_t lo, hi;

	if (!h || pc < (uintptr_t)_text_start)
		return false;
	off = pc - (uintptr_t)_text_start;
	f = (const struct symtab_func *)((const char *)h + h->funcs_off);
	/* The last entry ends the text: pc must lie before it. */
	if (h->nfuncs == 0 || off < f[0].start || off >= f[h->nfuncs].start)
		return false;
	lo = 0;
	hi = h->nfuncs;		/* f[lo].start <= off < f[hi].start */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	out->func = str(h, f[lo].name);
	out->entry = (uintptr_t)_text_start + f[lo].start;
	out->file = "?";
	out->line = 0;

	const unsigned char *base = (const unsigned char *)h + h->lines_off;
	uint32_t nlines = h->strs_off - h->lines_off;
	uint32_t from = f[lo].lines, to = f[lo + 1].lines;
	if (from > to || to > nlines)
		return true;
	const unsigned char *p = base + from, *end = base + to;
	const uint32_t *files = (const uint32_t *)((const char *)h + h->files_off);
	uintptr_t addr = f[lo].start;
	int64_t line = 0, file = -1;
	while (p < end) {
		int64_t a, fi = file, dl;
		if (!leb(&p, end, false, &a))
			break;
		if ((a & 1) && !leb(&p, end, false, &fi))
			break;
		if (!leb(&p, end, true, &dl))
			break;
		addr += (uint64_t)a >> 1;
		if (addr > off)
			break;		/* rows are in address order */
		line += dl;
		file = fi;
	}
	if (file >= 0 && file < h->nfiles) {
		out->file = str(h, files[file]);
		out->line = line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
	}
	return true;
}
