/*
 * Spinlocks (kernel/spinlock.c): a counter under the lock, hammered by
 * every core at once, is exact.
 */
#include <stdint.h>

#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/test.h"

/*
 * A counter hammered by every core at once, 1,000,000 increments by each
 * core: an exact total proves the lock loses nothing.
 */
#define PER_CORE 1000000u

static struct spinlock counter_lock = SPINLOCK_INIT("test counter");
static uint64_t locked_counter;

static void hammer_lock(void *arg)
{
	(void)arg;
	for (unsigned i = PER_CORE; i; i--) {
		spin_lock(&counter_lock);
		locked_counter++;	/* plain: the lock alone makes it exact */
		spin_unlock(&counter_lock);
	}
}

TEST(spinlock_counter_is_exact_under_all_cores)
{
	locked_counter = 0;
	smp_call_all(hammer_lock, NULL);
	ASSERT_EQ(locked_counter, (uint64_t)PER_CORE * ncpus_online);
	ASSERT_EQ(counter_lock.locked, 0u);	/* released as many times as taken */
}
