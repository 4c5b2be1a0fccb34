/*
 * The benchmark harness: runs each benchmark BENCH_RUNS times, prints the
 * median with the minimum and maximum in the line format of
 * docs/benchmarks.md, and
 * counts the benchmarks whose sanity checks failed. `bench=<name>|all` on
 * the kernel command line starts it (the PROGRAM below; kernel_main_g maps
 * bench= to it); `name/N` in the list divides that benchmark's counts by N.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "bench/bench.h"

static const struct bench benches[] = {
	{ "spawn", "ns/G", 1, bench_spawn, { NULL }, 0 },
	{ "yield", "ns/gosched", 1, bench_yield, { NULL }, 0 },
	{ "pingpong", "ns/handoff", 1, bench_pingpong, { NULL }, 0 },
	{ "fanout", "efficiency", 3, bench_fanout, { NULL }, 0 },
	/* parked's aux: the same figure with the default G stack and with
	 * Go's 2 KiB, and the deepest use of a parked G's 1 KiB stack. */
	{ "parked", "B/G", 1, bench_parked, { "default-stack", "2k-stack", "deepest" }, 1 },
	{ "latency", "us-p99", 1, bench_latency, { "p50", "worst", "slice", "sched-p99", "irq-p99" }, 1 },
	{ "steal", "wall/ideal", 3, bench_steal, { NULL }, 0 },
};
#define NBENCHES (sizeof benches / sizeof benches[0])

void bench_fail(struct bench_ctx *c, const char *fmt, ...)
{
	/* First failure wins; CAS so that two failing Gs don't mix their
	 * messages (seq-cst, orders the message after the flag). */
	if (!atomic_cas32(&c->failed, 0, 1))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof c->why, fmt, ap);
	va_end(ap);
}

/* v with `decimals` digits after the point, rounded; no float printf is
 * needed from the libc (picolibc's may be integer-only). */
static const char *fmt_fixed(char *buf, size_t len, double v, int decimals)
{
	uint64_t scale = 1;
	for (int i = 0; i < decimals; i++)
		scale *= 10;
	bool neg = v < 0;
	double a = (neg ? -v : v) * (double)scale + 0.5;
	uint64_t q = a >= 1.8e19 ? UINT64_MAX : (uint64_t)a;
	if (decimals == 0)
		snprintf(buf, len, "%s%llu", neg ? "-" : "", (unsigned long long)q);
	else
		snprintf(buf, len, "%s%llu.%0*llu", neg ? "-" : "",
			 (unsigned long long)(q / scale), decimals,
			 (unsigned long long)(q % scale));
	return buf;
}

static void sort_doubles(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/*
 * One entry of the bench= list: "name" or "name/N". Returns its length in
 * *len and N in *div (1 without "/N"); false if "/N" is not a number >= 1.
 */
static bool parse_entry(const char *w, size_t *len, size_t *namelen, uint32_t *div)
{
	const char *end = strchr(w, ',');
	*len = end ? (size_t)(end - w) : strlen(w);
	const char *slash = memchr(w, '/', *len);
	*namelen = slash ? (size_t)(slash - w) : *len;
	*div = 1;
	if (!slash)
		return true;
	uint64_t v = 0;
	const char *d = slash + 1;
	if (d == w + *len)
		return false;
	for (; d < w + *len; d++) {
		if (*d < '0' || *d > '9' || v > UINT32_MAX / 10)
			return false;
		v = v * 10 + (uint64_t)(*d - '0');
	}
	if (v < 1 || v > UINT32_MAX)
		return false;
	*div = (uint32_t)v;
	return true;
}

static const struct bench *bench_find(const char *name, size_t len)
{
	for (size_t i = 0; i < NBENCHES; i++)
		if (strlen(benches[i].name) == len && memcmp(benches[i].name, name, len) == 0)
			return &benches[i];
	return NULL;
}

/* The divisor `which` gives benchmark b (its first matching entry), or 0
 * if it does not select b. */
static uint32_t selected(const char *which, const struct bench *b)
{
	size_t len, nl;
	uint32_t div;
	for (const char *w = which; *w; w += len + (w[len] == ',')) {
		parse_entry(w, &len, &nl, &div);
		if ((nl == 3 && memcmp(w, "all", 3) == 0) || bench_find(w, nl) == b)
			return div;
	}
	return 0;
}

/* Every entry names a benchmark (or all) with a well-formed divisor. */
static bool valid(const char *which)
{
	size_t len, nl;
	uint32_t div;
	if (!*which)
		return false;
	for (const char *w = which; *w; w += len + (w[len] == ',')) {
		if (!parse_entry(w, &len, &nl, &div) ||
		    (!(nl == 3 && memcmp(w, "all", 3) == 0) && !bench_find(w, nl))) {
			printf("gmk: bench=%s: '%.*s' is not a benchmark[/N]\n", which,
			       (int)len, w);
			return false;
		}
	}
	return true;
}

static bool run_one(const struct bench *b, uint32_t div)
{
	struct bench_ctx c = { .div = div, .nprocs = sched_nprocs() };
	double fig[BENCH_RUNS], aux[BENCH_AUX_MAX][BENCH_RUNS];
	char line[320], n1[32], n2[32], n3[32];
	int runs = 0;

	for (; runs < BENCH_RUNS && !atomic_load32(&c.failed); runs++) {
		memset(c.aux, 0, sizeof c.aux);
		fig[runs] = b->run(&c);
		for (int k = 0; k < BENCH_AUX_MAX; k++)
			aux[k][runs] = c.aux[k];
	}
	int len = snprintf(line, sizeof line, "bench %s nprocs=%u", b->name, c.nprocs);
	if (atomic_load32(&c.failed)) {
		printf("%s FAIL %s\n", line, c.why);
		return false;
	}
	sort_doubles(fig, runs);
	len += snprintf(line + len, sizeof line - len, " median=%s min=%s max=%s %s",
			fmt_fixed(n1, sizeof n1, fig[runs / 2], b->decimals),
			fmt_fixed(n2, sizeof n2, fig[0], b->decimals),
			fmt_fixed(n3, sizeof n3, fig[runs - 1], b->decimals), b->unit);
	for (int k = 0; k < BENCH_AUX_MAX; k++) {
		if (!b->aux_name[k])
			continue;
		sort_doubles(aux[k], runs);
		len += snprintf(line + len, sizeof line - len, " %s=%s", b->aux_name[k],
				fmt_fixed(n1, sizeof n1, aux[k][runs / 2], b->aux_decimals));
	}
	if (div > 1)
		snprintf(line + len, sizeof line - len, " scale=1/%u", div);
	printf("%s\n", line);
	return true;
}

int bench_main(const char *which)
{
	int failed = 0;

	if (!valid(which))
		return -1;
	for (size_t i = 0; i < NBENCHES; i++) {
		uint32_t div = selected(which, &benches[i]);
		if (div && !run_one(&benches[i], div))
			failed++;
	}
	return failed;
}

/* bench= on the command line, or the program's argument (the shell's
 * bench command; run=bench -- spawn/10). */
PROGRAM(bench, "the benchmarks (docs/benchmarks.md): bench=all|name[,name], name/N divides")
{
	int failed = bench_main(argc > 1 ? argv[1] : kopts.bench);

	if (failed < 0) {
		printf("gmk: benchmarks: all");
		for (size_t i = 0; i < NBENCHES; i++)
			printf(" %s", benches[i].name);
		printf("\n");
		return 2;
	}
	printf("bench: %d failed\n", failed);
	return failed ? 1 : 0;
}
