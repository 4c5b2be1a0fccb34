/*
 * A test application (tools/test-plan boots it on every board): the C
 * library's per-thread state is per goroutine in an application's code,
 * as docs/programs.md says. Many goroutines at once each set errno (by
 * hand, and by strtol's ERANGE) and tokenize their own string with
 * strtok, yielding or spinning (where the tick preempts them) between
 * setting and reading; each counts what it reads back that is not its
 * own. Every count must be 0.
 *
 *   make run APP=tests/apps/libcstate [CMDLINE="run=libcstate -- GOROUTINES ROUNDS"]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmk.h"

#define MAX_GS	256
#define TOKENS	8

static struct waitgroup wg;
static int rounds;
static unsigned long errno_lost, errno_checked, tokens_wrong, tokens_checked;
/* Each goroutine's string to tokenize: static, so that a strtok that
 * wrongly goes on in another goroutine's string never finds it gone. */
static char strings[MAX_GS][TOKENS * 8];

static void count(unsigned long *c, unsigned long n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* Between a write and its read back: a yield, or a while in this
 * file's code, where the tick may preempt it and its core run another. */
static void pause_(int r)
{
	if (r & 1) {
		gosched();
	} else {
		for (volatile int i = 0; i < 2000; i++)
			;
	}
}

static void worker(void *arg)
{
	int id = (int)(uintptr_t)arg;
	unsigned long lost = 0, wrong = 0, ntok = 0;

	for (int r = 0; r < rounds; r++) {
		int mine = id * 100000 + r + 1;
		errno = mine;
		pause_(r);
		lost += errno != mine;
		errno = 0;
		strtol("99999999999999999999999", NULL, 10);	/* ERANGE */
		pause_(r + 1);
		lost += errno != ERANGE;

		char *s = strings[id];
		snprintf(s, sizeof strings[id], "%d", id);
		for (int k = 1; k < TOKENS; k++)
			snprintf(s + strlen(s), sizeof strings[id] - strlen(s), ",%d", id);
		int k = 0;
		for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
			wrong += atoi(t) != id;
			k++;
			pause_(r + k);
		}
		wrong += k != TOKENS;
		ntok += TOKENS;
	}
	count(&errno_lost, lost);
	count(&errno_checked, 2ul * rounds);
	count(&tokens_wrong, wrong);
	count(&tokens_checked, ntok);
	waitgroup_done(&wg);
}

PROGRAM(libcstate, "GOROUTINES (64) set errno and strtok ROUNDS (100) times each, yielding")
{
	int ngs = argc > 1 ? atoi(argv[1]) : 64;

	rounds = argc > 2 ? atoi(argv[2]) : 100;
	if (ngs < 1 || ngs > MAX_GS || rounds < 1) {
		printf("libcstate: want 1 to %d goroutines and 1 or more rounds\n", MAX_GS);
		return 2;
	}
	waitgroup_add(&wg, ngs);
	for (int i = 0; i < ngs; i++)
		go(worker, (void *)(uintptr_t)i);
	waitgroup_wait(&wg);
	printf("libcstate: errno: %lu of %lu values lost; strtok: %lu of %lu tokens wrong\n",
	       errno_lost, errno_checked, tokens_wrong, tokens_checked);
	return errno_lost == 0 && tokens_wrong == 0 ? 0 : 1;
}
