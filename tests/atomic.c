/*
 * Atomics (kernel/atomic.h): counters hammered by every core at once are
 * exact, and each operation returns what its comment says.
 */
#include <stdint.h>

#include "kernel/atomic.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/percpu.h"
#include "kernel/test.h"

/*
 * Counters hammered by every core at once, 1,000,000 increments by each
 * core: exact totals prove the atomics lose nothing.
 */
#define PER_CORE 1000000u

static volatile uint32_t atomic_counter, cas_counter;

static void hammer_atomics(void *arg)
{
	(void)arg;
	for (unsigned i = PER_CORE; i; i--) {
		atomic_xadd32(&atomic_counter, 1);
		uint32_t old;
		do
			old = atomic_load32(&cas_counter);
		while (!atomic_cas32(&cas_counter, old, old + 1));
	}
}

TEST(atomic_add_and_cas_counters_are_exact_under_all_cores)
{
	atomic_counter = 0;
	cas_counter = 0;
	smp_call_all(hammer_atomics, NULL);
	EXPECT_EQ(atomic_counter, PER_CORE * ncpus_online);
	EXPECT_EQ(cas_counter, PER_CORE * ncpus_online);
}

TEST(atomic_ops_return_the_documented_values)
{
	volatile uint32_t v = 5;
	volatile uint64_t w = 1ull << 40;

	EXPECT_EQ(atomic_xadd32(&v, 3), 8);		/* new value */
	EXPECT_EQ(atomic_xchg32(&v, 11), 8);		/* old value */
	EXPECT(!atomic_cas32(&v, 10, 12));
	EXPECT_EQ(v, 11);
	EXPECT(atomic_casrel32(&v, 11, 12));
	EXPECT_EQ(atomic_load32(&v), 12);
	atomic_or32(&v, 0x100);
	atomic_and32(&v, 0x10c);
	EXPECT_EQ(v, 0x10c);
	EXPECT_EQ(atomic_xadd64(&w, -1), (1ull << 40) - 1);
	EXPECT(atomic_cas64(&w, (1ull << 40) - 1, 7));
	EXPECT_EQ(atomic_load64(&w), 7);
}
