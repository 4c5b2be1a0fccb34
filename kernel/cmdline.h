/*
 * The kernel command line: space-separated key=value options. Every key is
 * declared in kernel/cmdline.c with its type; an unknown key or a malformed
 * value is an error that names it.
 */
#ifndef GMK_KERNEL_CMDLINE_H
#define GMK_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

struct kernel_options {
	char test[128];			/* test=<glob>; "" = no tests */
	char bench[64];			/* bench=<name>[/N],...|all[/N] */
	uint64_t slice_ns;		/* slice=10ms / 500us */
	uint64_t schedtrace_ms;		/* schedtrace=MS, 0 = off */
	uint32_t nprocs;		/* nprocs=N, 0 = every core */
	uint64_t seed;			/* seed=N */
	bool seed_set;
	bool fingerprint;		/* fingerprint=on: print the scheduling
					   history's hash at the end (sched/fingerprint.c) */
	char run[64];			/* run=<program>: what kmain starts */
	char trace[16];			/* trace=on|off|<size>: sched/tracebuf.c */
	char traceout[8];		/* traceout=auto|hex */
	uint32_t input;			/* input=1: the test harness feeds the
					   serial input (tools/serial-feed) */
};

extern struct kernel_options kopts;

/* Parse `line` into *o (defaults first). On error returns false and writes
 * a message naming the bad option into err. */
bool cmdline_parse(const char *line, struct kernel_options *o,
		   char *err, unsigned errlen);

#endif
