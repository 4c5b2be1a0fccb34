/*
 * A pipeline of PIPE_STAGES Gs connected by channels carries PIPE_VALUES
 * values from a source to a sink. The sink's checksum and count prove that
 * every value arrived exactly once; each block carries the count and sum
 * of the stage numbers it passed, which proves it went through every stage
 * exactly once, whatever core each stage ran on.
 *
 * Values travel in blocks of PIPE_BLOCK, and a message is a pointer to a
 * block: one value per message would mean 10^8 channel operations for
 * 10^6 values through 100 stages (about 2-4 us per hop under QEMU's TCG:
 * minutes). The per-hop cost of single values is measured separately by
 * chan_pipeline_single_values.
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/percpu.h"
#include "kernel/test.h"
#include "tests/chan_testutil.h"

#define PIPE_STAGES	100
#define PIPE_VALUES	1000000u
#define PIPE_BLOCK	1000u		/* values per message */
#define PIPE_CAP	4		/* ring slots per stage channel */

struct block {
	uint32_t n;
	uint32_t hops;			/* stages passed */
	uint64_t stamp;			/* sum of their numbers */
	uint32_t v[PIPE_BLOCK];
};

struct stage {
	chan_t in, out;
	uint32_t add;
	uint64_t runs_on;		/* bitmask of cores seen (diagnostic) */
};

static void pipe_stage(void *p)
{
	struct stage *s = p;
	struct block *b;

	/* A message is a pointer: the block changes owner, it is not copied
	 * (Go's chan *Block). */
	while (chan_recv(s->in, &b)) {
		b->hops++;
		b->stamp += s->add;
		s->runs_on |= 1ull << (this_cpu()->id & 63);
		chan_send(s->out, &b);
	}
	chan_close(s->out);
}

struct source {
	chan_t out;
	uint32_t nvalues, block;
};

static void pipe_source(void *p)
{
	struct source *src = p;

	for (uint32_t i = 0; i < src->nvalues;) {
		struct block *b = kmalloc(sizeof *b);
		while (b->n < src->block && i < src->nvalues)
			b->v[b->n++] = i++;
		chan_send(src->out, &b);
	}
	chan_close(src->out);
}

/* Runs the pipeline; returns the sink's sum and value count, and the
 * number of blocks that missed a stage or passed one twice. */
static void run_pipeline(uint32_t nvalues, uint32_t block, size_t cap,
			 uint64_t *sum, uint64_t *count, unsigned *ncores,
			 uint32_t *bad_blocks)
{
	struct stage *st = kmalloc(sizeof(struct stage) * PIPE_STAGES);
	chan_t ch[PIPE_STAGES + 1];
	struct source src;
	struct block *b;

	for (int i = 0; i <= PIPE_STAGES; i++)
		ch[i] = chan_make(sizeof(struct block *), cap);
	for (int i = 0; i < PIPE_STAGES; i++) {
		st[i] = (struct stage){ ch[i], ch[i + 1], (uint32_t)i + 1, 0 };
		go(pipe_stage, &st[i]);
	}
	src = (struct source){ ch[0], nvalues, block };
	go(pipe_source, &src);

	*sum = 0;
	*count = 0;
	*bad_blocks = 0;
	while (chan_recv(ch[PIPE_STAGES], &b)) {
		if (b->hops != PIPE_STAGES ||
		    b->stamp != (uint64_t)PIPE_STAGES * (PIPE_STAGES + 1) / 2)
			(*bad_blocks)++;
		for (uint32_t i = 0; i < b->n; i++)
			*sum += b->v[i];
		*count += b->n;
		kfree(b);
	}
	uint64_t cores = 0;
	for (int i = 0; i < PIPE_STAGES; i++)
		cores |= st[i].runs_on;
	*ncores = (unsigned)__builtin_popcountll(cores);
	/* Every stage closed its output; give them the moment to exit. */
	yield_for(NSEC_PER_MSEC);
	for (int i = 0; i <= PIPE_STAGES; i++)
		chan_free(ch[i]);
	kfree(st);
}

/* sum of the values 0..n-1 */
static uint64_t expected_sum(uint64_t n)
{
	return n * (n - 1) / 2;
}

TEST(chan_pipeline_100_stages_1m_values)
{
	uint64_t sum, count, t0 = nanotime();
	unsigned ncores;
	uint32_t bad;

	run_pipeline(PIPE_VALUES, PIPE_BLOCK, PIPE_CAP, &sum, &count, &ncores, &bad);
	uint64_t ms = (nanotime() - t0) / NSEC_PER_MSEC;
	printf("# %u values through %d stages in blocks of %u: %llu ms, stages ran on %u cores\n",
	       PIPE_VALUES, PIPE_STAGES, PIPE_BLOCK, (unsigned long long)ms, ncores);
	ASSERT_EQ(bad, 0);
	ASSERT_EQ(count, PIPE_VALUES);
	ASSERT_EQ(sum, expected_sum(PIPE_VALUES));
}

/* The same pipeline with one value per message, unbuffered: every hop is
 * a direct hand-off between two parked/running Gs. */
#define SINGLE_VALUES 2000u

TEST(chan_pipeline_single_values)
{
	uint64_t sum, count, t0 = nanotime();
	unsigned ncores;
	uint32_t bad;

	run_pipeline(SINGLE_VALUES, 1, 0, &sum, &count, &ncores, &bad);
	uint64_t ns = nanotime() - t0;
	printf("# %u values x %d unbuffered hops: %llu ms, %llu ns per hop\n",
	       SINGLE_VALUES, PIPE_STAGES, (unsigned long long)(ns / NSEC_PER_MSEC),
	       (unsigned long long)(ns / ((uint64_t)SINGLE_VALUES * PIPE_STAGES)));
	ASSERT_EQ(bad, 0);
	ASSERT_EQ(count, SINGLE_VALUES);
	ASSERT_EQ(sum, expected_sum(SINGLE_VALUES));
}
