/*
 * A libFuzzer target for gmk's public API on the hosted board: random
 * programs of channel, select, mutex, timer and spawn operations, run by
 * several Gs on several hosted cores, checked against Go's semantics.
 *
 *   make fuzz BOARD=hosted [FUZZ_TIME=600] [FUZZ_SMP=4]
 *   build/hosted-fuzz/gmk -runs=100 crash-<sha1>      replays a crash
 *
 * How it runs. libFuzzer owns main(); gmk boots on a thread of its own
 * (hosted_main, boards/hosted/board.c) with run=fuzz_server, whose G waits
 * for an input, runs it to the end, checks it and hands the verdict back.
 * A broken rule prints "fuzz: ..." and abort()s, which libFuzzer records
 * as a crash with the input; a run in which no G of the harness finishes
 * an operation for GMK_FUZZ_TIMEOUT seconds (default 10: a lost wake-up,
 * a deadlock) does the same from libFuzzer's thread, after a report of
 * where everything is (hang_report). The tick is SIGALRM here, as is
 * libFuzzer's -timeout, so -timeout=0 is forced and the watchdog above
 * stands in for it.
 *
 * The input is a program (decode() below):
 *   byte 0     channels 1..4, workers 2..5, a misuse check or not
 *   bytes 1..4 per channel: capacity 0..3 and element size (8 or 24 bytes)
 *   then 2 bytes per operation: the worker that does it, what and its
 *   argument (channel set, duration, ...).
 * It runs twice. First one G alone runs it against a model of each
 * channel (solo()): every result is then exact (a try-send succeeds iff
 * the buffer has room, a select with default picks a ready case iff there
 * is one, len is the model's, ...). Then the workers run it concurrently
 * (workers 0, 2, 4 send, 1 and 3 receive; both kinds lock the mutex,
 * wait on timers, spawn Gs), beside one drainer G per channel so that no
 * program can deadlock: senders always find a receiver, and once every
 * sender is done the channels are closed, which ends every receive. What
 * holds under any interleaving is checked: every value sent is received
 * exactly once and intact, one receiver sees one sender's values on one
 * channel in order, a receive on a closed drained channel gives zero and
 * !ok, len <= cap, the mutex excludes, timers and sleeps never end before
 * their deadline, every spawned G runs exactly once.
 *
 * Misuse that Go panics on (close of a closed channel, send on a closed
 * channel, close of nil) cannot be recovered from in gmk: when byte 0 asks
 * for it, the first such operation of the solo run is done in a forked
 * child, which must die with Go's words.
 *
 * Reproducible: the same input is the same program, so a crash file
 * replays it; the interleaving of the concurrent part is the host's,
 * hence -runs=N to repeat it. GMK_FUZZ_SMP sets the cores (default 4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86_64-linux/host.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "tests/kernel_api.h"
#include "sched/runtime2.h"
#include "sched/schedimpl.h"
#include "sched/sched.h"

#define MAX_CH		4
#define MAX_WORKERS	5
#define MAX_OPS		256
#define MAX_SPAWN	MAX_OPS
#define FUZZ_STACK	(64 * 1024)	/* ASan's redzones, fprintf */
#define POISON		0xa5

/* ---- failing -------------------------------------------------------------- */

static __attribute__((noreturn, format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond))                                               \
			fail(__VA_ARGS__);                                 \
	} while (0)

/* ---- the program ------------------------------------------------------------ */

enum op_kind {
	/* both kinds of worker */
	OP_MUTEX, OP_MUTEX_TRY, OP_TIMER, OP_TIMER_STOP, OP_SLEEP, OP_SPAWN,
	OP_GOSCHED, OP_LEN,
	/* senders; receivers read these as their own, below */
	OP_SEND, OP_TRYSEND, OP_SELSEND, OP_SELSEND_DEF,
	/* receivers */
	OP_RECV, OP_TRYRECV, OP_SELRECV, OP_SELRECV_DEF, OP_SELRECV_TIMER,
	/* the solo run only (close, and misuse when asked) */
	OP_CLOSE,
	OP_NKINDS
};
#define NCOMMON	8
#define NSEND	4
#define NRECV	5

struct op {
	uint8_t kind, worker, arg;
};

struct prog {
	unsigned nch, nworkers, nops;
	bool misuse;
	unsigned cap[MAX_CH];
	unsigned esize[MAX_CH];		/* 8 or 24 bytes */
	struct op ops[MAX_OPS];
};

/* A value: who sent it on which channel, its sequence number, and copies
 * that show a torn or partial copy. 24-byte channels carry all of it. */
struct val {
	uint64_t v, nv, mix;
};

static uint64_t mkval(unsigned sender, unsigned ch, unsigned seq)
{
	return (uint64_t)(sender + 1) << 40 | (uint64_t)ch << 32 | seq;
}

static void fillval(struct val *x, uint64_t v)
{
	x->v = v;
	x->nv = ~v;
	x->mix = v * 0x9e3779b97f4a7c15ull;
}

static bool decode(const uint8_t *d, size_t n, struct prog *p)
{
	if (n < 1 + MAX_CH)
		return false;
	memset(p, 0, sizeof *p);
	p->nch = 1 + (d[0] & 3);
	p->nworkers = 2 + ((d[0] >> 2) & 3);
	p->misuse = (d[0] >> 4) == 0xf;
	for (unsigned c = 0; c < MAX_CH; c++) {
		p->cap[c] = d[1 + c] & 3;
		p->esize[c] = d[1 + c] & 4 ? 24 : 8;
	}
	d += 1 + MAX_CH;
	n -= 1 + MAX_CH;
	for (; n >= 2 && p->nops < MAX_OPS; d += 2, n -= 2) {
		struct op *o = &p->ops[p->nops++];
		o->worker = (d[0] & 7) % p->nworkers;
		o->kind = (d[0] >> 3) % OP_NKINDS;
		o->arg = d[1];
	}
	return true;
}

static unsigned op_chan(const struct prog *p, const struct op *o) { return o->arg % p->nch; }
/* A non-empty set of channels from the argument's low bits. */
static unsigned op_set(const struct prog *p, const struct op *o)
{
	unsigned m = o->arg & ((1u << p->nch) - 1);
	return m ? m : 1u << op_chan(p, o);
}
/* Durations: 0..~250 us, with some exactly 0 and some 1 ns. */
static uint64_t op_ns(const struct op *o) { return (uint64_t)(o->arg >> 2) * (o->arg & 2 ? 4000 : 1); }

/* ---- the concurrent run's state -------------------------------------------- */

static const struct prog *P;
static chan_t ch[MAX_CH];
/* Where each G of the harness is, for the hang report (hang_report):
 * the index of the op it is in, or a phase. */
static volatile int32_t worker_at[MAX_WORKERS], solo_at;
/* Bumped by every operation done, by any G of the harness: libFuzzer's
 * thread calls a run hung when it stops moving (not when the run is long:
 * on a loaded host a whole run can take seconds and still be sound). */
static volatile uint64_t progress;
static volatile const char *server_phase = "waiting for an input";
static volatile uint32_t closing;	/* set before the channels close */
/* sent[s][c]: values sender s got into channel c (the seqs 0..sent-1). */
static uint32_t sent[MAX_WORKERS][MAX_CH];
/* recvd[s][c][seq]: how often that value was received. */
static volatile uint32_t recvd[MAX_WORKERS][MAX_CH][MAX_OPS * MAX_CH];
static struct mutex mu;
static volatile uint32_t in_cs;
static uint64_t mu_count;		/* under mu */
static volatile uint32_t mu_ops;
static volatile uint32_t spawn_runs[MAX_SPAWN];
static volatile uint32_t nspawn;
/* Senders (even workers), receivers (odd), drainers, spawned Gs. */
static struct waitgroup wg_send, wg_recv, wg_drain, wg_spawn;

/* What one receiver (a worker or a drainer) has seen per sender and channel. */
struct seen {
	int32_t last[MAX_WORKERS][MAX_CH];
};

static void got(struct seen *sn, unsigned c, const struct val *x, const char *who)
{
	uint64_t v = x->v;
	unsigned s = (unsigned)(v >> 40) - 1, vc = (v >> 32) & 0xff;
	uint32_t seq = (uint32_t)v;

	CHECK(s < MAX_WORKERS && vc == c && seq < MAX_OPS * MAX_CH,
	      "%s: received 0x%llx on channel %u: no such value was sent there",
	      who, (unsigned long long)v, c);
	if (P->esize[c] == 24)
		CHECK(x->nv == ~v && x->mix == v * 0x9e3779b97f4a7c15ull,
		      "%s: value 0x%llx on channel %u arrived torn", who,
		      (unsigned long long)v, c);
	CHECK((int32_t)seq > sn->last[s][c],
	      "%s: channel %u: sender %u's value %u after its value %d (not FIFO)",
	      who, c, s, seq, sn->last[s][c]);
	sn->last[s][c] = (int32_t)seq;
	atomic_xadd32(&recvd[s][c][seq], 1);
}

static void check_zero(const void *p, size_t n, unsigned c, const char *what)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		CHECK(b[i] == 0, "%s on closed channel %u: !ok but byte %zu is 0x%02x, not zero",
		      what, c, i, b[i]);
}

static void closed_recv(unsigned c, const struct val *x, const char *what)
{
	CHECK(atomic_load32(&closing), "%s on channel %u: !ok before it was closed", what, c);
	check_zero(x, P->esize[c], c, what);
}

/* ---- operations both kinds of worker do ------------------------------------ */

static void spawned(void *arg)
{
	atomic_xadd32((volatile uint32_t *)arg, 1);
	atomic_xadd64(&progress, 1);
	waitgroup_done(&wg_spawn);
}

static void timer_op(const struct op *o)
{
	uint64_t ns = op_ns(o), t0 = nanotime(), when = 0;
	struct time_timer *t = time_newtimer(ns);

	CHECK(chan_recv(t->C, &when), "timer channel closed");
	uint64_t now = nanotime();
	CHECK(when >= t0 + ns && now >= when,
	      "timer of %llu ns made at %llu fired at %llu (now %llu): early",
	      (unsigned long long)ns, (unsigned long long)t0,
	      (unsigned long long)when, (unsigned long long)now);
	time_timer_free(t);
}

/* Stop before it fires, then Reset: Go's Stop and Reset results. */
static void timer_stop_op(const struct op *o)
{
	struct time_timer *t = time_newtimer(10 * NSEC_PER_SEC);
	uint64_t when;
	bool ok;

	CHECK(time_timer_stop(t), "Stop of a 10 s timer just made returned false");
	CHECK(!chan_tryrecv(t->C, &when, &ok), "a stopped timer delivered a value");
	CHECK(!time_timer_stop(t), "second Stop returned true");
	uint64_t ns = op_ns(o), t0 = nanotime();
	CHECK(!time_timer_reset(t, ns), "Reset of a stopped timer returned true");
	CHECK(chan_recv(t->C, &when), "timer channel closed");
	CHECK(when >= t0 + ns, "reset timer of %llu ns fired %llu ns early",
	      (unsigned long long)ns, (unsigned long long)(t0 + ns - when));
	CHECK(!time_timer_stop(t), "Stop after the timer fired returned true");
	time_timer_free(t);
}

static void common_op(const struct op *o)
{
	switch (o->kind) {
	case OP_MUTEX:
	case OP_MUTEX_TRY:
		if (o->kind == OP_MUTEX_TRY) {
			if (!mutex_trylock(&mu))
				break;
		} else {
			mutex_lock(&mu);
		}
		CHECK(atomic_xadd32(&in_cs, 1) == 1, "two Gs hold the mutex");
		mu_count++;
		if (o->arg & 1)
			gosched();
		if (o->arg & 2)
			delay_ns(o->arg);
		atomic_xadd32(&in_cs, -1);
		mutex_unlock(&mu);
		atomic_xadd32(&mu_ops, 1);
		break;
	case OP_TIMER:
		timer_op(o);
		break;
	case OP_TIMER_STOP:
		timer_stop_op(o);
		break;
	case OP_SLEEP: {
		uint64_t ns = op_ns(o), t0 = nanotime();
		sleep_ns(ns);
		uint64_t d = nanotime() - t0;
		CHECK(d >= ns, "sleep_ns(%llu) returned after %llu ns",
		      (unsigned long long)ns, (unsigned long long)d);
		break;
	}
	case OP_SPAWN: {
		uint32_t k = atomic_xadd32(&nspawn, 1) - 1;
		CHECK(k < MAX_SPAWN, "spawn slots overflow");
		waitgroup_add(&wg_spawn, 1);
		go_stack(spawned, (void *)&spawn_runs[k], o->arg & 1 ? G_STACK_DEFAULT : FUZZ_STACK);
		break;
	}
	case OP_GOSCHED:
		gosched();
		break;
	case OP_LEN: {
		unsigned c = op_chan(P, o);
		size_t len = chan_len(ch[c]), cap = chan_cap(ch[c]);
		CHECK(cap == P->cap[c], "cap(channel %u) = %zu, made with %u", c, cap, P->cap[c]);
		CHECK(len <= cap, "len(channel %u) = %zu > cap %zu", c, len, cap);
		break;
	}
	}
}

/* ---- senders ----------------------------------------------------------------- */

static void sender_op(unsigned w, const struct op *o)
{
	unsigned k = OP_SEND + (o->kind - NCOMMON) % NSEND;
	unsigned c = op_chan(P, o);
	struct val x[MAX_CH];

	switch (k) {
	case OP_SEND:
		fillval(&x[0], mkval(w, c, sent[w][c]));
		chan_send(ch[c], &x[0]);
		sent[w][c]++;
		break;
	case OP_TRYSEND:
		fillval(&x[0], mkval(w, c, sent[w][c]));
		if (chan_trysend(ch[c], &x[0]))
			sent[w][c]++;
		break;
	case OP_SELSEND:
	case OP_SELSEND_DEF: {
		struct select_case cs[MAX_CH];
		unsigned which[MAX_CH], n = 0, set = op_set(P, o);
		for (unsigned i = 0; i < P->nch; i++)
			if (set & 1u << i) {
				fillval(&x[n], mkval(w, i, sent[w][i]));
				cs[n] = (struct select_case)SELECT_SEND(ch[i], &x[n]);
				which[n++] = i;
			}
		int r = chan_select(cs, (int)n, k == OP_SELSEND_DEF);
		if (r == SELECT_DEFAULT) {
			CHECK(k == OP_SELSEND_DEF, "select without default returned default");
			break;
		}
		CHECK(r >= 0 && r < (int)n, "select returned %d of %u cases", r, n);
		sent[w][which[r]]++;
		break;
	}
	}
}

/* ---- receivers ----------------------------------------------------------------- */

static void receiver_op(unsigned w, struct seen *sn, const struct op *o)
{
	unsigned k = OP_RECV + (o->kind - NCOMMON) % NRECV;
	unsigned c = op_chan(P, o);
	char who[32];
	struct val x[MAX_CH + 1];
	bool ok;

	snprintf(who, sizeof who, "worker %u", w);
	memset(x, POISON, sizeof x);
	switch (k) {
	case OP_RECV:
		if (chan_recv(ch[c], &x[0]))
			got(sn, c, &x[0], who);
		else
			closed_recv(c, &x[0], "recv");
		break;
	case OP_TRYRECV:
		if (!chan_tryrecv(ch[c], &x[0], &ok))
			break;
		if (ok)
			got(sn, c, &x[0], who);
		else
			closed_recv(c, &x[0], "tryrecv");
		break;
	case OP_SELRECV:
	case OP_SELRECV_DEF:
	case OP_SELRECV_TIMER: {
		struct select_case cs[MAX_CH + 1];
		unsigned which[MAX_CH], n = 0, set = op_set(P, o);
		for (unsigned i = 0; i < P->nch; i++)
			if (set & 1u << i) {
				cs[n] = (struct select_case)SELECT_RECV(ch[i], &x[n]);
				which[n++] = i;
			}
		chan_t tc = NULL;
		uint64_t ns = op_ns(o), t0 = nanotime(), when = 0;
		if (k == OP_SELRECV_TIMER) {
			tc = time_after(ns);
			cs[n] = (struct select_case)SELECT_RECV(tc, &when);
		}
		int r = chan_select(cs, (int)n + (tc != NULL), k == OP_SELRECV_DEF);
		if (r == SELECT_DEFAULT) {
			CHECK(k == OP_SELRECV_DEF, "select without default returned default");
			break;
		}
		CHECK(r >= 0 && r < (int)n + (tc != NULL), "select returned %d of %u cases",
		      r, n + (tc != NULL));
		if (tc && r == (int)n) {
			CHECK(cs[r].ok, "time_after's channel received !ok");
			CHECK(when >= t0 + ns, "time_after(%llu) fired %llu ns early",
			      (unsigned long long)ns, (unsigned long long)(t0 + ns - when));
		} else if (cs[r].ok) {
			got(sn, which[r], &x[r], who);
		} else {
			closed_recv(which[r], &x[r], "select recv");
		}
		if (tc) {
			if (r != (int)n)	/* it fires, later: wait for it */
				CHECK(chan_recv(tc, &when), "time_after's channel closed");
			chan_free(tc);
		}
		break;
	}
	}
}

/* ---- the Gs -------------------------------------------------------------------- */

static void worker(void *arg)
{
	unsigned w = (unsigned)(uintptr_t)arg;
	struct seen sn;

	memset(&sn, 0xff, sizeof sn);	/* last = -1 */
	for (unsigned i = 0; i < P->nops; i++) {
		const struct op *o = &P->ops[i];
		if (o->worker != w || o->kind == OP_CLOSE)
			continue;
		worker_at[w] = (int32_t)i;
		if (o->kind < NCOMMON)
			common_op(o);
		else if (w % 2 == 0)
			sender_op(w, o);
		else
			receiver_op(w, &sn, o);
		atomic_xadd64(&progress, 1);
	}
	worker_at[w] = -2;	/* done */
	waitgroup_done(w % 2 ? &wg_recv : &wg_send);
}

static void drainer(void *arg)
{
	unsigned c = (unsigned)(uintptr_t)arg;
	struct seen sn;
	struct val x;

	memset(&sn, 0xff, sizeof sn);
	for (;;) {
		memset(&x, POISON, sizeof x);
		if (!chan_recv(ch[c], &x))
			break;
		got(&sn, c, &x, "drainer");
		atomic_xadd64(&progress, 1);
	}
	closed_recv(c, &x, "drainer recv");
	waitgroup_done(&wg_drain);
}

static void concurrent(const struct prog *p)
{
	P = p;
	memset(sent, 0, sizeof sent);
	memset((void *)recvd, 0, sizeof recvd);
	memset((void *)spawn_runs, 0, sizeof spawn_runs);
	nspawn = 0;
	closing = 0;
	mu_count = 0;
	mu_ops = 0;
	for (unsigned c = 0; c < p->nch; c++)
		ch[c] = chan_make(p->esize[c], p->cap[c]);

	waitgroup_add(&wg_drain, (int32_t)p->nch);
	for (unsigned c = 0; c < p->nch; c++)
		go_stack(drainer, (void *)(uintptr_t)c, FUZZ_STACK);
	for (unsigned w = 0; w < MAX_WORKERS; w++)
		worker_at[w] = w < p->nworkers ? -1 : -3;	/* not started, none */
	server_phase = "concurrent: waiting for the senders";
	for (unsigned w = 0; w < p->nworkers; w++) {
		waitgroup_add(w % 2 ? &wg_recv : &wg_send, 1);
		go_stack(worker, (void *)(uintptr_t)w, FUZZ_STACK);
	}
	waitgroup_wait(&wg_send);

	/* Every sender is done: what is left is buffered or being drained. */
	for (unsigned c = 0; c < p->nch; c++)
		CHECK(chan_len(ch[c]) <= p->cap[c], "len(channel %u) = %zu > cap %u",
		      c, chan_len(ch[c]), p->cap[c]);
	atomic_store32(&closing, 1);
	for (unsigned c = 0; c < p->nch; c++)
		chan_close(ch[c]);
	server_phase = "concurrent: waiting for the receivers";
	waitgroup_wait(&wg_recv);
	server_phase = "concurrent: waiting for the drainers";
	waitgroup_wait(&wg_drain);
	server_phase = "concurrent: waiting for the spawned Gs";
	waitgroup_wait(&wg_spawn);
	server_phase = "concurrent: checking";

	for (unsigned s = 0; s < p->nworkers; s++)
		for (unsigned c = 0; c < p->nch; c++)
			for (unsigned q = 0; q < MAX_OPS * MAX_CH; q++) {
				uint32_t n = recvd[s][c][q], want = q < sent[s][c];
				CHECK(n == want, "sender %u channel %u value %u: received %u times, "
				      "want %u (%u sent)", s, c, q, n, want, sent[s][c]);
			}
	CHECK(mu_count == mu_ops, "mutex: %llu increments under it, %u lock/unlock pairs",
	      (unsigned long long)mu_count, mu_ops);
	for (uint32_t k = 0; k < nspawn; k++)
		CHECK(spawn_runs[k] == 1, "spawned G %u ran %u times", k, spawn_runs[k]);

	/* Closed and drained: every receive is ready and gives zero, !ok. */
	struct select_case cs[MAX_CH];
	struct val x[MAX_CH];
	memset(x, POISON, sizeof x);
	for (unsigned c = 0; c < p->nch; c++) {
		CHECK(chan_len(ch[c]) == 0, "closed channel %u drained but len %zu",
		      c, chan_len(ch[c]));
		cs[c] = (struct select_case)SELECT_RECV(ch[c], &x[c]);
	}
	int r = chan_select(cs, (int)p->nch, true);
	CHECK(r >= 0 && r < (int)p->nch && !cs[r].ok,
	      "select with default over closed channels returned %d (ok %d)", r,
	      r >= 0 ? cs[r].ok : -1);
	check_zero(&x[r], p->esize[r], (unsigned)r, "select recv");
	for (unsigned c = 0; c < p->nch; c++)
		chan_free(ch[c]);
}

/* ---- the solo run: one G, a model of every channel ----------------------------- */

struct model {
	chan_t c;
	unsigned cap, esize, len, head;
	bool closed;
	uint64_t q[4];		/* cap <= 3 */
	uint32_t next;		/* values sent on it */
};

static bool model_ready(const struct model *m, bool send)
{
	return send ? !m->closed && m->len < m->cap : m->len > 0 || m->closed;
}

static void model_push(struct model *m, uint64_t v)
{
	m->q[(m->head + m->len++) % 4] = v;
}

static void model_recvd(struct model *m, unsigned i, bool ok, const struct val *x)
{
	if (!m->len) {
		CHECK(m->closed && !ok, "solo: channel %u: received (ok %d) from an empty open channel",
		      i, ok);
		check_zero(x, m->esize, i, "solo recv");
		return;
	}
	uint64_t want = m->q[m->head];
	m->head = (m->head + 1) % 4;
	m->len--;
	CHECK(ok && x->v == want, "solo: channel %u: received 0x%llx ok %d, want 0x%llx",
	      i, (unsigned long long)x->v, ok, (unsigned long long)want);
	if (m->esize == 24)
		CHECK(x->nv == ~want, "solo: channel %u: value arrived torn", i);
}

/* In a misuse child: the kernel's exit is the child's. */
static bool in_child;

/* board_exit (boards/hosted/board.c): a kernel that exits in the fuzzer's
 * process has panicked or failed a check of its own: a crash. */
__attribute__((noreturn)) void fuzz_board_exit(int status);
__attribute__((noreturn)) void fuzz_board_exit(int status)
{
	if (in_child)
		_exit(status);
	fprintf(stderr, "fuzz: gmk exited with status %d\n", status);
	abort();
}

/* The misuse child: the operation must panic with Go's words. */
static void misuse(chan_t c, int what)
{
	static const char *const words[] = { "close of closed channel",
		"send on closed channel", "close of nil channel" };
	int fds[2];
	char out[4096];
	size_t len = 0;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		in_child = true;
		/* The other cores' threads are not in this process. */
		for (unsigned i = 0; i < ncpus; i++)
			if (i != this_cpu()->id)
				cpus[i].online = false;
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		struct val x = { 0 };
		if (what == 0 || what == 2)
			chan_close(what == 2 ? NULL : c);
		else
			chan_trysend(c, &x);
		printf("fuzz: misuse %d returned\n", what);
		fflush(stdout);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n = read(fds[0], out + len, sizeof out - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	out[len] = 0;
	close(fds[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0 && strstr(out, words[what]),
	      "misuse \"%s\" did not panic so (status 0x%x), its output:\n%s",
	      words[what], st, out);
}

static void solo(const struct prog *p)
{
	struct model m[MAX_CH];
	bool misused = !p->misuse;

	memset(m, 0, sizeof m);
	for (unsigned i = 0; i < p->nch; i++) {
		m[i].cap = p->cap[i];
		m[i].esize = p->esize[i];
		m[i].c = chan_make(p->esize[i], p->cap[i]);
	}
	server_phase = "solo";
	for (unsigned k = 0; k < p->nops; k++) {
		const struct op *o = &p->ops[k];
		unsigned i = op_chan(p, o), set = op_set(p, o);
		solo_at = (int32_t)k;
		atomic_xadd64(&progress, 1);
		struct model *mi = &m[i];
		struct val x[MAX_CH];
		bool ok;

		memset(x, POISON, sizeof x);
		if (o->kind == OP_CLOSE) {
			if (mi->closed) {
				if (!misused) {
					misused = true;
					misuse(mi->c, 0);
				}
				continue;
			}
			chan_close(mi->c);
			mi->closed = true;
			continue;
		}
		if (o->kind < NCOMMON) {
			if (o->kind == OP_LEN) {
				CHECK(chan_len(mi->c) == mi->len && chan_cap(mi->c) == mi->cap,
				      "solo: channel %u: len %zu cap %zu, want %u %u", i,
				      chan_len(mi->c), chan_cap(mi->c), mi->len, mi->cap);
			} else if (o->kind == OP_MUTEX || o->kind == OP_MUTEX_TRY) {
				CHECK(mutex_trylock(&mu), "solo: trylock of a free mutex failed");
				CHECK(!mutex_trylock(&mu), "solo: trylock of a held mutex succeeded");
				mutex_unlock(&mu);
			} else if (o->kind == OP_TIMER || o->kind == OP_TIMER_STOP) {
				(o->kind == OP_TIMER ? timer_op : timer_stop_op)(o);
			}
			continue;
		}
		/* Senders' operations on even bytes, receivers' on odd. */
		if (o->worker % 2 == 0) {
			unsigned sk = OP_SEND + (o->kind - NCOMMON) % NSEND;
			if (sk == OP_SEND || sk == OP_TRYSEND) {
				if (mi->closed) {
					if (!misused) {
						misused = true;
						misuse(mi->c, 1);
					}
					continue;
				}
				fillval(&x[0], mkval(0, i, mi->next));
				bool want = model_ready(mi, true);
				if (sk == OP_SEND && want) {
					chan_send(mi->c, &x[0]);
				} else {
					bool r = chan_trysend(mi->c, &x[0]);
					CHECK(r == want, "solo: trysend on channel %u (len %u cap %u) "
					      "returned %d", i, mi->len, mi->cap, r);
				}
				if (want) {
					model_push(mi, x[0].v);
					mi->next++;
				}
			} else {
				/* select over the open channels of the set, with
				 * default: picks a ready case iff there is one. */
				struct select_case cs[MAX_CH];
				unsigned which[MAX_CH], n = 0, nready = 0;
				for (unsigned j = 0; j < p->nch; j++)
					if (set & 1u << j && !m[j].closed) {
						fillval(&x[n], mkval(0, j, m[j].next));
						cs[n] = (struct select_case)SELECT_SEND(m[j].c, &x[n]);
						which[n++] = j;
						nready += model_ready(&m[j], true);
					}
				if (!n)
					continue;
				int r = chan_select(cs, (int)n, sk == OP_SELSEND_DEF || !nready);
				if (!nready) {
					CHECK(r == SELECT_DEFAULT, "solo: select send picked case %d, "
					      "none ready", r);
					continue;
				}
				CHECK(r >= 0 && r < (int)n && model_ready(&m[which[r]], true),
				      "solo: select send picked %d, not a ready case", r);
				model_push(&m[which[r]], x[r].v);
				m[which[r]].next++;
			}
		} else {
			unsigned rk = OP_RECV + (o->kind - NCOMMON) % NRECV;
			if (rk == OP_RECV || rk == OP_TRYRECV) {
				bool want = model_ready(mi, false), r;
				if (rk == OP_RECV && want) {
					ok = chan_recv(mi->c, &x[0]);
					r = true;
				} else {
					r = chan_tryrecv(mi->c, &x[0], &ok);
				}
				CHECK(r == want, "solo: tryrecv on channel %u (len %u closed %d) "
				      "returned %d", i, mi->len, mi->closed, r);
				if (r)
					model_recvd(mi, i, ok, &x[0]);
			} else {
				struct select_case cs[MAX_CH];
				unsigned nready = 0;
				for (unsigned j = 0; j < p->nch; j++) {
					cs[j] = (struct select_case)SELECT_RECV(
						set & 1u << j ? m[j].c : NULL, &x[j]);
					nready += set & 1u << j && model_ready(&m[j], false);
				}
				int r = chan_select(cs, (int)p->nch, rk != OP_SELRECV || !nready);
				if (!nready) {
					CHECK(r == SELECT_DEFAULT, "solo: select recv picked case %d, "
					      "none ready", r);
					continue;
				}
				CHECK(r >= 0 && r < (int)p->nch && set & 1u << r &&
				      model_ready(&m[r], false),
				      "solo: select recv picked %d, not a ready case", r);
				model_recvd(&m[r], (unsigned)r, cs[r].ok, &x[r]);
			}
		}
	}
	if (!misused)
		misuse(NULL, 2);
	for (unsigned i = 0; i < p->nch; i++)
		chan_free(m[i].c);
}

/* ---- between libFuzzer's thread and the server G -------------------------------- */

static const uint8_t *req_data;
static size_t req_len;
static volatile uint32_t req_seq, done_seq;

static void futex_wait(volatile uint32_t *a, uint32_t v, const struct timespec *ts)
{
	syscall(SYS_futex, a, FUTEX_WAIT_PRIVATE, v, ts, NULL, 0);
}

PROGRAM(fuzz_server, "the libFuzzer target's server (tests/fuzz)")
{
	uint32_t seen = 0;
	static struct prog prog;

	for (;;) {
		unsigned spins = 0;
		while (atomic_load32(&req_seq) == seen) {
			if (++spins < 64)
				gosched();
			else
				sleep_ns(20000);
		}
		seen = atomic_load32(&req_seq);
		if (decode(req_data, req_len, &prog)) {
			solo(&prog);
			concurrent(&prog);
		}
		server_phase = "waiting for an input";
		atomic_store32(&done_seq, seen);
		syscall(SYS_futex, &done_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return 0;
}

/* ---- libFuzzer's side -------------------------------------------------------------- */

static const char *const op_names[OP_NKINDS] = {
	"mutex", "mutex_try", "timer", "timer_stop", "sleep", "spawn", "gosched",
	"len", "send", "trysend", "selsend", "selsend_def", "recv", "tryrecv",
	"selrecv", "selrecv_def", "selrecv_timer", "close",
};

static const char *op_name(unsigned w, const struct op *o)
{
	if (o->kind < NCOMMON || o->kind == OP_CLOSE)
		return op_names[o->kind];
	return op_names[w % 2 == 0 ? OP_SEND + (o->kind - NCOMMON) % NSEND
				   : OP_RECV + (o->kind - NCOMMON) % NRECV];
}

/*
 * A run that does not finish: say where every G of the harness is and
 * what the scheduler holds, read racily from libFuzzer's thread while the
 * cores go on (a report, not a snapshot), and the input itself in hex, so
 * that a hang in a CI log can be replayed without its artifact file.
 */
static void hang_report(const uint8_t *data, size_t size)
{
	uint64_t now = nanotime();

	fprintf(stderr, "fuzz: the harness: %s", (const char *)server_phase);
	if (P && !strcmp((const char *)server_phase, "solo"))
		fprintf(stderr, " at op %d (%s)", solo_at,
			op_name(0, &P->ops[solo_at < 0 ? 0 : solo_at]));
	fprintf(stderr, "\n");
	for (unsigned w = 0; P && w < P->nworkers; w++) {
		int32_t at = worker_at[w];
		if (at >= 0)
			fprintf(stderr, "fuzz:   worker %u at op %d: %s arg %u\n", w, at,
				op_name(w, &P->ops[at]), P->ops[at].arg);
		else
			fprintf(stderr, "fuzz:   worker %u %s\n", w,
				at == -2 ? "done" : at == -1 ? "not started" : "-");
	}
	fprintf(stderr, "fuzz: sched: runqsize %u npidle %u nmspinning %u needspinning %u "
		"nmidle %u timerm %d\n", sched.runqsize, sched.npidle, sched.nmspinning,
		sched.needspinning, sched.nmidle, sched.timerm ? (int)sched.timerm->id : -1);
	for (unsigned i = 0; i < ncpus; i++) {
		struct cpu *c = &cpus[i];
		struct m *m = c->m;
		struct g *cg = m ? m->curg : NULL;
		fprintf(stderr, "fuzz: core %u: P %d curg %llu spinning %u park %u "
			"preempt_off %u resched %u halted %s%llu us timer %s%lld us "
			"last tick %llu us ago, %llu ticks %llu IPIs; host sleeping %u "
			"deadline %llu\n", i, m && m->p ? (int)m->p->id : -1,
			cg ? (unsigned long long)cg->goid : 0ull, m ? m->spinning : 0,
			m ? m->park : 0, c->preempt_off, c->resched,
			c->halted_since ? "for " : "no ",
			c->halted_since ? (unsigned long long)(now - c->halted_since) / 1000 : 0ull,
			c->timer_deadline_ns ? "in " : "none ",
			c->timer_deadline_ns ? (long long)(c->timer_deadline_ns - now) / 1000 : 0ll,
			(unsigned long long)(now - c->last_tick_ns) / 1000,
			(unsigned long long)c->timer_irqs, (unsigned long long)c->ipis,
			host_cores[i].sleeping, (unsigned long long)host_cores[i].deadline);
	}
	for (unsigned i = 0; i < sched.nprocs; i++) {
		struct p *pp = sched_p(i);
		struct g *rn = (struct g *)pp->runnext;
		fprintf(stderr, "fuzz: P %u: status %u M %d runq %u runnext %llu timers %u "
			"when0 %s%lld us, %llu fired\n", i, pp->status,
			pp->m ? (int)pp->m->id : -1, pp->runqtail - pp->runqhead,
			rn ? (unsigned long long)rn->goid : 0ull, pp->timers.len,
			pp->timers.when0 ? "in " : "none ",
			pp->timers.when0 ? (long long)(pp->timers.when0 - now) / 1000 : 0ll,
			(unsigned long long)pp->timers.nfired);
	}
	for (struct g *gp = sched.allgs; gp; gp = gp->alllink) {
		uint32_t st = gp->atomicstatus;
		if (st == _Gdead || st == _Gidle)
			continue;
		fprintf(stderr, "fuzz: G %llu %s %s\n", (unsigned long long)gp->goid,
			gstatus_string(st), st == _Gwaiting ? waitreason_string(gp->waitreason) : "");
	}
	fprintf(stderr, "fuzz: the input (%zu bytes, xxd -r -p makes the file):\n", size);
	for (size_t i = 0; i < size; i++)
		fprintf(stderr, "%s%02x%s", i % 32 ? "" : "fuzz-input: ", data[i],
			i % 32 == 31 || i == size - 1 ? "\n" : "");
}

static unsigned timeout_s = 10;

static void *boot(void *arg)
{
	char *argv[] = { "gmk", arg, "run=fuzz_server", NULL };
	hosted_main(3, argv);
	return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* libFuzzer's -timeout is SIGALRM, gmk's tick: the watchdog here
	 * replaces it; gmk's leak-free by its own allocator, not LSan's. */
	static char *args[256];
	int n = 0;
	for (; n < *argc && n < 250; n++)
		args[n] = (*argv)[n];
	args[n++] = "-timeout=0";
	args[n++] = "-detect_leaks=0";
	args[n] = NULL;
	*argc = n;
	*argv = args;
	if (getenv("GMK_FUZZ_TIMEOUT"))
		timeout_s = (unsigned)atoi(getenv("GMK_FUZZ_TIMEOUT"));
	return 0;
}

const char *__asan_default_options(void)
{
	return "handle_segv=0:detect_leaks=0:detect_stack_use_after_return=0";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool booted;
	static char smp[32];

	if (!booted) {
		/* After libFuzzer installed its signal handlers: gmk's tick,
		 * IPI and fault handlers replace them. */
		const char *s = getenv("GMK_FUZZ_SMP");
		snprintf(smp, sizeof smp, "--smp=%s", s ? s : "4");
		pthread_t t;
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 1 << 20);
		CHECK(pthread_create(&t, &a, boot, smp) == 0, "cannot start gmk's thread");
		booted = true;
	}
	req_data = data;
	req_len = size;
	uint32_t seq = atomic_load32(&req_seq) + 1;
	atomic_store32(&req_seq, seq);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t seen = atomic_load64(&progress);
	while (atomic_load32(&done_seq) != seq) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		futex_wait(&done_seq, seq - 1, &ts);
		clock_gettime(CLOCK_MONOTONIC, &now);
		uint64_t p = atomic_load64(&progress);
		if (p != seen) {	/* an operation was done: not hung */
			seen = p;
			t0 = now;
			continue;
		}
		if (now.tv_sec - t0.tv_sec >= (time_t)timeout_s && timeout_s) {
			fprintf(stderr, "fuzz: the program did no operation for %u s "
				"(a lost wake-up, a livelock or a deadlock)\n", timeout_s);
			hang_report(data, size);
			abort();
		}
	}
	return 0;
}
