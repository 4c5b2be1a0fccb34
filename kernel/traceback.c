/*
 * Stacks for fatal errors (kernel/traceback.h). Runs on a dying core
 * with interrupts masked and the other cores stopped or stopping: it
 * allocates nothing and takes no lock (the table is read-only, the
 * capture buffer is the dying core's alone, claim_panic), and reads a
 * frame record only after checking that it lies where a stack may.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/layout.h"
#include "kernel/percpu.h"
#include "kernel/symtab.h"
#include "kernel/traceback.h"
#include "kernel/trap.h"

/* Go prints 100 frames, then says how many more; a deeper stack here is
 * almost always a runaway recursion, whose first frames say it. */
#define TRACEBACK_MAX_FRAMES 100

enum traceback_level traceback_level = TRACEBACK_SINGLE;

bool traceback_set(const char *val)
{
	if (!val[0] || strcmp(val, "single") == 0)
		traceback_level = TRACEBACK_SINGLE;
	else if (strcmp(val, "none") == 0)
		traceback_level = TRACEBACK_NONE;
	else if (strcmp(val, "all") == 0)
		traceback_level = TRACEBACK_ALL;
	else
		return false;
	return true;
}

/* What the report printed, for the fatal tests; cut off when full. */
static char captured[8192];
static unsigned ncaptured;

const char *traceback_text(void)
{
	return captured;
}

void tb_printf(const char *fmt, ...)
{
	char line[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	printf("%s", line);
	size_t n = strlen(line);
	if (n > sizeof captured - 1 - ncaptured)
		n = sizeof captured - 1 - ncaptured;
	memcpy(captured + ncaptured, line, n);
	ncaptured += n;
	captured[ncaptured] = 0;
}

/*
 * One frame. at_pc: pc is where the code stands (the innermost frame, or
 * a trap's); otherwise it is a return address, and the call is the
 * instruction before it, whose line is the one to print (Go's tracepc).
 * The offset is from the function's entry to pc itself, as Go prints it.
 */
static void print_frame(uintptr_t pc, bool at_pc)
{
	struct symtab_loc loc;

	if (!symtab_lookup(at_pc ? pc : pc - 1, &loc)) {
		tb_printf("?(...)\n\t?:0 pc=0x%lx\n", (unsigned long)pc);
		return;
	}
	tb_printf("%s(...)\n", loc.func);
	if (loc.line)
		tb_printf("\t%s:%u +0x%lx\n", loc.file, (unsigned)loc.line,
			  (unsigned long)(pc - loc.entry));
	else
		tb_printf("\t?:0 +0x%lx\n", (unsigned long)(pc - loc.entry));
}

/*
 * Go's printcreatedby1: after a G's frames, the go statement that made
 * it (gopc, a return address: its line is the call's) and the G that ran
 * it (0, g0, is not named). Nothing for a pc outside the table, as Go
 * prints nothing for a pc it cannot find.
 */
void traceback_createdby(uintptr_t gopc, uint64_t parentgoid)
{
	struct symtab_loc loc;

	if (!gopc || !symtab_lookup(gopc - 1, &loc))
		return;
	if (parentgoid)
		tb_printf("created by %s in goroutine %llu\n", loc.func,
			  (unsigned long long)parentgoid);
	else
		tb_printf("created by %s\n", loc.func);
	tb_printf("\t%s:%u +0x%lx\n", loc.line ? loc.file : "?", (unsigned)loc.line,
		  (unsigned long)(gopc - loc.entry));
}

/* May a frame record {next fp, return address} be read at fp? Only
 * inside the stack [lo, hi): RAM around a stack may be a guard page. */
static bool record_ok(uintptr_t fp, uintptr_t lo, uintptr_t hi)
{
	return fp && !(fp & (sizeof(uintptr_t) - 1)) && fp >= lo &&
	       fp <= hi - 2 * sizeof(uintptr_t) && hi - lo >= 2 * sizeof(uintptr_t);
}

/* The stack of this core's own that holds p (its boot stack, which is
 * its g0's, or its exception stack); false if neither does. */
static bool core_stack(uintptr_t p, uintptr_t *lo, uintptr_t *hi)
{
	const struct cpu *c = this_cpu();

	if (p >= c->stack_top - KSTACK_SIZE && p < c->stack_top) {
		*lo = c->stack_top - KSTACK_SIZE;
		*hi = c->stack_top;
		return true;
	}
	if (p >= c->irq_stack_top - IRQ_STACK_SIZE && p < c->irq_stack_top) {
		*lo = c->irq_stack_top - IRQ_STACK_SIZE;
		*hi = c->irq_stack_top;
		return true;
	}
	return false;
}

/* The return address of pc's function if it has no frame record (yet):
 * a leaf, or a function stopped before its prologue made the record
 * (a stack overflow faults in the prologue). It is in the link register
 * (lr) or, where the arch has none, at the stack pointer sp. It counts
 * only if it lies in the text, in another function, is not the return
 * address in fp's record (pc's function has its record), and the
 * instruction before it is a call to pc's function (or an indirect one). */
static uintptr_t frameless_return(uintptr_t pc, uintptr_t lr, uintptr_t sp, uintptr_t fp,
				  uintptr_t lo, uintptr_t hi)
{
	struct symtab_loc at, ret;
	uintptr_t r = lr;

	if (!r && sp && !(sp & (sizeof(uintptr_t) - 1)) && sp >= lo &&
	    sp + sizeof(uintptr_t) <= hi)
		r = *(const uintptr_t *)sp;
	if (!r || !symtab_lookup(pc, &at) || !symtab_lookup(r - 1, &ret) || at.entry == ret.entry)
		return 0;
	if (record_ok(fp, lo, hi) && ((const uintptr_t *)fp)[1] == r)
		return 0;
	/* The table found r - 1 in a function: r is in the text, and so are
	 * the bytes before it that the check reads. */
	return arch_returns_from_call(r, at.entry) ? r : 0;
}

void traceback_frames(uintptr_t pc, uintptr_t lr, uintptr_t sp, uintptr_t fp,
		      uintptr_t lo, uintptr_t hi)
{
	unsigned n = 0;

	if (!lo && !hi && fp && !core_stack(fp, &lo, &hi)) {
		/* Not a stack this core knows (a G's that overflowed, say):
		 * the frame at pc, and no record is read. */
		if (pc)
			print_frame(pc, true);
		tb_printf("\t(frame pointer 0x%lx lies outside the stack: no more frames)\n",
			  (unsigned long)fp);
		return;
	}
	if (pc) {
		uintptr_t ret = frameless_return(pc, lr, sp, fp, lo, hi);
		print_frame(pc, true);
		n++;
		if (ret) {
			print_frame(ret, false);
			n++;
		}
	}
	while (record_ok(fp, lo, hi)) {
		uintptr_t next = ((uintptr_t *)fp)[0];
		uintptr_t ret = ((uintptr_t *)fp)[1];
		if (ret == 0)
			return;		/* goentry's: the G's first frame */
		if (n == TRACEBACK_MAX_FRAMES) {
			tb_printf("...additional frames elided...\n");
			return;
		}
		print_frame(ret, false);
		n++;
		if (next <= fp)		/* stacks grow down: callers' records lie above */
			break;
		fp = next;
	}
}
