/*
 * Flattened device tree reader (Devicetree Specification v0.4, chapter 5).
 *
 * The structure block is a token stream: BEGIN_NODE name, PROP len nameoff
 * value, END_NODE, NOP, END, each 4-byte aligned. A node is identified by
 * the offset of its BEGIN_NODE token inside the structure block. Every
 * read goes through the bounds-checked helpers below.
 *
 * Runs before the MMU is on (arch/aarch64/mmu.c reads /memory here), when
 * RAM is Device memory to the CPU: only byte loads, no library calls.
 */
#include <stddef.h>

#include "kernel/fdt.h"

#define FDT_BEGIN_NODE	1u
#define FDT_END_NODE	2u
#define FDT_PROP	3u
#define FDT_NOP		4u
#define FDT_END		9u

#define FDT_HEADER_SIZE		40	/* v17 header */
#define FDT_MAX_SIZE		(16u << 20)	/* sanity bound on totalsize */
#define FDT_MIN_VERSION		16
#define FDT_MAX_DEPTH		32	/* deeper trees are rejected by fdt_parent */

uint32_t fdt_be32(const void *p)
{
	const volatile uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

uint64_t fdt_read_cells(const void *p, uint32_t ncells)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (uint32_t i = 0; i < ncells; i++)
		v = v << 32 | fdt_be32(b + 4 * i);
	return v;
}

static uint32_t align4(uint32_t x) { return (x + 3) & ~3u; }

bool fdt_init(struct fdt *f, const void *blob)
{
	const uint8_t *h = blob;

	f->blob = NULL;
	if (!blob || ((uintptr_t)blob & 3) || fdt_be32(h) != FDT_MAGIC)
		return false;
	uint32_t size = fdt_be32(h + 4);
	uint32_t off_struct = fdt_be32(h + 8);
	uint32_t off_strings = fdt_be32(h + 12);
	uint32_t off_rsvmap = fdt_be32(h + 16);
	uint32_t version = fdt_be32(h + 20);
	uint32_t size_strings = fdt_be32(h + 32);
	uint32_t size_struct = fdt_be32(h + 36);

	if (version < FDT_MIN_VERSION || size < FDT_HEADER_SIZE || size > FDT_MAX_SIZE)
		return false;
	if ((off_struct & 3) || (off_rsvmap & 7) || off_rsvmap < FDT_HEADER_SIZE)
		return false;
	if (off_struct > size || size_struct > size - off_struct)
		return false;
	if (off_strings > size || size_strings > size - off_strings)
		return false;
	if (off_rsvmap > size)
		return false;
	f->blob = h;
	f->size = size;
	f->off_struct = off_struct;
	f->size_struct = size_struct;
	f->off_strings = off_strings;
	f->size_strings = size_strings;
	f->off_rsvmap = off_rsvmap;
	return true;
}

/* Token at structure offset `off`, or FDT_END if out of bounds. */
static uint32_t token(const struct fdt *f, uint32_t off)
{
	if ((off & 3) || off > f->size_struct || f->size_struct - off < 4)
		return FDT_END;
	return fdt_be32(f->blob + f->off_struct + off);
}

/* Offset just past the NUL-padded node name after a BEGIN_NODE at off;
 * 0 if the name runs off the block. */
static uint32_t skip_name(const struct fdt *f, uint32_t off)
{
	const uint8_t *s = f->blob + f->off_struct;

	for (uint32_t i = off + 4; i < f->size_struct; i++)
		if (s[i] == 0)
			return align4(i + 1);
	return 0;
}

/* Offset just past the PROP token at off; 0 if malformed. */
static uint32_t skip_prop(const struct fdt *f, uint32_t off)
{
	if (f->size_struct - off < 12)
		return 0;
	uint32_t len = fdt_be32(f->blob + f->off_struct + off + 4);
	if (len > f->size_struct - off - 12)
		return 0;
	return align4(off + 12 + len);
}

/* The token after the node header and its properties (a child's
 * BEGIN_NODE or the node's END_NODE); *at receives its offset. */
static uint32_t after_props(const struct fdt *f, int node, uint32_t *at)
{
	uint32_t off = skip_name(f, (uint32_t)node);

	while (off) {
		uint32_t t = token(f, off);
		if (t == FDT_PROP)
			off = skip_prop(f, off);
		else if (t == FDT_NOP)
			off += 4;
		else {
			*at = off;
			return t;
		}
	}
	return FDT_END;
}

static bool valid_node(const struct fdt *f, int node)
{
	return f->blob && node >= 0 && token(f, (uint32_t)node) == FDT_BEGIN_NODE;
}

int fdt_next_node(const struct fdt *f, int node)
{
	uint32_t off;

	if (!f->blob)
		return -1;
	if (node < 0)
		off = 0;
	else if (!valid_node(f, node) || !(off = skip_name(f, (uint32_t)node)))
		return -1;
	for (;;) {
		uint32_t t = token(f, off);
		if (t == FDT_BEGIN_NODE)
			return (int)off;
		if (t == FDT_PROP) {
			if (!(off = skip_prop(f, off)))
				return -1;
		} else if (t == FDT_NOP || t == FDT_END_NODE) {
			off += 4;
		} else {
			return -1;
		}
	}
}

int fdt_first_child(const struct fdt *f, int node)
{
	uint32_t at;

	if (!valid_node(f, node))
		return -1;
	return after_props(f, node, &at) == FDT_BEGIN_NODE ? (int)at : -1;
}

/* Offset just past the END_NODE closing `node`; 0 if malformed. */
static uint32_t skip_subtree(const struct fdt *f, int node)
{
	uint32_t off = skip_name(f, (uint32_t)node);
	unsigned depth = 1;

	while (off) {
		uint32_t t = token(f, off);
		if (t == FDT_BEGIN_NODE) {
			depth++;
			off = skip_name(f, off);
		} else if (t == FDT_END_NODE) {
			off += 4;
			if (--depth == 0)
				return off;
		} else if (t == FDT_PROP) {
			off = skip_prop(f, off);
		} else if (t == FDT_NOP) {
			off += 4;
		} else {
			return 0;
		}
	}
	return 0;
}

int fdt_next_sibling(const struct fdt *f, int node)
{
	if (!valid_node(f, node))
		return -1;
	uint32_t off = skip_subtree(f, node);
	while (off && token(f, off) == FDT_NOP)
		off += 4;
	return off && token(f, off) == FDT_BEGIN_NODE ? (int)off : -1;
}

int fdt_parent(const struct fdt *f, int node)
{
	int stack[FDT_MAX_DEPTH];
	unsigned depth = 0;
	uint32_t off = 0;

	if (!valid_node(f, node))
		return -1;
	while (off < f->size_struct) {
		uint32_t t = token(f, off);
		if (t == FDT_BEGIN_NODE) {
			if ((int)off == node)
				return depth ? stack[depth - 1] : -1;
			if (depth == FDT_MAX_DEPTH)
				return -1;
			stack[depth++] = (int)off;
			if (!(off = skip_name(f, off)))
				return -1;
		} else if (t == FDT_END_NODE) {
			if (depth == 0)
				return -1;
			depth--;
			off += 4;
		} else if (t == FDT_PROP) {
			if (!(off = skip_prop(f, off)))
				return -1;
		} else if (t == FDT_NOP) {
			off += 4;
		} else {
			return -1;
		}
	}
	return -1;
}

const char *fdt_node_name(const struct fdt *f, int node)
{
	if (!valid_node(f, node) || !skip_name(f, (uint32_t)node))
		return "";
	return (const char *)f->blob + f->off_struct + (uint32_t)node + 4;
}

/* A string in the strings block, or NULL if it is not NUL-terminated
 * inside it. */
static const char *string_at(const struct fdt *f, uint32_t nameoff)
{
	const char *s = (const char *)f->blob + f->off_strings;

	for (uint32_t i = nameoff; i < f->size_strings; i++)
		if (s[i] == 0)
			return s + nameoff;
	return NULL;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const void *fdt_getprop(const struct fdt *f, int node, const char *name,
			uint32_t *len)
{
	if (!valid_node(f, node))
		return NULL;
	uint32_t off = skip_name(f, (uint32_t)node);
	while (off) {
		uint32_t t = token(f, off);
		if (t == FDT_NOP) {
			off += 4;
			continue;
		}
		if (t != FDT_PROP)
			break;
		uint32_t next = skip_prop(f, off);
		if (!next)
			break;
		const uint8_t *p = f->blob + f->off_struct + off;
		const char *pname = string_at(f, fdt_be32(p + 8));
		if (pname && str_eq(pname, name)) {
			if (len)
				*len = fdt_be32(p + 4);
			return p + 12;
		}
		off = next;
	}
	return NULL;
}

bool fdt_prop_u32(const struct fdt *f, int node, const char *name, uint32_t *v)
{
	uint32_t len;
	const void *p = fdt_getprop(f, node, name, &len);

	if (!p || len < 4)
		return false;
	*v = fdt_be32(p);
	return true;
}

const char *fdt_prop_string(const struct fdt *f, int node, const char *name)
{
	uint32_t len;
	const char *p = fdt_getprop(f, node, name, &len);

	if (!p || len == 0 || p[len - 1] != 0)
		return NULL;
	return p;
}

/* Does the node's string-list property `name` contain `s`? */
static bool fdt_prop_has_string(const struct fdt *f, int node, const char *name,
				const char *s)
{
	uint32_t len;
	const char *p = fdt_getprop(f, node, name, &len);

	if (!p || len == 0 || p[len - 1] != 0)
		return false;
	for (uint32_t i = 0; i < len;) {
		if (str_eq(p + i, s))
			return true;
		while (i < len && p[i])		/* to the next list entry */
			i++;
		i++;
	}
	return false;
}

bool fdt_is_compatible(const struct fdt *f, int node, const char *compat)
{
	return fdt_prop_has_string(f, node, "compatible", compat);
}

int fdt_find_compatible(const struct fdt *f, int node, const char *compat)
{
	while ((node = fdt_next_node(f, node)) >= 0)
		if (fdt_is_compatible(f, node, compat))
			return node;
	return -1;
}

int fdt_find_device_type(const struct fdt *f, int node, const char *type)
{
	while ((node = fdt_next_node(f, node)) >= 0) {
		const char *t = fdt_prop_string(f, node, "device_type");
		if (t && str_eq(t, type))
			return node;
	}
	return -1;
}

/* Does path component [c, c+n) name the node called `name`? */
static bool component_matches(const char *c, uint32_t n, const char *name)
{
	bool has_unit = false;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (c[i] == '@')
			has_unit = true;
		if (name[i] != c[i])
			return false;
	}
	return name[i] == 0 || (!has_unit && name[i] == '@');
}

int fdt_path_offset(const struct fdt *f, const char *path)
{
	int node = fdt_next_node(f, -1);	/* the root */

	if (node < 0 || path[0] != '/')
		return -1;
	while (*path) {
		while (*path == '/')
			path++;
		if (!*path)
			break;
		uint32_t n = 0;
		while (path[n] && path[n] != '/')
			n++;
		int child = fdt_first_child(f, node);
		while (child >= 0 && !component_matches(path, n, fdt_node_name(f, child)))
			child = fdt_next_sibling(f, child);
		if (child < 0)
			return -1;
		node = child;
		path += n;
	}
	return node;
}

/* #address-cells / #size-cells that apply to `node`'s reg (its parent's). */
static void fdt_reg_cells(const struct fdt *f, int node, uint32_t *addr_cells,
			  uint32_t *size_cells)
{
	int parent = fdt_parent(f, node);

	/* Spec defaults when the parent does not say. */
	*addr_cells = 2;
	*size_cells = 1;
	if (parent >= 0) {
		fdt_prop_u32(f, parent, "#address-cells", addr_cells);
		fdt_prop_u32(f, parent, "#size-cells", size_cells);
	}
}

bool fdt_reg(const struct fdt *f, int node, unsigned i, uint64_t *addr,
	     uint64_t *size)
{
	uint32_t ac, sc, len;
	const uint8_t *p = fdt_getprop(f, node, "reg", &len);

	if (!p)
		return false;
	fdt_reg_cells(f, node, &ac, &sc);
	if (ac > 2 || sc > 2 || ac == 0)	/* 64-bit addresses at most */
		return false;
	uint32_t entry = 4 * (ac + sc);
	if ((uint64_t)(i + 1) * entry > len)
		return false;
	p += i * entry;
	*addr = fdt_read_cells(p, ac);
	*size = fdt_read_cells(p + 4 * ac, sc);
	return true;
}

bool fdt_reg_phys(const struct fdt *f, int node, unsigned i, uint64_t *addr,
		  uint64_t *size)
{
	if (!fdt_reg(f, node, i, addr, size))
		return false;
	/* Each bus above the node maps its children's addresses (its own
	 * #address-cells) to its parent's: <child parent size> triples. */
	for (int bus = fdt_parent(f, node); bus >= 0; bus = fdt_parent(f, bus)) {
		int up = fdt_parent(f, bus);
		uint32_t len, cac = 2, csc = 1, pac = 2, unused;
		const uint8_t *r;

		if (up < 0)
			break;			/* the root: CPU addresses */
		r = fdt_getprop(f, bus, "ranges", &len);
		if (!r || len == 0)
			continue;		/* identity */
		fdt_prop_u32(f, bus, "#address-cells", &cac);
		fdt_prop_u32(f, bus, "#size-cells", &csc);
		fdt_reg_cells(f, bus, &pac, &unused);
		if (cac > 2 || pac > 2 || csc > 2)
			return false;
		uint32_t entry = 4 * (cac + pac + csc);
		bool found = false;
		for (uint32_t off = 0; off + entry <= len; off += entry) {
			uint64_t c = fdt_read_cells(r + off, cac);
			uint64_t p = fdt_read_cells(r + off + 4 * cac, pac);
			uint64_t s = fdt_read_cells(r + off + 4 * (cac + pac), csc);
			if (*addr >= c && *addr - c < s) {
				*addr = p + (*addr - c);
				found = true;
				break;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

bool fdt_memreserve(const struct fdt *f, unsigned i, uint64_t *addr,
		    uint64_t *size)
{
	if (!f->blob)
		return false;
	/* Entries of two big-endian u64, ended by an all-zero entry. */
	for (unsigned k = 0;; k++) {
		uint64_t off = f->off_rsvmap + 16ull * k;
		if (off + 16 > f->size)
			return false;
		const uint8_t *p = f->blob + off;
		uint64_t a = fdt_read_cells(p, 2), s = fdt_read_cells(p + 8, 2);
		if (a == 0 && s == 0)
			return false;
		if (k == i) {
			*addr = a;
			*size = s;
			return true;
		}
	}
}
