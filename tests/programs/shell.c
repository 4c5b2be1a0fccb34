/*
 * run=shell: a shell on the serial console, the demo of the poller. The
 * shell's G parks in console_read (no core held) until the UART's receive
 * interrupt brings a byte; programs started with `run` get their own Gs,
 * so the shell keeps echoing while they occupy every core.
 *
 *   help                 the commands and the programs
 *   ps                   goroutines with status and wait reason
 *   sched                one schedtrace line and the per-P counters
 *   run <program>        start a registered program in a new G
 *   bench <name>[/N]     run benchmarks (bench= syntax) and wait for them
 *   exit [status]        wait for the programs `run` started, then leave
 *                        the machine with that status (default 0)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/console_io.h"
#include "sched/gmk.h"
#include "tests/bench/bench.h"

#define SHELL_LINE_MAX	128
#define SHELL_PROMPT	"gmk> "

static struct waitgroup jobs;
static volatile uint32_t njobs;

static void job(void *arg)
{
	const struct program *p = arg;
	uint64_t t0 = nanotime();
	int status = p->main();

	printf("[%s exited with status %d after %llu ms]\n", p->name, status,
	       (unsigned long long)((nanotime() - t0) / NSEC_PER_MSEC));
	atomic_xadd32(&njobs, -1);
	waitgroup_done(&jobs);
}

static void help(void)
{
	printf("commands:\n"
	       "  help              this list\n"
	       "  ps                goroutines, status, wait reason\n"
	       "  sched             scheduler state and per-P counters\n"
	       "  run <program>     start a program in new goroutines\n"
	       "  bench <name>[/N]  run benchmarks (all, spawn, yield, ...)\n"
	       "  exit [status]     wait for running programs, then leave\n"
	       "programs:\n");
	program_list();
}

/* Read one line with echo; false at a read error. Handles \r, \n (a
 * \r\n pair is one end of line), backspace and DEL. */
static bool readline(char *line, size_t max)
{
	static bool last_cr;
	size_t n = 0;

	for (;;) {
		char c;
		long r = console_read(&c, 1);
		if (r < 0)
			return false;
		if (c == '\n' && last_cr) {
			last_cr = false;
			continue;
		}
		last_cr = c == '\r';
		if (c == '\r' || c == '\n') {
			console_write_now("\n", 1);
			line[n] = 0;
			return true;
		}
		if (c == '\b' || c == 0x7f) {
			if (n) {
				n--;
				console_write_now("\b \b", 3);
			}
			continue;
		}
		if ((unsigned char)c < ' ' || n + 1 >= max)
			continue;
		line[n++] = c;
		console_write_now(&c, 1);
	}
}

/* Split off the first word of *s (spaces skipped); NULL at the end. */
static char *word(char **s)
{
	char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	char *w = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = 0;
	*s = p;
	return w;
}

static void wait_jobs(void)
{
	uint32_t n = atomic_load32(&njobs);
	if (n) {
		printf("exit: waiting for %u running program%s\n", n, n == 1 ? "" : "s");
		waitgroup_wait(&jobs);
	}
}

PROGRAM(shell, "a shell on the console: help, ps, sched, run, bench, exit")
{
	char buf[SHELL_LINE_MAX];

	printf("gmk shell on %u Ps; type help\n", sched_nprocs());
	for (;;) {
		console_write_now(SHELL_PROMPT, strlen(SHELL_PROMPT));
		if (!readline(buf, sizeof buf)) {
			printf("shell: this board's console has no receive interrupt\n");
			return 1;
		}
		char *rest = buf;
		char *cmd = word(&rest);
		char *arg = word(&rest);
		if (!cmd)
			continue;
		if (strcmp(cmd, "help") == 0) {
			help();
		} else if (strcmp(cmd, "ps") == 0) {
			sched_print_goroutines();
		} else if (strcmp(cmd, "sched") == 0) {
			schedtrace_print();
		} else if (strcmp(cmd, "run") == 0) {
			const struct program *p = arg ? program_find(arg, strlen(arg)) : NULL;
			if (!arg || !p || strcmp(arg, "shell") == 0) {
				printf("run: %s%s; programs:\n", arg ? "no program " : "usage: run <program>",
				       arg ? arg : "");
				program_list();
				continue;
			}
			atomic_xadd32(&njobs, 1);
			waitgroup_add(&jobs, 1);
			uint64_t id = go(job, (void *)p);
			printf("[%s started: goroutine %llu]\n", p->name, (unsigned long long)id);
		} else if (strcmp(cmd, "bench") == 0) {
			if (!arg) {
				printf("bench: usage: bench <name>[/N] (bench=all lists them)\n");
				continue;
			}
			printf("bench: %d failed\n", bench_main(arg));
		} else if (strcmp(cmd, "exit") == 0) {
			char *end = NULL;
			long status = arg ? strtol(arg, &end, 10) : 0;
			if (arg && (*end || end == arg)) {
				printf("exit: '%s' is not a number\n", arg);
				continue;
			}
			wait_jobs();
			return (int)status;
		} else {
			printf("%s: unknown command (try help)\n", cmd);
		}
	}
}

/* ---- burn: the CPU-bound load of the shell demo ---- */

#define BURN_NS (5 * NSEC_PER_SEC)

static struct waitgroup burn_wg;

static void burner(void *arg)
{
	uint64_t end = *(uint64_t *)arg;
	volatile uint64_t x = 0;
	while (nanotime() < end)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	(void)x;	/* clang: set but not used */
	waitgroup_done(&burn_wg);
}

PROGRAM(burn, "CPU-bound: one G per P that never blocks, for 5 s")
{
	static uint64_t end;
	uint32_t n = sched_nprocs();

	end = nanotime() + BURN_NS;
	waitgroup_add(&burn_wg, (int32_t)n);
	for (uint32_t i = 0; i < n; i++)
		go(burner, &end);
	waitgroup_wait(&burn_wg);
	printf("burn: %u Gs spun for %llu ms\n", n,
	       (unsigned long long)(BURN_NS / NSEC_PER_MSEC));
	return 0;
}
