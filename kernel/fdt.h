/*
 * A small reader for flattened device trees (the DTB a loader hands over).
 *
 * The blob is validated once by fdt_init; after that every accessor stays
 * inside the structure and strings blocks, so a malformed tree yields
 * "not found" rather than a wild read. Nodes are named by their offset in
 * the structure block (an int, -1 = none), as in the DTB itself.
 *
 * Safe before the MMU is on: it reads the blob a byte at a time (no
 * unaligned loads) and calls nothing from the C library.
 */
#ifndef GMK_KERNEL_FDT_H
#define GMK_KERNEL_FDT_H

#include <stdbool.h>
#include <stdint.h>

#define FDT_MAGIC 0xd00dfeedu

struct fdt {
	const uint8_t *blob;
	uint32_t size;			/* totalsize */
	uint32_t off_struct, size_struct;
	uint32_t off_strings, size_strings;
	uint32_t off_rsvmap;
};

/* Validate the header at `blob`; false if it is not a usable DTB. */
bool fdt_init(struct fdt *f, const void *blob);

/* Node by absolute path ("/", "/cpus", "/chosen", "/pl011@9000000"). A
 * path component without "@unit" matches a node whose name has one. */
int fdt_path_offset(const struct fdt *f, const char *path);

/* The next node after `node` in document order (-1 starts at the root);
 * -1 at the end. */
int fdt_next_node(const struct fdt *f, int node);

/* Next node after `node` whose "compatible" list has `compat`, or whose
 * "device_type" is `type`; -1 when none is left. */
int fdt_find_compatible(const struct fdt *f, int node, const char *compat);
int fdt_find_device_type(const struct fdt *f, int node, const char *type);

/* First child / next sibling of a node; -1 when none. */
int fdt_first_child(const struct fdt *f, int node);
int fdt_next_sibling(const struct fdt *f, int node);
/* The parent of a node (-1 for the root). */
int fdt_parent(const struct fdt *f, int node);

/* The node's name ("cpu@0"). */
const char *fdt_node_name(const struct fdt *f, int node);

/* A property's value and length in bytes; NULL if absent. */
const void *fdt_getprop(const struct fdt *f, int node, const char *name,
			uint32_t *len);
bool fdt_prop_u32(const struct fdt *f, int node, const char *name, uint32_t *v);
/* A string property (NUL-terminated inside the blob), or NULL. */
const char *fdt_prop_string(const struct fdt *f, int node, const char *name);
bool fdt_is_compatible(const struct fdt *f, int node, const char *compat);

/* Entry `i` of the node's reg property; false past the end. */
bool fdt_reg(const struct fdt *f, int node, unsigned i, uint64_t *addr,
	     uint64_t *size);

/* Like fdt_reg, with the address translated through every parent bus's
 * `ranges` into a CPU physical address (an empty `ranges` is identity; a
 * bus without one is taken as identity too). False if an address falls
 * outside its bus's ranges. */
bool fdt_reg_phys(const struct fdt *f, int node, unsigned i, uint64_t *addr,
		  uint64_t *size);

/* Memory reservation block entry `i`; false past the end. */
bool fdt_memreserve(const struct fdt *f, unsigned i, uint64_t *addr,
		    uint64_t *size);

/* Big-endian cell helpers for property values. */
uint32_t fdt_be32(const void *p);
uint64_t fdt_read_cells(const void *p, uint32_t ncells);

#endif
