/*
 * The image's own symbol and line table: which function, file and line an
 * address of gmk's text is, for the stacks that fatal errors print
 * (kernel/traceback.c), with no addr2line at hand. tools/mksymtab builds
 * it from the first of the kernel's two links (DWARF line info and the
 * symbols) and the second link carries it (Makefile). An image without
 * one (a host test's library) finds nothing.
 *
 * Safe in a fault path: it reads the table and writes *out, nothing else
 * (no allocation, no lock), and a corrupt table gives a wrong name at
 * worst, never a read outside it.
 */
#ifndef GMK_KERNEL_SYMTAB_H
#define GMK_KERNEL_SYMTAB_H

#include <stdbool.h>
#include <stdint.h>

struct symtab_loc {
	const char *func;	/* its function's name */
	uintptr_t entry;	/* the function's first instruction (run-time) */
	const char *file;	/* source file, from the repository's root; "?" if unknown */
	uint32_t line;		/* 0 if unknown */
};

/* Where pc lies; false if outside the table's functions (or no table). */
bool symtab_lookup(uintptr_t pc, struct symtab_loc *out);

/* The table's size in bytes (0: none in this image). */
uint32_t symtab_size(void);

#endif
