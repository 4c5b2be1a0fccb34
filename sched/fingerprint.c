/*
 * fingerprint=on: a short hash of the scheduling history, printed when the
 * run ends ("gmk: fingerprint 0123456789abcdef ...").
 *
 * Each P keeps a running hash of its own sequence of events: every
 * execute, every successful steal (the G it returns) and every
 * preemption, as (goid, event). Only the P's owner updates it, at those
 * sites (schedfp() in schedimpl.h), so it needs no lock. At the end the
 * per-P hashes are combined in P order.
 *
 * Two boots print the same fingerprint when every P saw the same
 * sequence: under deterministic replay (`make replay`: QEMU single-
 * threaded with -icount, where the whole machine is a function of the
 * image, the command line and the seed) that is the case, and a
 * different seed almost always gives a different one. Under ordinary
 * (multi-threaded) TCG the fingerprint changes from run to run: the
 * host decides the cores' relative speed.
 *
 * Off, the cost is one load of schedfp_on and a branch predicted not
 * taken at each site.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/kernel.h"
#include "sched/schedimpl.h"

bool schedfp_on;

_Static_assert(sizeof ((struct p *)0)->fpevents / sizeof(uint64_t) == SCHEDFP_NEVENTS,
	       "struct p's fpevents: one counter per enum schedfp_event");

#define FNV64_OFFSET 0xcbf29ce484222325ull	/* the hashes' start (FNV-1a's basis) */

static uint64_t fold(uint64_t h, uint64_t x)
{
	return schedfp_fold(h, x);
}

void schedfp_init(void)
{
	schedfp_on = kopts.fingerprint;
	for (uint32_t i = 0; i < sched.nprocs; i++)
		allp[i]->fphash = FNV64_OFFSET;
}


void sched_fingerprint_print(void)
{
	if (!schedfp_on)
		return;
	uint64_t h = FNV64_OFFSET, n[SCHEDFP_NEVENTS] = { 0 };
	for (uint32_t i = 0; i < sched.nprocs; i++) {
		struct p *pp = allp[i];
		h = fold(h, i);
		/* load-acquire, pairs with schedfp's store-release (schedimpl.h) */
		h = fold(h, atomic_load64(&pp->fphash));
		for (int e = 0; e < SCHEDFP_NEVENTS; e++)
			n[e] += atomic_load64(&pp->fpevents[e]);
	}
	printf("gmk: fingerprint %016llx (%u Ps, seed %llu: %llu executes, "
	       "%llu steals, %llu preemptions)\n", (unsigned long long)h,
	       sched.nprocs, (unsigned long long)sched_seed(),
	       (unsigned long long)n[SCHEDFP_EXECUTE],
	       (unsigned long long)n[SCHEDFP_STEAL],
	       (unsigned long long)n[SCHEDFP_PREEMPT]);
}
