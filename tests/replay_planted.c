/*
 * A planted interleaving-dependent failure, for the exact-replay tests
 * (tools/test-all boots it with `make replay`'s deterministic mode; it is
 * a program, so never part of test=*).
 *
 * Two producer Gs, A and B, each start REPLAY_WORKERS workers on their own
 * P, while the other Ps, idle, steal. A thief visits the busy Ps in a
 * random order (stealwork's cheaprand, seeded by seed=), so whether the
 * first worker to run away from its producer's core is one of A's or one
 * of B's, and how many of each, depends on the interleaving. The planted
 * bug: the program fails when an odd number of workers ran away from
 * their producer's core.
 * With the same seed in deterministic mode the outcome repeats exactly;
 * some seeds fail and some pass.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/kernel.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "sched/gmk.h"

#define REPLAY_WORKERS 32
/* Each worker busy-waits this long (delay_ns: a spin with yield/pause,
 * which in deterministic mode also lets the other vCPUs take their turn),
 * so that the producers' queues stay full while the thieves come. */
#define REPLAY_WORK_NS (20 * NSEC_PER_USEC)
#define REPLAY_THIEF_WAIT_NS (1 * NSEC_PER_SEC)

struct producer {
	char name;			/* 'A' or 'B' */
	volatile uint32_t core;		/* where it started its workers, + 1 */
};

struct worker {
	struct producer *from;
	uint32_t index;
};

static struct producer producers[2] = { { .name = 'A' }, { .name = 'B' } };
static struct worker workers[2][REPLAY_WORKERS];
static struct waitgroup wg;
/* The first worker seen on another core than its producer's, + 1, and
 * how many of each producer's workers ran away. */
static volatile uint64_t first_stolen;
static volatile uint32_t runaways[2];

static uint32_t core_now(void)
{
	preempt_disable();
	uint32_t id = this_cpu()->id;
	preempt_enable();
	return id;
}

static void worker(void *arg)
{
	struct worker *w = arg;

	delay_ns(REPLAY_WORK_NS);
	if (core_now() + 1 != atomic_load32(&w->from->core)) {
		uint64_t id = (uint64_t)(w->from - producers) * REPLAY_WORKERS + w->index;
		atomic_cas64(&first_stolen, 0, id + 1);
		atomic_xadd32(&runaways[w->from - producers], 1);
	}
	waitgroup_done(&wg);
}

static void producer(void *arg)
{
	struct producer *pr = arg;
	struct worker *ws = workers[pr - producers];

	atomic_store32(&pr->core, core_now() + 1);
	for (uint32_t i = 0; i < REPLAY_WORKERS; i++) {
		ws[i] = (struct worker){ pr, i };
		go(worker, &ws[i]);
	}
	waitgroup_done(&wg);
}

PROGRAM(replay_planted,
	"planted bug: fails when an odd number of Gs are stolen (interleaving-dependent)")
{
	if (sched_nprocs() < 3) {
		printf("replay_planted: needs 3 Ps or more (two producers and a thief)\n");
		return 2;
	}
	/* Afresh, for a second run: its Gs of a first one have all ended. */
	for (int i = 0; i < 2; i++) {
		atomic_store32(&producers[i].core, 0);
		atomic_store32(&runaways[i], 0);
	}
	atomic_store64(&first_stolen, 0);
	waitgroup_add(&wg, 2 * (1 + REPLAY_WORKERS));
	/* A first, and this G keeps its core until a thief has taken A,
	 * so that A and B start their workers on two different Ps. */
	go(producer, &producers[0]);
	uint64_t until = nanotime() + REPLAY_THIEF_WAIT_NS;
	while (!atomic_load32(&producers[0].core) && nanotime() < until)
		arch_cpu_relax();
	if (!atomic_load32(&producers[0].core)) {
		printf("replay_planted: no idle P took producer A within 1 s\n");
		return 2;
	}
	go(producer, &producers[1]);
	waitgroup_wait(&wg);

	uint64_t f = atomic_load64(&first_stolen);
	uint32_t ra = atomic_load32(&runaways[0]), rb = atomic_load32(&runaways[1]);
	printf("replay_planted: producers on cores %u and %u; workers stolen: "
	       "%u of A's, %u of B's", producers[0].core - 1,
	       producers[1].core - 1, ra, rb);
	if (f) {
		struct worker *w = &workers[0][0] + (f - 1);
		printf(", the first %c%u", w->from->name, w->index);
	}
	printf("\n");
	if ((ra + rb) % 2) {
		printf("replay_planted: FAIL: the planted bug (an odd number of "
		       "workers ran away)\n");
		return 1;
	}
	return 0;
}
