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
 * switchyield=on, which tools/run-qemu --deterministic also adds when it
 * boots more than one core, makes every execute run arch_cpu_relax
 * (yield on arm64, pause on x86-64) first. On hardware that is a hint;
 * QEMU's single-threaded TCG ends the vCPU's turn there. Replay needs
 * that because of how QEMU 7.2 (Debian 12's) shares its one thread
 * under -icount: each vCPU in turn may run until the next timer
 * deadline of the whole machine (icount_prepare_for_run sets the budget
 * to icount_get_limit(), with no share per vCPU; later releases split
 * it). A vCPU that runs to that deadline leaves the next ones in the
 * round-robin a budget of 0: they take their pending interrupts and
 * execute nothing. They run only when the busy one leaves its turn
 * early: wfi/hlt, yield/pause, or arming the earliest timer. A G that
 * polls with gosched on one core (chan_wait_for_waiters in the channel
 * tests) does none of those, and a vCPU waiting for it gets turns too
 * short to leave its timer interrupt handler (the next interrupt is due
 * before the handler's eret) for as long as the poll lasts. With a
 * yield at every switch, no vCPU keeps the thread past its next switch.
 *
 * Both off, the cost is one load of sched_hooks and a branch predicted
 * not taken at each site.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/kernel.h"
#include "sched/schedimpl.h"

uint8_t sched_hooks;

_Static_assert(sizeof ((struct p *)0)->fpevents / sizeof(uint64_t) == SCHEDFP_NEVENTS,
	       "struct p's fpevents: one counter per enum schedfp_event");

#define FNV64_OFFSET 0xcbf29ce484222325ull	/* the hashes' start (FNV-1a's basis) */

void schedfp_init(void)
{
	sched_hooks = (kopts.fingerprint ? SCHED_HOOK_FINGERPRINT : 0) |
		      (kopts.switchyield ? SCHED_HOOK_SWITCHYIELD : 0);
	for (uint32_t i = 0; i < sched.nprocs; i++)
		allp[i]->fphash = FNV64_OFFSET;
	/* Every P that will ever run: execute calls schedfp only then. */
	for (uint32_t i = 0; i < MAX_CPUS; i++)
		allp[i]->xattn.hooks = sched_hooks != 0;
}


/* schedfp's work (schedimpl.h). The hash and counts: store-release, as
 * the printing core may read them while pp runs on. */
void sched_hook(struct p *pp, const struct g *gp, enum schedfp_event ev)
{
	if (sched_hooks & SCHED_HOOK_FINGERPRINT) {
		atomic_store64(&pp->fphash, schedfp_fold(pp->fphash, gp->goid << 2 | ev));
		atomic_store64(&pp->fpevents[ev], pp->fpevents[ev] + 1);
	}
	/* switchyield=on: leave the emulator's turn at each switch. */
	if (ev == SCHEDFP_EXECUTE && (sched_hooks & SCHED_HOOK_SWITCHYIELD))
		arch_cpu_relax();
}

void sched_fingerprint_print(void)
{
	if (!(sched_hooks & SCHED_HOOK_FINGERPRINT))
		return;
	uint64_t h = FNV64_OFFSET, n[SCHEDFP_NEVENTS] = { 0 };
	for (uint32_t i = 0; i < sched.nprocs; i++) {
		struct p *pp = allp[i];
		h = schedfp_fold(h, i);
		/* load-acquire, pairs with schedfp's store-release (schedimpl.h) */
		h = schedfp_fold(h, atomic_load64(&pp->fphash));
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
