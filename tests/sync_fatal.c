/*
 * sync misuse is fatal with Go's words; each test runs alone in its boot.
 */
#include "kernel/test.h"
#include "lib/sync.h"
#include "sched/sync.h"

TEST_FATAL(sync_unlock_of_unlocked_mutex, "sync: unlock of unlocked mutex")
{
	struct mutex mu = { 0 };

	mutex_lock(&mu);
	mutex_unlock(&mu);
	mutex_unlock(&mu);
}

TEST_FATAL(sync_negative_waitgroup_counter, "sync: negative WaitGroup counter")
{
	struct waitgroup wg = { 0 };

	waitgroup_add(&wg, 1);
	waitgroup_done(&wg);
	waitgroup_done(&wg);
}

TEST_FATAL(sync_runlock_of_unlocked_rwmutex, "sync: RUnlock of unlocked RWMutex")
{
	struct rwmutex rw = { 0 };

	rwmutex_runlock(&rw);
}
