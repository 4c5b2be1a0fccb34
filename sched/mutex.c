/*
 * sync.Mutex, following Go's sync/mutex.go.
 *
 * Two modes. Normal: waiters queue FIFO on the semaphore, but a woken
 * waiter does not own the lock; it competes with Gs that are arriving
 * right now (and hold a core, so they usually win). That is what makes an
 * uncontended-again mutex fast. Starvation: a waiter that has waited more
 * than MUTEX_STARVATION_THRESHOLD_NS sets MUTEX_STARVING; from then on
 * Unlock hands the lock straight to the first waiter, newcomers neither
 * spin nor take it, they queue at the tail. The mode ends when the waiter
 * that got the lock is the last one or waited less than the threshold.
 *
 * state (one word, changed only by CAS/xadd): bit 0 locked, bit 1 woken (a
 * waiter is awake or spinning, so Unlock need not wake another), bit 2
 * starving, bits 3.. the number of waiters parked on sema.
 */
#include "kernel/atomic.h"
#include "kernel/cpu.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "sched/sched.h"
#include "sched/sema.h"
#include "sched/sync.h"

/* Go's active_spin and active_spin_cnt: a few short spins only. */
#define ACTIVE_SPIN	4
#define ACTIVE_SPIN_CNT	30

/*
 * Spinning makes sense only when the holder is running on another core
 * and spinning keeps no runnable G from this core: Go's sync_runtime_canSpin.
 */
static bool mutex_canspin(int iter)
{
	if (iter >= ACTIVE_SPIN || ncpus_online <= 1)
		return false;
	uint32_t busy = atomic_load32(&sched.npidle) +
			atomic_load32(&sched.nmspinning) + 1;
	if (sched.nprocs <= busy)
		return false;
	struct g *gp = getg();
	struct p *pp = gp->m ? gp->m->p : NULL;
	return !pp || runqempty(pp);
}

static void mutex_dospin(void)
{
	for (int i = 0; i < ACTIVE_SPIN_CNT; i++)
		arch_cpu_relax();
}

bool mutex_trylock(struct mutex *m)
{
	uint32_t old = atomic_load32(&m->state);

	if (old & (MUTEX_LOCKED | MUTEX_STARVING))
		return false;
	/* A woken waiter may be about to take it: racing it is allowed,
	 * as for any newcomer. */
	return atomic_cas32(&m->state, old, old | MUTEX_LOCKED);
}

static void mutex_lock_slow(struct mutex *m)
{
	uint64_t wait_start = 0;
	bool starving = false, awoke = false;
	int iter = 0;
	uint32_t old = atomic_load32(&m->state);

	for (;;) {
		/* Spin while it is locked in normal mode: it may be released
		 * soon. Starvation mode hands it to a waiter, so never spin. */
		if ((old & (MUTEX_LOCKED | MUTEX_STARVING)) == MUTEX_LOCKED &&
		    mutex_canspin(iter)) {
			/* Tell Unlock not to wake another waiter: we are awake. */
			if (!awoke && !(old & MUTEX_WOKEN) &&
			    (old >> MUTEX_WAITER_SHIFT) != 0 &&
			    atomic_cas32(&m->state, old, old | MUTEX_WOKEN))
				awoke = true;
			mutex_dospin();
			iter++;
			old = atomic_load32(&m->state);
			continue;
		}
		uint32_t new = old;
		if (!(old & MUTEX_STARVING))
			new |= MUTEX_LOCKED;	/* try to take it */
		if (old & (MUTEX_LOCKED | MUTEX_STARVING))
			new += 1u << MUTEX_WAITER_SHIFT;	/* we will wait */
		/* Only switch to starvation if it is locked: Unlock expects
		 * a starving mutex to have waiters. */
		if (starving && (old & MUTEX_LOCKED))
			new |= MUTEX_STARVING;
		if (awoke) {
			if (!(new & MUTEX_WOKEN))
				fatal("sync: inconsistent mutex state");
			new &= ~MUTEX_WOKEN;
		}
		if (!atomic_cas32(&m->state, old, new)) {
			old = atomic_load32(&m->state);
			continue;
		}
		if (!(old & (MUTEX_LOCKED | MUTEX_STARVING)))
			return;		/* locked it with the CAS */

		/* Wait. Someone who waited before goes back to the front. */
		bool queue_lifo = wait_start != 0;
		if (wait_start == 0)
			wait_start = nanotime();
		semacquire1(&m->sema, queue_lifo, waitReasonSyncMutexLock);
		starving = starving ||
			   nanotime() - wait_start > MUTEX_STARVATION_THRESHOLD_NS;
		old = atomic_load32(&m->state);
		if (old & MUTEX_STARVING) {
			/*
			 * Handed off to us: the lock is ours although the
			 * locked bit is clear and we are still counted as a
			 * waiter. Fix both in one atomic add, and leave
			 * starvation mode if it is no longer needed.
			 */
			if ((old & (MUTEX_LOCKED | MUTEX_WOKEN)) ||
			    (old >> MUTEX_WAITER_SHIFT) == 0)
				fatal("sync: inconsistent mutex state");
			int32_t delta = (int32_t)(MUTEX_LOCKED -
						  (1u << MUTEX_WAITER_SHIFT));
			if (!starving || (old >> MUTEX_WAITER_SHIFT) == 1)
				delta -= MUTEX_STARVING;
			atomic_xadd32(&m->state, delta);
			return;
		}
		awoke = true;
		iter = 0;
	}
}

void mutex_lock(struct mutex *m)
{
	/* Fast path: unlocked and nobody waiting. */
	if (atomic_cas32(&m->state, 0, MUTEX_LOCKED))
		return;
	mutex_lock_slow(m);
}

static void mutex_unlock_slow(struct mutex *m, uint32_t new)
{
	if (!((new + MUTEX_LOCKED) & MUTEX_LOCKED))
		fatal("sync: unlock of unlocked mutex");
	if (new & MUTEX_STARVING) {
		/* Hand the lock to the first waiter and yield to it. The
		 * locked bit stays clear; the waiter owns it all the same,
		 * and newcomers see MUTEX_STARVING and queue. */
		semrelease1(&m->sema, true);
		return;
	}
	uint32_t old = new;
	for (;;) {
		/* Nobody to wake, or someone is already awake / has taken
		 * the lock / the mode changed: nothing to do. */
		if ((old >> MUTEX_WAITER_SHIFT) == 0 ||
		    (old & (MUTEX_LOCKED | MUTEX_WOKEN | MUTEX_STARVING)))
			return;
		/* Take one waiter off the count and mark it woken. */
		new = (old - (1u << MUTEX_WAITER_SHIFT)) | MUTEX_WOKEN;
		if (atomic_cas32(&m->state, old, new)) {
			semrelease1(&m->sema, false);
			return;
		}
		old = atomic_load32(&m->state);
	}
}

void mutex_unlock(struct mutex *m)
{
	/* Fast path: drop the lock bit; anything left means waiters or a
	 * mode to deal with (or an unlocked mutex: the add borrowed). */
	uint32_t new = atomic_xadd32(&m->state, -(int32_t)MUTEX_LOCKED);
	if (new != 0)
		mutex_unlock_slow(m, new);
}
