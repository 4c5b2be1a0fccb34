/*
 * run=shell: a shell on the serial console, the demo of the poller. The
 * shell's G parks in console_read (no core held) until the UART's receive
 * interrupt brings a byte; programs started with `run` get their own Gs,
 * so the shell keeps echoing while they occupy every core.
 *
 *   help                 the commands and the programs
 *   ps                   goroutines with status and wait reason
 *   sched                one schedtrace line and the per-P counters
 *   run <program> [args] start a registered program in a new G, its argv
 *                        the words after its name
 *   bench <name>[/N]     run benchmarks (bench= syntax) and wait for them,
 *                        where the image has them (the kernel's; not an
 *                        application's own)
 *   sleep <ms>           wait (typed input waits, none is lost)
 *   wait                 wait for the programs `run` started to end
 *   exit [status]        wait for the programs `run` started, then leave
 *                        the machine with that status (0-255, default 0)
 *
 * The end of the input (the hosted board's stdin at its end) is `exit 0`.
 *
 * A line longer than SHELL_LINE_MAX - 1 characters, a word too many, a
 * status out of range or a program already running is refused with a
 * message: nothing is cut or ignored and then run.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gmk.h"

#define SHELL_LINE_MAX	128	/* bytes, with the NUL */
#define SHELL_PROMPT	"gmk> "
#define SHELL_SLEEP_MAX_MS 3600000	/* an hour */

#define SHELL_RUN_ARGS	16	/* words after run's program name, at most */

static struct waitgroup jobs;
static uint32_t njobs;		/* atomic: programs `run` started, running */

/* A job's program and its arguments, copied out of the line (the next
 * line reuses it); the job frees it. */
struct job {
	const struct program *p;
	int nargs;
	char *args[SHELL_RUN_ARGS];
	char words[SHELL_LINE_MAX];
};

static void job(void *arg)
{
	struct job *j = arg;
	const struct program *p = j->p;
	uint64_t t0 = time_now();
	int status = program_main_args(p, j->nargs, j->args);
	kfree(j);

	printf("[%s exited with status %d after %llu ms]\n", p->name, status,
	       (unsigned long long)((time_now() - t0) / NSEC_PER_MSEC));
	program_end(p);		/* may run again */
	__atomic_fetch_sub(&njobs, 1, __ATOMIC_SEQ_CST);
	waitgroup_done(&jobs);
}

static void help(void)
{
	printf("commands:\n"
	       "  help              this list\n"
	       "  ps                goroutines, status, wait reason\n"
	       "  sched             scheduler state and per-P counters\n"
	       "  run <program> [args]  start a program in new goroutines, its\n"
	       "                    arguments the words after its name\n"
	       "  bench <name>[/N]  run benchmarks (all, spawn, yield, ...)\n"
	       "  sleep <ms>        wait, reading no input meanwhile\n"
	       "  wait              wait for running programs to end\n"
	       "  exit [status]     wait for running programs, then leave\n"
	       "programs:\n");
	program_list();
}

/* Read one line with echo into line[max]; the line's length (more than
 * max - 1 if it did not fit: only its first max - 1 bytes are kept), or
 * console_read's error (CONSOLE_ERR_EOF: the input ended; a last line
 * with no end of line is a line, as for a Unix shell). Handles \r, \n (a \r\n
 * pair is one end of line), backspace and DEL. */
static long readline(char *line, size_t max)
{
	static bool last_cr;
	size_t n = 0;

	for (;;) {
		char c;
		long r = console_read(&c, 1);
		if (r == CONSOLE_ERR_EOF && n > 0)
			c = '\n';	/* the end ends the last line */
		else if (r < 0)
			return r;
		if (c == '\n' && last_cr) {
			last_cr = false;
			continue;
		}
		last_cr = c == '\r';
		if (c == '\r' || c == '\n') {
			console_write_now("\n", 1);
			line[n < max ? n : max - 1] = 0;
			return (long)n;
		}
		if (c == '\b' || c == 0x7f) {
			if (n) {
				n--;
				console_write_now("\b \b", 3);
			}
			continue;
		}
		if ((unsigned char)c < ' ')
			continue;
		if (n + 1 < max)
			line[n] = c;
		n++;
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

/* Wait for the programs `run` started (by `cmd`: exit, wait). */
static void wait_jobs(const char *cmd)
{
	uint32_t n = __atomic_load_n(&njobs, __ATOMIC_ACQUIRE);
	if (n) {
		printf("%s: waiting for %u running program%s\n", cmd, n, n == 1 ? "" : "s");
		waitgroup_wait(&jobs);
	}
}

/* A whole number 0..max, in decimal; -1 if s is anything else. */
static long whole_number(const char *s, long max)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
	}
	return v;
}

/* How many words each command takes after its name, at most. */
static const struct { const char *name; int maxargs; } commands[] = {
	{ "help", 0 }, { "ps", 0 }, { "sched", 0 }, { "run", 1 + SHELL_RUN_ARGS }, { "bench", 1 },
	{ "sleep", 1 }, { "wait", 0 }, { "exit", 1 },
};

PROGRAM(shell, "a shell on the console: help, ps, sched, run, bench, sleep, wait, exit")
{
	char buf[SHELL_LINE_MAX];

	printf("gmk shell on %u Ps; type help\n", sched_nprocs());
	for (;;) {
		console_write_now(SHELL_PROMPT, strlen(SHELL_PROMPT));
		long len = readline(buf, sizeof buf);
		if (len == CONSOLE_ERR_EOF) {	/* as `exit`, as a Unix shell does */
			printf("\nshell: end of input\n");
			wait_jobs("exit");
			return 0;
		}
		if (len < 0) {
			printf("shell: this board's console has no receive interrupt\n");
			return 1;
		}
		if (len > SHELL_LINE_MAX - 1) {	/* never run a cut line */
			printf("line too long (%ld > %d): not run\n", len, SHELL_LINE_MAX - 1);
			continue;
		}
		char *rest = buf;
		char *cmd = word(&rest);
		char *arg = word(&rest);
		char *extra = word(&rest);
		if (!cmd)
			continue;
		int maxargs = -1;
		for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
			if (strcmp(cmd, commands[i].name) == 0)
				maxargs = commands[i].maxargs;
		/* run's words after the program's name are its arguments. */
		char *args[SHELL_RUN_ARGS];
		int nargs = 0;
		if (maxargs > 1 && extra) {
			args[nargs++] = extra;
			while (nargs < maxargs - 1 && (args[nargs] = word(&rest)) != NULL)
				nargs++;
			extra = word(&rest);
		}
		char *surplus = maxargs == 0 ? arg : extra;
		if (maxargs < 0) {
			printf("%s: unknown command (try help)\n", cmd);
		} else if (surplus) {
			printf("%s: unexpected '%s' (try help)\n", cmd, surplus);
		} else if (strcmp(cmd, "help") == 0) {
			help();
		} else if (strcmp(cmd, "ps") == 0) {
			sched_print_goroutines();
		} else if (strcmp(cmd, "sched") == 0) {
			schedtrace_print();
		} else if (strcmp(cmd, "run") == 0) {
			const struct program *p = arg ? program_find(arg, strlen(arg)) : NULL;
			if (!arg || !p) {
				printf("run: %s%s; programs:\n", arg ? "no program " : "usage: run <program>",
				       arg ? arg : "");
				program_list();
				continue;
			}
			if (!program_start(p)) {
				printf("run: %s is already running\n", p->name);
				continue;
			}
			struct job *j = kmalloc(sizeof *j);
			if (!j) {
				printf("run: out of memory\n");
				program_end(p);
				continue;
			}
			j->p = p;
			j->nargs = nargs;
			char *w = j->words;
			for (int i = 0; i < nargs; i++) {
				size_t n = strlen(args[i]) + 1;
				memcpy(w, args[i], n);
				j->args[i] = w;
				w += n;
			}
			__atomic_fetch_add(&njobs, 1, __ATOMIC_SEQ_CST);
			waitgroup_add(&jobs, 1);
			uint64_t id = go(job, j);
			printf("[%s started: goroutine %llu]\n", p->name, (unsigned long long)id);
		} else if (strcmp(cmd, "bench") == 0) {
			/* The benchmarks are the program "bench" (bench/), in
			 * the kernel's image; it prints "bench: N failed". */
			const struct program *b = program_find("bench", strlen("bench"));
			if (!arg) {
				printf("bench: usage: bench <name>[/N] (bench=all lists them)\n");
				continue;
			}
			if (!b) {
				printf("bench: this image has no benchmarks (the kernel's has: "
				       "make run CMDLINE=run=shell)\n");
				continue;
			}
			program_main_args(b, 1, &arg);
		} else if (strcmp(cmd, "sleep") == 0) {
			long ms = arg ? whole_number(arg, SHELL_SLEEP_MAX_MS) : -1;
			if (ms < 0) {
				printf("sleep: usage: sleep <ms> (a whole number 0-%d)\n",
				       SHELL_SLEEP_MAX_MS);
				continue;
			}
			sleep_ns((uint64_t)ms * NSEC_PER_MSEC);
		} else if (strcmp(cmd, "wait") == 0) {
			wait_jobs("wait");
		} else if (strcmp(cmd, "exit") == 0) {
			long status = arg ? whole_number(arg, 255) : 0;
			if (status < 0) {
				printf("exit: '%s' is not a status (a whole number 0-255)\n", arg);
				continue;
			}
			wait_jobs("exit");
			return (int)status;
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
	while (time_now() < end)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	(void)x;	/* clang: set but not used */
	waitgroup_done(&burn_wg);
}

PROGRAM(burn, "CPU-bound: one G per P that never blocks, for 5 s")
{
	static uint64_t end;
	uint32_t n = sched_nprocs();

	end = time_now() + BURN_NS;
	waitgroup_add(&burn_wg, (int32_t)n);
	for (uint32_t i = 0; i < n; i++)
		go(burner, &end);
	waitgroup_wait(&burn_wg);
	printf("burn: %u Gs spun for %llu ms\n", n,
	       (unsigned long long)(BURN_NS / NSEC_PER_MSEC));
	return 0;
}
