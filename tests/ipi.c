/*
 * Inter-processor interrupts (kernel/ipi.c): every core reaches every
 * other.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/ipi.h"
#include "kernel/kernel.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/test.h"
#include "kernel/time.h"

/* IPIs: every core pings every other; the receiver acknowledges per sender. */
static volatile uint32_t ping_req[MAX_CPUS][MAX_CPUS], ping_ack[MAX_CPUS][MAX_CPUS];
extern void (*ipi_ping_hook)(void);

static void ping_received(void)
{
	unsigned me = this_cpu()->id;

	for (unsigned s = 0; s < ncpus; s++)
		if (atomic_xchg32(&ping_req[me][s], 0))
			atomic_store32(&ping_ack[me][s], 1);
}

static void ping_everyone(void *arg)
{
	unsigned me = this_cpu()->id;
	(void)arg;
	for (unsigned d = 0; d < ncpus; d++)
		if (d != me) {
			atomic_store32(&ping_req[d][me], 1);
			ipi_send(d, IPI_PING);
		}
}

TEST(ipi_from_every_core_reaches_every_other)
{
	memset((void *)ping_req, 0, sizeof ping_req);
	memset((void *)ping_ack, 0, sizeof ping_ack);
	__atomic_store_n(&ipi_ping_hook, ping_received, __ATOMIC_RELEASE);
	smp_call_all(ping_everyone, NULL);
	uint64_t until = nanotime() + 2 * NSEC_PER_SEC;
	unsigned missing;
	do {
		missing = 0;
		for (unsigned d = 0; d < ncpus; d++)
			for (unsigned s = 0; s < ncpus; s++)
				missing += s != d && !atomic_load32(&ping_ack[d][s]);
	} while (missing && nanotime() < until);
	__atomic_store_n(&ipi_ping_hook, NULL, __ATOMIC_RELEASE);
	for (unsigned d = 0; d < ncpus; d++)
		for (unsigned s = 0; s < ncpus; s++)
			if (s != d && !ping_ack[d][s])
				test_fail(__FILE__, __LINE__, "IPI %u -> %u never arrived", s, d);
	ASSERT_EQ(missing, 0);
}

/*
 * An IPI_WAKE records when it was sent and when it came (struct cpu's
 * wake_hist): the idle-timer test (sched_wakeup.c) tells a core that was
 * told to look again and ran late from one nobody told. This core sends
 * one to itself with interrupts masked, and takes it 2 ms later.
 */
TEST(ipi_wake_taken_late_records_when_it_was_sent)
{
	preempt_disable();		/* this core's IPI, this core's record */
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	uint32_t seq0 = atomic_load32(&c->wake_seq);
	uint64_t t0 = nanotime();
	ipi_send(c->id, IPI_WAKE);
	while (nanotime() < t0 + 2 * NSEC_PER_MSEC)
		arch_cpu_relax();
	uint64_t t1 = nanotime();
	arch_irq_restore(flags);	/* it comes here */
	uint64_t end = t1 + 100 * NSEC_PER_MSEC;
	while (atomic_load32(&c->wake_seq) == seq0 && nanotime() < end)
		arch_cpu_relax();
	uint64_t sent = 0, at = 0;
	bool found = ipi_wake_find(c, t1, t1, nanotime(), &sent, &at);
	preempt_enable();
	ASSERT_EQ(found, true);
	printf("# sent, taken %llu us later\n", (unsigned long long)((at - sent) / NSEC_PER_USEC));
	/* Sent between t0 and the masked wait's end; taken only after it
	 * (the stamp is read inside ipi_send, a little after t0, so the
	 * two are at least t1 - sent apart, not a full 2 ms). */
	EXPECT_GE(sent, t0);
	EXPECT_LE(sent, t1);
	EXPECT_GE(at, t1);
}
