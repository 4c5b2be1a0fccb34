/* Helpers shared by the tests of preemption and of timers, and by the
 * others that keep every P busy with Gs that never yield. */
#ifndef GMK_TESTS_PREEMPT_TESTUTIL_H
#define GMK_TESTS_PREEMPT_TESTUTIL_H

#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "lib/sync.h"
#include "sched/sched.h"
#include "sched/timer.h"

/* tests/regs_<arch>.S: n iterations of a loop on one register, no calls
 * and no memory accesses. */
void spin_registers(uint64_t n);

/* Iterations of spin_registers between two looks at a stop flag: a few
 * milliseconds under QEMU, so the Gs stop soon after a test ends while
 * nearly all their time is in the register-only loop. */
#define SPIN_CHUNK (1u << 20)

/*
 * Gs that spin in registers and never yield, to keep Ps busy: only
 * preemption takes a core from them. Each looks at the stop flag every
 * SPIN_CHUNK / 16 iterations.
 */
struct spinners {
	volatile uint32_t running, stop;
	struct waitgroup wg;
};

static inline void spinners_g(void *arg)
{
	struct spinners *s = arg;
	atomic_xadd32(&s->running, 1);
	while (!atomic_load32(&s->stop))
		spin_registers(SPIN_CHUNK / 16);
	waitgroup_done(&s->wg);
}

/* Start n spinners and return once every one has started (this G gets a
 * core back when a spinner's slice ends). */
static inline void spinners_begin(struct spinners *s, uint32_t n)
{
	atomic_store32(&s->running, 0);
	atomic_store32(&s->stop, 0);
	waitgroup_add(&s->wg, (int32_t)n);
	for (uint32_t i = 0; i < n; i++)
		go(spinners_g, s);
	while (atomic_load32(&s->running) < n)
		gosched();
}

/* Stop the spinners and wait until every one has ended. */
static inline void spinners_end(struct spinners *s)
{
	atomic_store32(&s->stop, 1);
	waitgroup_wait(&s->wg);
}

/*
 * Wait, sleeping (so the P is free for others), until *counter reaches
 * want or timeout_ns passes; returns the last value seen.
 *
 * Time the guest stood still is not the wait's: a 1 ms sleep that took
 * over STALL_NS moves the deadline by what it took (at most
 * STALL_GRACE_MAX_NS in all). An emulator host loaded past its cores
 * stops every vCPU thread now and then for seconds, while the counter,
 * the host's clock, runs on; the guest then wakes past the deadline with
 * the work it waited for due but not yet done. Seen once: "5612 of 10000
 * timers fired" at arm64 smp 2 (two QEMUs and two CPU hogs on 2 host
 * cores), in a boot where tests of 55 and 436 ms took 13 and 8 s. A
 * counter that stops while the guest runs still fails at timeout_ns.
 */
#define STALL_NS		(200 * NSEC_PER_MSEC)
#define STALL_GRACE_MAX_NS	(60 * NSEC_PER_SEC)
static inline uint64_t sleep_until_count(volatile uint64_t *counter, uint64_t want,
					 uint64_t timeout_ns)
{
	uint64_t now = nanotime(), end = now + timeout_ns, grace = 0;
	uint64_t v;
	while ((v = atomic_load64(counter)) < want && now < end) {
		sleep_ns(NSEC_PER_MSEC);
		uint64_t t = nanotime();
		if (t - now > STALL_NS && grace < STALL_GRACE_MAX_NS) {
			end += t - now;
			grace += t - now;
		}
		now = t;
	}
	return v;
}

/* Sum of a per-P counter over every P. */
#define SUM_P(field)                                                       \
	({                                                                 \
		uint64_t s_ = 0;                                           \
		for (uint32_t i_ = 0; i_ < sched_nprocs(); i_++)           \
			s_ += __atomic_load_n(&sched_p(i_)->field,         \
					      __ATOMIC_RELAXED);           \
		s_;                                                        \
	})

static inline uint64_t max_maxhold_ns(void)
{
	uint64_t m = 0;
	for (uint32_t i = 0; i < sched_nprocs(); i++) {
		uint64_t h = __atomic_load_n(&sched_p(i)->maxhold_ns, __ATOMIC_RELAXED);
		if (h > m)
			m = h;
	}
	return m;
}

/* The id of the P running this G, with preemption off around the caller's
 * use of it (preempt_disable first). */
static inline uint32_t this_p_id(void)
{
	return getg()->m->p->id;
}

#endif
