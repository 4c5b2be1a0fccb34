/*
 * A worker pool with error collection, as x/sync/errgroup gives Go: 10,000
 * jobs fanned over every core, at most 4 goroutines per core at once
 * (errgroup_set_limit), the first error stopping the rest through the
 * group's context.
 *
 *   make run APP=examples/workers
 *   make run APP=examples/workers CMDLINE="run=workers -- jobs=20000"
 *   make run APP=examples/workers CMDLINE="run=workers -- fail=500"
 *
 * Job n counts the steps of n's Collatz sequence; the pool's total is
 * checked against the same sum done in one goroutine. With fail=N, job N
 * returns an error: the program reports it and how many jobs never ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmk.h"

#define JOBS_DEFAULT	10000
#define JOBS_MAX	1000000
#define PER_CORE	4
#define ERR_JOB		(-1)	/* the error job fail=N returns */

struct work {
	struct context *ctx;	/* the group's: cancelled at the first error */
	uint32_t *steps;	/* job n's result, 0 until it has run */
	uint32_t fail;		/* the job that fails; 0: none */
};

struct job {
	struct work *pool;
	uint32_t n;
};

static uint32_t collatz_steps(uint64_t n)
{
	uint32_t steps = 0;

	for (; n > 1; steps++)
		n = n % 2 ? 3 * n + 1 : n / 2;
	return steps;
}

static int job(void *arg)
{
	struct job *j = arg;	/* a job of jobs[], which outlives the group */

	if (context_err(j->pool->ctx))	/* an earlier job failed: skip */
		return 0;
	if (j->n == j->pool->fail)
		return ERR_JOB;
	j->pool->steps[j->n - 1] = collatz_steps(j->n) + 1;	/* +1: ran */
	return 0;
}

/* Runs jobs 1..njobs on the pool; returns the group's first error (0 for
 * none) and the sum of steps of the jobs that ran, and how many did. */
int workers_run(uint32_t njobs, uint32_t fail, uint64_t *sum, uint32_t *ran)
{
	struct errgroup g = { 0 };
	struct work pool = { .steps = kmalloc(njobs * sizeof(uint32_t)), .fail = fail };
	struct job *jobs = kmalloc(njobs * sizeof *jobs);

	if (!pool.steps || !jobs) {
		kfree(pool.steps);
		kfree(jobs);
		return ERR_JOB;
	}
	memset(pool.steps, 0, njobs * sizeof(uint32_t));
	pool.ctx = errgroup_with_context(&g, context_background());
	errgroup_set_limit(&g, PER_CORE * (int32_t)sched_nprocs());
	for (uint32_t n = 1; n <= njobs; n++) {
		jobs[n - 1] = (struct job){ &pool, n };
		errgroup_go(&g, job, &jobs[n - 1]);	/* blocks at the limit */
	}
	int err = errgroup_wait(&g);
	*sum = 0;
	*ran = 0;
	for (uint32_t i = 0; i < njobs; i++)
		if (pool.steps[i]) {
			*sum += pool.steps[i] - 1;
			(*ran)++;
		}
	kfree(jobs);
	kfree(pool.steps);
	return err;
}

/* One word of os.Args, key=N; false if it is not that key. */
static bool arg_u32(const char *word, const char *key, uint32_t *v)
{
	size_t k = strlen(key);
	char *end;

	if (strncmp(word, key, k) != 0 || word[k] != '=')
		return false;
	unsigned long n = strtoul(word + k + 1, &end, 10);
	if (*end || end == word + k + 1 || n > JOBS_MAX)
		return false;
	*v = (uint32_t)n;
	return true;
}

PROGRAM(workers, "10000 jobs over every core with errgroup, errors collected")
{
	uint32_t njobs = JOBS_DEFAULT, fail = 0, ran;
	uint64_t sum, want = 0;

	for (int i = 1; i < argc; i++)
		if (!arg_u32(argv[i], "jobs", &njobs) && !arg_u32(argv[i], "fail", &fail)) {
			printf("workers: '%s': want jobs=N or fail=N (N up to %d)\n", argv[i], JOBS_MAX);
			return 2;
		}
	if (njobs == 0) {
		printf("workers: jobs=0: nothing to do\n");
		return 2;
	}
	for (uint32_t n = 1; n <= njobs; n++)
		want += collatz_steps(n);
	uint64_t t0 = time_now();
	int err = workers_run(njobs, fail, &sum, &ran);
	uint64_t ms = (time_now() - t0) / NSEC_PER_MSEC;
	if (err) {
		/* Jobs before the failing one may all have run; none after it
		 * starts once the context is cancelled. */
		printf("workers: job %u failed (error %d): %u of %u jobs ran, %llu ms\n",
		       fail, err, ran, njobs, (unsigned long long)ms);
		return fail && err == ERR_JOB && ran < njobs ? 0 : 1;
	}
	printf("workers: %u jobs on %u Ps, %u ran, Collatz steps %llu (one G: %llu), %llu ms: %s\n",
	       njobs, sched_nprocs(), ran, (unsigned long long)sum, (unsigned long long)want,
	       (unsigned long long)ms, sum == want && ran == njobs ? "checked" : "WRONG");
	return sum == want && ran == njobs && !fail ? 0 : 1;
}
