/* The README's example: an application (make run APP=examples/squares),
 * also in the kernel's own image (make run CMDLINE="run=squares"). */
#include <stdio.h>
#include "gmk.h"

struct job { chan_t in, out; struct waitgroup *wg; };

static void squarer(void *p)			/* a worker goroutine */
{
	struct job *j = p;			/* its own copy (go_value) */
	int v;

	while (chan_recv(j->in, &v)) {		/* false once closed and drained */
		int sq = v * v;
		chan_send(j->out, &sq);
	}
	waitgroup_done(j->wg);
}

static void closer(void *p)			/* closes out when all are done */
{
	struct job *j = p;

	waitgroup_wait(j->wg);
	chan_close(j->out);
}

PROGRAM(squares, "sum of squares with 4 workers")
{
	static struct waitgroup wg;		/* outlives the goroutines */
	chan_t in = chan_make(sizeof(int), 0), out = chan_make(sizeof(int), 8);
	int sum = 0, v;

	waitgroup_add(&wg, 4);
	for (int i = 0; i < 4; i++)		/* each gets a copy of the struct */
		go_value(squarer, struct job, .in = in, .out = out, .wg = &wg);
	go_value(closer, struct job, .out = out, .wg = &wg);

	for (int i = 1; i <= 100;) {		/* feed the workers ... */
		struct select_case cs[] = {
			SELECT_SEND(in, &i),		/* ... while ... */
			SELECT_RECV(out, &v),		/* ... collecting */
			SELECT_AFTER(10 * NSEC_PER_SEC),	/* stuck: give up */
		};
		switch (chan_select(cs, 3, false)) {
		case 0: i++; break;
		case 1: sum += v; break;
		case 2: return 1;
		}
	}
	chan_close(in);
	while (chan_recv(out, &v))		/* the rest */
		sum += v;
	printf("sum of squares 1..100 = %d\n", sum);	/* 338350 */
	return sum == 338350 ? 0 : 1;
}
