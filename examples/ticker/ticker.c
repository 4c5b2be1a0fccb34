/*
 * A sensor pipeline with a deadline, as a Go program writes it: a sensor
 * goroutine samples every 10 ms (a Ticker), a filter goroutine scales each
 * sample, and main sums what comes out, until a context with a 2 s timeout
 * ends it all. Every stage selects on ctx's Done channel, so the shutdown
 * reaches each of them wherever it is blocked.
 *
 *   make run APP=examples/ticker                    2 s at 10 ms
 *   make run APP=examples/ticker CMDLINE="run=ticker -- 500 5"   500 ms at 5 ms
 *
 * Prints how many samples went through and their sum, which it checks:
 * sample i is i, so n samples scaled by SCALE sum to SCALE * n(n+1)/2.
 * A slow machine drops ticks (a Ticker's channel holds one), never breaks
 * the check.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gmk.h"

#define SCALE 3

struct stage {
	struct context *ctx;
	chan_t in, out;		/* uint64_t samples */
	uint64_t period;	/* the sensor's, ns */
	struct waitgroup *wg;	/* done when the stage no longer touches
				   its channels or ctx */
};

static void sensor(void *p)		/* samples 1, 2, 3, ... on each tick */
{
	struct stage *s = p;
	struct time_ticker *tk = time_newticker(s->period);
	uint64_t when, sample = 0;

	for (;;) {
		struct select_case tick[] = {
			SELECT_RECV(tk->C, &when), SELECT_RECV(context_done(s->ctx), NULL),
		};
		if (chan_select(tick, 2, false) == 1)
			break;
		sample++;
		struct select_case send[] = {
			SELECT_SEND(s->out, &sample), SELECT_RECV(context_done(s->ctx), NULL),
		};
		if (chan_select(send, 2, false) == 1)
			break;
	}
	time_ticker_free(tk);
	chan_close(s->out);
	waitgroup_done(s->wg);
}

static void filter(void *p)		/* scales each sample */
{
	struct stage *s = p;
	uint64_t v;

	while (chan_recv(s->in, &v)) {
		v *= SCALE;
		struct select_case send[] = {
			SELECT_SEND(s->out, &v), SELECT_RECV(context_done(s->ctx), NULL),
		};
		if (chan_select(send, 2, false) == 1)
			break;
	}
	while (chan_recv(s->in, NULL))	/* let the sensor finish its send */
		;
	chan_close(s->out);
	waitgroup_done(s->wg);
}

/* Runs the pipeline for `run` ns with a sensor period of `period` ns;
 * returns the number of samples summed into *sum. */
uint64_t ticker_pipeline(uint64_t run, uint64_t period, uint64_t *sum)
{
	struct context *ctx = context_with_timeout(context_background(), run);
	chan_t raw = chan_make(sizeof(uint64_t), 4), scaled = chan_make(sizeof(uint64_t), 4);
	struct waitgroup wg = { 0 };	/* lives until both are done with it */
	uint64_t v, n = 0;

	*sum = 0;
	waitgroup_add(&wg, 2);
	go_value(sensor, struct stage, .ctx = ctx, .out = raw, .period = period, .wg = &wg);
	go_value(filter, struct stage, .ctx = ctx, .in = raw, .out = scaled, .wg = &wg);
	while (chan_recv(scaled, &v)) {		/* closed once both are done */
		*sum += v;
		n++;
	}
	/* What the filter forwarded is a prefix 1..n of the samples: it
	 * stops forwarding at Done. The stages are done with the channels
	 * and ctx only once they say so (a close may still be returning). */
	waitgroup_wait(&wg);
	chan_free(raw);
	chan_free(scaled);
	context_release(ctx);
	return n;
}

PROGRAM(ticker, "a 10 ms sensor pipeline, shut down after 2 s by a context")
{
	/* os.Args: [run ms] [period ms] */
	uint64_t run_ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000;
	uint64_t period_ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 10;
	uint64_t sum, n;

	if (run_ms == 0 || period_ms == 0 || argc > 3) {
		printf("usage: run=ticker [-- run_ms [period_ms]], both whole numbers > 0\n");
		return 2;
	}
	uint64_t t0 = time_now();
	n = ticker_pipeline(run_ms * NSEC_PER_MSEC, period_ms * NSEC_PER_MSEC, &sum);
	uint64_t took = (time_now() - t0) / NSEC_PER_MSEC;
	bool ok = n > 0 && sum == SCALE * n * (n + 1) / 2;
	printf("ticker: %llu samples every %llu ms in %llu ms, sum %llu: %s\n",
	       (unsigned long long)n, (unsigned long long)period_ms, (unsigned long long)took,
	       (unsigned long long)sum, ok ? "checked" : "WRONG");
	return ok ? 0 : 1;
}
