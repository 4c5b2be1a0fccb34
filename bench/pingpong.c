/*
 * pingpong: 2 Gs pass a value over two unbuffered channels 1,000,000
 * round trips. Figure: wall time per one-way hand-off (two per trip).
 * Every hand-off parks one G and readies the other into the waker's
 * runnext, so on one P this is gopark + goready + a switch each way.
 */
#include "bench/bench.h"

#define PINGPONG_TRIPS 1000000u

struct pingpong {
	chan_t ping, pong;
	struct waitgroup done;
	/* The echo G's, on a line of its own: the sender reads ping and
	 * pong (as the Go side's echoed is an object of its own). */
	uint64_t echoed __attribute__((aligned(64)));	/* sum of what the echo G received */
};

/* Receives v on ping, answers v + 1 on pong, until ping is closed. */
static void echo_g(void *arg)
{
	struct pingpong *pp = arg;
	uint64_t v;
	while (chan_recv(pp->ping, &v)) {
		pp->echoed += v;
		v++;
		chan_send(pp->pong, &v);
	}
	waitgroup_done(&pp->done);
}

double bench_pingpong(struct bench_ctx *c)
{
	uint32_t n = bench_count(c, PINGPONG_TRIPS);
	struct pingpong pp = {
		.ping = chan_make(sizeof(uint64_t), 0),
		.pong = chan_make(sizeof(uint64_t), 0),
	};
	uint64_t sum = 0;

	waitgroup_add(&pp.done, 1);
	go(echo_g, &pp);
	uint64_t t0 = nanotime();
	chan_t ping = pp.ping, pong = pp.pong;	/* in registers, as Go's */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = i;
		chan_send(ping, &v);
		chan_recv(pong, &v);
		sum += v;
	}
	uint64_t wall = nanotime() - t0;
	chan_close(pp.ping);
	waitgroup_wait(&pp.done);
	chan_free(pp.ping);
	chan_free(pp.pong);

	uint64_t want = (uint64_t)n * (n - 1) / 2;	/* 0 + 1 + ... + n-1 */
	if (pp.echoed != want || sum != want + n)
		bench_fail(c, "sums %llu/%llu, want %llu/%llu",
			   (unsigned long long)pp.echoed, (unsigned long long)sum,
			   (unsigned long long)want, (unsigned long long)(want + n));
	return (double)wall / (2.0 * n);
}
