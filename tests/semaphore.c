/*
 * The weighted semaphore (lib/semaphore.h), after x/sync/semaphore's
 * tests: never more than its size held, whatever the weights and the
 * cores; waiters served in order, a big one at the head holding back
 * small ones behind it; an acquire whose context ends gets nothing and
 * leaves nothing behind; an acquire of more than the size waits only for
 * its context.
 */
#include <stdio.h>

#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/sched_testutil.h"

/* Wait (bounded) until s has `n` waiters queued. */
static bool wait_waiters(struct semaphore *s, uint32_t n)
{
	uint64_t end = nanotime() + 10 * NSEC_PER_SEC;
	for (;;) {
		if (semaphore_nwaiters(s) >= n)
			return true;
		if (nanotime() > end)
			return false;
		sleep_ns(100 * NSEC_PER_USEC);
	}
}

TEST(semaphore_try_acquire_counts_weights)
{
	struct semaphore s = SEMAPHORE_INIT(10);
	EXPECT(semaphore_try_acquire(&s, 4));
	EXPECT(semaphore_try_acquire(&s, 6));
	EXPECT(!semaphore_try_acquire(&s, 1));
	semaphore_release(&s, 5);
	EXPECT(!semaphore_try_acquire(&s, 6));
	EXPECT(semaphore_try_acquire(&s, 5));
	semaphore_release(&s, 10);
	EXPECT(semaphore_try_acquire(&s, 10));
	semaphore_release(&s, 10);
	EXPECT(semaphore_try_acquire(&s, 0));
}

/*
 * FIFO: with all 10 units held, a waiter for 8 queues, then one for 1.
 * Releasing 2 leaves room for the small one but not the big one at the
 * head: the small one keeps waiting (and try_acquire(1) fails: someone
 * waits). Releasing 8 more serves both.
 */
struct sem_waiter_arg { struct semaphore *s; int64_t n; chan_t got; };

static void sem_waiter(void *p)
{
	struct sem_waiter_arg *a = p;
	int err = semaphore_acquire(a->s, context_background(), a->n);
	int64_t n = err ? -1 : a->n;
	chan_send(a->got, &n);
}

TEST(semaphore_a_big_waiter_at_the_head_holds_back_smaller_ones)
{
	static struct semaphore s = SEMAPHORE_INIT(10);
	chan_t got = chan_make(sizeof(int64_t), 2);
	int64_t n;
	bool ok;
	ASSERT(semaphore_try_acquire(&s, 10));
	go_value(sem_waiter, struct sem_waiter_arg, .s = &s, .n = 8, .got = got);
	ASSERT(wait_waiters(&s, 1));
	go_value(sem_waiter, struct sem_waiter_arg, .s = &s, .n = 1, .got = got);
	ASSERT(wait_waiters(&s, 2));

	semaphore_release(&s, 2);
	sleep_ns(10 * NSEC_PER_MSEC);		/* room for the small one: it waits */
	EXPECT(!chan_tryrecv(got, &n, &ok));
	EXPECT_EQ(semaphore_nwaiters(&s), 2);
	EXPECT(!semaphore_try_acquire(&s, 1));

	semaphore_release(&s, 8);		/* both now, the head first */
	int64_t sum = 0;
	for (int i = 0; i < 2; i++) {
		ASSERT(chan_recv(got, &n));
		sum += n;
	}
	EXPECT_EQ(sum, 9);
	EXPECT_EQ(semaphore_nwaiters(&s), 0);
	semaphore_release(&s, 9);
	EXPECT(semaphore_try_acquire(&s, 10));	/* all back */
	semaphore_release(&s, 10);
	chan_free(got);
}

/* A waiter whose context ends gets its error and nothing else, leaves
 * the queue, and lets the waiter behind it through if that one fits. */
TEST(semaphore_acquire_gives_up_with_its_context)
{
	static struct semaphore s = SEMAPHORE_INIT(4);
	ASSERT(semaphore_try_acquire(&s, 3));
	/* t0 is read before the context is made: the deadline is t0 + 20 ms
	 * or later, never earlier. */
	uint64_t t0 = nanotime();
	struct context *ctx = context_with_timeout(context_background(), 20 * NSEC_PER_MSEC);
	uint64_t deadline = 0;
	ASSERT(context_deadline(ctx, &deadline));
	EXPECT_GE(deadline, t0 + 20 * NSEC_PER_MSEC);
	EXPECT_EQ(semaphore_acquire(&s, ctx, 2), CONTEXT_DEADLINE_EXCEEDED);
	EXPECT_GE(nanotime(), deadline);
	EXPECT_EQ(semaphore_acquire(&s, ctx, 1), CONTEXT_DEADLINE_EXCEEDED);	/* done already */
	context_release(ctx);
	EXPECT_EQ(semaphore_nwaiters(&s), 0);
	EXPECT(semaphore_try_acquire(&s, 1));	/* nothing was kept */
	semaphore_release(&s, 4);

	/* More than the size: waits for the context only. */
	ctx = context_with_timeout(context_background(), 5 * NSEC_PER_MSEC);
	EXPECT_EQ(semaphore_acquire(&s, ctx, 5), CONTEXT_DEADLINE_EXCEEDED);
	context_release(ctx);
	EXPECT(semaphore_try_acquire(&s, 4));
	semaphore_release(&s, 4);
}

/*
 * Gs on every P acquire weights of 1-4 from a semaphore of 6, some with
 * contexts that time out, hold them a moment and release: the units held
 * never exceed 6 (a shadow count, checked at each acquire), every
 * acquire ends with the units or with its context's error, and at the
 * end all 6 units are free.
 */
#define SEM_GS		16
#define SEM_ROUNDS	200
#define SEM_SIZE	6

static struct semaphore stress_sem = SEMAPHORE_INIT(SEM_SIZE);
static volatile uint64_t shadow, over, acquired, timedout, othererr;
static struct waitgroup stress_wg;

static void sem_worker(void *p)
{
	uint64_t r = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull + 7;
	for (int i = 0; i < SEM_ROUNDS; i++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		int64_t n = 1 + (int64_t)(r % 4);
		struct context *ctx = r & 0x30 ? context_background()
					       : context_with_timeout(context_background(),
								      (r >> 8) % 200 * NSEC_PER_USEC);
		int err = semaphore_acquire(&stress_sem, ctx, n);
		if (err == 0) {
			if (atomic_xadd64(&shadow, (uint64_t)n) > SEM_SIZE)
				atomic_xadd64(&over, 1);
			atomic_xadd64(&acquired, 1);
			if (r & 0x100)
				gosched();
			atomic_xadd64(&shadow, -(int64_t)n);
			semaphore_release(&stress_sem, n);
		} else if (err == CONTEXT_DEADLINE_EXCEEDED) {
			atomic_xadd64(&timedout, 1);
		} else {
			atomic_xadd64(&othererr, 1);
		}
		context_release(ctx);
	}
	waitgroup_done(&stress_wg);
}

TEST(semaphore_never_holds_more_than_its_size_on_every_p)
{
	atomic_store64(&shadow, 0);
	atomic_store64(&over, 0);
	atomic_store64(&acquired, 0);
	atomic_store64(&timedout, 0);
	atomic_store64(&othererr, 0);
	waitgroup_add(&stress_wg, SEM_GS);
	for (uintptr_t i = 0; i < SEM_GS; i++)
		go(sem_worker, (void *)(i + 1));
	waitgroup_wait(&stress_wg);
	printf("# %u acquires: %llu got their units, %llu timed out\n", SEM_GS * SEM_ROUNDS,
	       (unsigned long long)atomic_load64(&acquired),
	       (unsigned long long)atomic_load64(&timedout));
	EXPECT_EQ(atomic_load64(&over), 0);
	EXPECT_EQ(atomic_load64(&othererr), 0);
	EXPECT_EQ(atomic_load64(&acquired) + atomic_load64(&timedout), SEM_GS * SEM_ROUNDS);
	EXPECT_EQ(semaphore_nwaiters(&stress_sem), 0);
	EXPECT(semaphore_try_acquire(&stress_sem, SEM_SIZE));	/* nothing leaked */
	semaphore_release(&stress_sem, SEM_SIZE);
}
