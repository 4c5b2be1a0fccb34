/*
 * A console command server: reads lines with a read deadline (Go's
 * SetReadDeadline) and hands each to a goroutine of its own, which
 * answers; ends at `quit` or when no line comes for IDLE_S seconds.
 *
 *   add A B | mul A B    the result
 *   echo WORDS           the words
 *   sleep MS             answers after MS ms (others answer meanwhile)
 *   quit                 waits for the answers, then ends
 *
 *   make run APP=examples/cmdserver            type at the serial console
 *   make run APP=examples/cmdserver CMDLINE="run=cmdserver -- add 1 2 ; mul 3 4 ; quit"
 *
 * With arguments, they are the lines, separated by ";" words, and the
 * console is not read (a scripted session: make test runs it so on every
 * board; no quotes needed, which a PC's GRUB line would not keep). Ends with the number of
 * commands, of errors, and the sum of the numeric results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmk.h"

#define LINE_MAX_	80	/* bytes, with the NUL */
#define IDLE_S		30	/* the read deadline, seconds */

struct request {
	char line[LINE_MAX_];
	chan_t results;		/* long: a result, NO_RESULT or BAD_REQUEST */
	struct waitgroup *wg;
};

#define NO_RESULT	0x7fffffffffffffffL	/* echo, sleep: nothing to sum */
#define BAD_REQUEST	(-0x7fffffffffffffffL)

static long parse(const char *s, bool *ok)
{
	char *end;
	long v = strtol(s, &end, 10);

	*ok = *ok && end != s && (*end == '\0' || *end == ' ');
	return v;
}

static void handle(void *p)		/* one request's goroutine */
{
	struct request *r = p;		/* its own copy (go_value) */
	long result = BAD_REQUEST;
	bool ok = true;

	if (strncmp(r->line, "add ", 4) == 0 || strncmp(r->line, "mul ", 4) == 0) {
		const char *b = strchr(r->line + 4, ' ');
		long x = parse(r->line + 4, &ok), y = b ? parse(b + 1, &ok) : 0;
		if (ok && b) {
			result = r->line[0] == 'a' ? x + y : x * y;
			printf("%s = %ld\n", r->line, result);
		}
	} else if (strncmp(r->line, "echo ", 5) == 0) {
		printf("%s\n", r->line + 5);
		result = NO_RESULT;
	} else if (strncmp(r->line, "sleep ", 6) == 0) {
		long ms = parse(r->line + 6, &ok);
		if (ok && ms >= 0 && ms <= 10000) {
			sleep_ns((uint64_t)ms * NSEC_PER_MSEC);
			printf("%s: done\n", r->line);
			result = NO_RESULT;
		}
	}
	if (result == BAD_REQUEST)
		printf("%s: unknown command (add A B, mul A B, echo WORDS, sleep MS, quit)\n",
		       r->line);
	chan_send(r->results, &result);
	waitgroup_done(r->wg);
}

/* The next line, from the script or the console; false at the end (or
 * after the idle deadline). */
static bool next_line(char *line, int argc, char **argv, int *argi)
{
	if (argc > 1) {		/* the words up to the next ";" word */
		size_t n = 0;
		if (*argi >= argc)
			return false;
		line[0] = '\0';
		for (; *argi < argc && strcmp(argv[*argi], ";") != 0; (*argi)++)
			n += (size_t)snprintf(line + n, n < LINE_MAX_ ? LINE_MAX_ - n : 0, "%s%s",
					      n ? " " : "", argv[*argi]);
		(*argi)++;	/* the ";" */
		return true;
	}
	size_t n = 0;
	for (;;) {
		char c;
		console_set_read_deadline(time_now() + IDLE_S * NSEC_PER_SEC);
		long got = console_read(&c, 1);
		if (got == CONSOLE_ERR_TIMEOUT) {
			printf("cmdserver: no input for %d s\n", IDLE_S);
			return false;
		}
		if (got == CONSOLE_ERR_EOF) {
			printf("cmdserver: end of input\n");
			return false;
		}
		if (got < 0) {
			printf("cmdserver: this board has no console input; give the lines "
			       "as arguments: run=cmdserver -- add 1 2 ; quit\n");
			return false;
		}
		if (c == '\r' || c == '\n') {
			if (n == 0)
				continue;	/* an empty line, or \r\n's \n */
			line[n] = '\0';
			return true;
		}
		if (n < LINE_MAX_ - 1)
			line[n++] = c;
	}
}

/* Sums the answers until results is closed, then says so on done. */
struct tally {
	chan_t results, done;
	long nerrs, sum;
};

static void collector(void *p)
{
	struct tally *t = p;
	long r;

	while (chan_recv(t->results, &r)) {
		t->nerrs += r == BAD_REQUEST;
		t->sum += r != BAD_REQUEST && r != NO_RESULT ? r : 0;
	}
	chan_send(t->done, NULL);	/* t is the caller's: last use */
}

/*
 * Serves until quit, the end of the script or the idle deadline: the lines
 * of script[1..nscript-1] (os.Args' shape: words, ";" between lines), or
 * of the console when there is none. Returns the number of commands; *nerrs and *sum tally them.
 */
long cmdserver_serve(int nscript, char **script, long *nerrs, long *sum)
{
	struct waitgroup wg = { 0 };
	struct tally t = { .results = chan_make(sizeof(long), 16), .done = chan_make(0, 0) };
	char line[LINE_MAX_];
	int argi = 1;
	long ncmds = 0;

	go(collector, &t);		/* t outlives it: we wait on t.done */
	while (next_line(line, nscript, script, &argi) && strcmp(line, "quit") != 0) {
		struct request req = { .results = t.results, .wg = &wg };
		snprintf(req.line, sizeof req.line, "%s", line);
		waitgroup_add(&wg, 1);
		go_copy(handle, &req, sizeof req);	/* the G gets its own copy */
		ncmds++;
	}
	console_set_read_deadline(0);
	waitgroup_wait(&wg);		/* every answer sent */
	chan_close(t.results);
	chan_recv(t.done, NULL);	/* and summed */
	chan_free(t.results);
	chan_free(t.done);
	*nerrs = t.nerrs;
	*sum = t.sum;
	return ncmds;
}

PROGRAM(cmdserver, "reads console lines with a deadline, a goroutine per command")
{
	long nerrs, sum, ncmds = cmdserver_serve(argc, argv, &nerrs, &sum);

	printf("cmdserver: %ld commands, %ld errors, results sum %ld\n", ncmds, nerrs, sum);
	return nerrs ? 1 : 0;
}
