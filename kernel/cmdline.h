/*
 * The kernel command line: space-separated key=value options. Every key is
 * declared in kernel/cmdline.c with its type; an unknown key or a malformed
 * value is an error that names it.
 */
#ifndef GMK_KERNEL_CMDLINE_H
#define GMK_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The longest command line gmk takes, in bytes (its NUL not counted), on
 * every board: more than the loaders here pass (GRUB's and QEMU's take
 * longer), and the hosted board's argv has the same limit. A board keeps
 * one byte more of a loader's line than that (cmdline_copy), so that
 * cmdline_parse sees a longer line and refuses it, rather than run what
 * is left of it.
 */
#define CMDLINE_MAX 4095

struct kernel_options {
	char test[CMDLINE_MAX + 1];	/* test=<glob>[,<glob>...]; "" = no tests */
	char bench[64];			/* bench=<name>[/N],...|all[/N] */
	uint64_t slice_ns;		/* slice=10ms / 500us */
	uint64_t schedtrace_ms;		/* schedtrace=MS, 0 = off */
	uint32_t nprocs;		/* nprocs=N, 0 = every core */
	uint64_t seed;			/* seed=N */
	bool seed_set;
	bool fingerprint;		/* fingerprint=on: print the scheduling
					   history's hash at the end (sched/fingerprint.c) */
	bool switchyield;		/* switchyield=on: yield/pause at every
					   switch, for QEMU's replay (sched/fingerprint.c) */
	char run[256];			/* run=<program>[,<program>...]: what
					   kmain starts, in order */
	char trace[16];			/* trace=on|off|<size>: sched/tracebuf.c */
	char traceout[8];		/* traceout=auto|hex */
	char traceback[16];		/* traceback=none|single|all: kernel/traceback.h */
	uint32_t input;			/* input=1: the test harness feeds the
					   serial input (tools/serial-feed) */
	uint32_t txcheck;		/* txcheck=1: the harness checks the
					   serial output (tools/check-serial-out) */
	/* ip=ADDR/PREFIX[,GATEWAY] or ip=dhcp (the default): the network
	 * interface's IPv4 address (docs/network.md). Host byte order
	 * (10.0.2.15 is 0x0a00020f); static false: DHCP. */
	struct ipv4_conf {
		bool static_addr;
		uint32_t addr, mask, gw;	/* gw 0: none */
	} ip;
	/* What follows the word "--": the program's arguments (its argv[1..]),
	 * each NUL-terminated, one after another; nargs of them. */
	uint32_t nargs;
	char args[CMDLINE_MAX + 1];
};

/* The most arguments a program takes after "--". */
#define CMDLINE_ARGS_MAX 64

extern struct kernel_options kopts;

/* Room for any message of cmdline_parse's. */
#define CMDLINE_ERR_MAX 256

/* Parse `line` into *o (defaults first). On error returns false and writes
 * a message naming the bad option (or saying the line is longer than
 * CMDLINE_MAX) into err. */
bool cmdline_parse(const char *line, struct kernel_options *o,
		   char *err, unsigned errlen);

/*
 * Where the options start in a loader's command line. Some loaders put the
 * image's path first (QEMU's -kernel: "build/x/gmk.elf32 test=*"), others do
 * not (GRUB's multiboot2: "test=*"). The first word is dropped only when it
 * is that path: it has no '=' (every option has one) and either the loader
 * is known to put the path there (`path_first`) or it looks like one (it
 * starts with '/' or holds a '/'). Anything else is left for cmdline_parse,
 * so a stray first word is reported, never silently lost.
 */
const char *cmdline_skip_image_path(const char *line, bool path_first);

/*
 * Where gmk's text starts in a line a loader may have put options of its
 * own before (the Raspberry Pi firmware puts Linux options before
 * cmdline.txt's text, which make image writes as "-- options"): after the
 * first "--" word when the line starts with that word or with a word that
 * is not one of gmk's options and holds a "--" word; otherwise the whole
 * line, so that a later "--" is the program's arguments and a stray first
 * word is reported, not dropped.
 */
const char *cmdline_after_loader(const char *line);

/* A board's copy of a loader's line: the first CMDLINE_MAX + 1 bytes of
 * src (at most srcmax), NUL-terminated, into dst[CMDLINE_MAX + 2]. */
void cmdline_copy(char *dst, const char *src, size_t srcmax);

/* The options' names, in the table's order; NULL past the last. */
const char *cmdline_option_key(unsigned i);

#endif
