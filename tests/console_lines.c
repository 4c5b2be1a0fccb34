/*
 * Lines per goroutine (kernel/console.c): what a G prints in pieces goes
 * out as one line, whatever other Gs print between the pieces, on its
 * core or another; a partial line goes out when its G parks and when it
 * exits. The console's capture (console_capture_start) gives the text as
 * the serial line gets it.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/console.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"

#define LINES_GS	8
#define LINES_EACH	20
#define CAPTURE_SIZE	(32 * 1024)

static char captured[CAPTURE_SIZE];

struct lines_run {
	struct waitgroup wg;
	volatile uint32_t started;
};

struct lines_arg {
	struct lines_run *run;
	int me;
};

/* Each line in four pieces with a yield between each: on one core the
 * other Gs print their pieces in between. */
static void lines_g(void *arg)
{
	struct lines_arg *a = arg;

	atomic_xadd32(&a->run->started, 1);
	while (atomic_load32(&a->run->started) < LINES_GS)
		gosched();
	for (int k = 0; k < LINES_EACH; k++) {
		printf("line %d.%02d:", a->me, k);
		gosched();
		printf(" first piece of G%d,", a->me);
		gosched();
		printf(" second %d", k * 7);
		gosched();
		printf(" and the end\n");
		gosched();
	}
	waitgroup_done(&a->run->wg);
}

/* The next line of s (up to '\n', excluded) into l; false at the end. */
static bool next_line(const char **s, const char *end, char *l, size_t size)
{
	if (*s >= end)
		return false;
	const char *nl = memchr(*s, '\n', (size_t)(end - *s));
	size_t n = (size_t)((nl ? nl : end) - *s);
	size_t k = n < size - 1 ? n : size - 1;
	memcpy(l, *s, k);
	l[k] = '\0';
	*s += n + (nl != NULL);
	return true;
}

TEST(console_lines_printed_in_pieces_by_8_goroutines_stay_whole)
{
	struct lines_run run = { 0 };
	struct lines_arg args[LINES_GS];
	bool seen[LINES_GS][LINES_EACH] = { { false } };

	console_capture_start(captured, sizeof captured);
	waitgroup_add(&run.wg, LINES_GS);
	for (int i = 0; i < LINES_GS; i++) {
		args[i] = (struct lines_arg){ &run, i };
		go(lines_g, &args[i]);
	}
	waitgroup_wait(&run.wg);
	size_t n = console_capture_stop();
	ASSERT_LT(n, sizeof captured);

	const char *s = captured, *end = captured + n;
	char l[160], want[160];
	unsigned whole = 0, broken = 0, foreign = 0;
	while (next_line(&s, end, l, sizeof l)) {
		int g, k;
		if (sscanf(l, "line %d.%d:", &g, &k) == 2 && g >= 0 && g < LINES_GS &&
		    k >= 0 && k < LINES_EACH) {
			snprintf(want, sizeof want,
				 "line %d.%02d: first piece of G%d, second %d and the end",
				 g, k, g, k * 7);
			if (strcmp(l, want) == 0 && !seen[g][k]) {
				seen[g][k] = true;
				whole++;
				continue;
			}
		}
		/* The kernel's own whole lines (the watchdog's report of a
		 * core the host did not run for a second, seen in a loaded
		 * soak) come out between the Gs' lines: not theirs, not
		 * broken, unless a G's piece is in one. */
		if (strncmp(l, "gmk: ", 5) == 0 && !strstr(l, "line ") &&
		    !strstr(l, " piece of G") && !strstr(l, " second ") &&
		    !strstr(l, " and the end")) {
			foreign++;
			continue;
		}
		if (broken++ == 0)
			printf("# first broken line: \"%s\"\n", l);
	}
	if (foreign)
		printf("# %u of the kernel's own lines among them\n", foreign);
	EXPECT_EQ(broken, 0);
	EXPECT_EQ(whole, LINES_GS * LINES_EACH);
}

static void partial_g(void *arg)
{
	chan_t c = arg;
	int v;

	printf("prompt> ");
	chan_recv(c, &v);		/* parks: the prompt must be out by now */
	printf("the last words, no newline");
}

/* Wait, sleeping, until the capture holds at least n bytes or 30 s have
 * passed (a slow emulator host is not a failure). */
static void capture_wait(size_t n)
{
	uint64_t until = nanotime() + 30 * NSEC_PER_SEC;
	while (console_capture_len() < n && nanotime() < until)
		sleep_ns(NSEC_PER_MSEC);
}

TEST(console_lines_a_partial_line_goes_out_when_its_goroutine_parks_and_exits)
{
	static const char prompt[] = "prompt> ", last[] = "the last words, no newline";
	chan_t c = chan_make(sizeof(int), 0);
	int v = 1;

	/* Nothing but the G's park can write the prompt out: it prints no
	 * newline and cannot exit before the send below. */
	console_capture_start(captured, sizeof captured);
	go(partial_g, c);
	capture_wait(sizeof prompt - 1);
	size_t n = console_capture_stop();
	captured[n] = '\0';
	EXPECT(strstr(captured, prompt) != NULL);

	console_capture_start(captured, sizeof captured);
	chan_send(c, &v);
	capture_wait(sizeof last - 1);	/* the G exits */
	n = console_capture_stop();
	captured[n] = '\0';
	EXPECT(strstr(captured, last) != NULL);
	printf("\n");			/* ends that line on the serial line */
	chan_free(c);
}
