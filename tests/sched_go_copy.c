/*
 * Scheduler: go_copy, a goroutine started with a copy of its argument
 * (sched/sched.h). The copy is the spawner's value at the call, whatever
 * the spawner does with its variable afterwards, and lives exactly as long
 * as the G: nothing of it is left once the Gs have exited.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/kmalloc.h"
#include "kernel/page.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "tests/sched_testutil.h"

#define COPY_GS		2000u
/* A copy of this many words is kmalloc'd (over G_ARG_INLINE). */
#define BIG_WORDS	25
#define LEAK_SPAWNS	100000u
#define LEAK_BATCH	1000u

/* One argument that fits the record and one that does not, each word a
 * function of the G's index: a G that got another's value, or the
 * overwritten local, sees a word that does not match. */
struct small_arg { uint32_t id; uint32_t words[5]; };
struct big_arg { uint64_t id; uint64_t words[BIG_WORDS]; };
_Static_assert(sizeof(struct small_arg) <= G_ARG_INLINE, "in the record");
_Static_assert(sizeof(struct big_arg) > G_ARG_INLINE, "kmalloc'd");

static uint8_t ran[COPY_GS];
static volatile uint64_t nbad, ndone;
static struct waitgroup copy_wg;

static uint64_t word(uint64_t id, int k)
{
	return id * 0x9E3779B97F4A7C15ull + (uint64_t)k + 1;
}

static void check_small(void *p)
{
	const struct small_arg *a = p;
	bool good = a->id < COPY_GS;
	for (int k = 0; good && k < 5; k++)
		good = a->words[k] == (uint32_t)word(a->id, k);
	if (good)
		ran[a->id]++;
	else
		atomic_xadd64(&nbad, 1);
	gosched();			/* the copy outlives a switch */
	if (good && a->words[4] != (uint32_t)word(a->id, 4))
		atomic_xadd64(&nbad, 1);
	atomic_xadd64(&ndone, 1);
	waitgroup_done(&copy_wg);
}

static void check_big(void *p)
{
	const struct big_arg *a = p;
	bool good = a->id < COPY_GS;
	for (int k = 0; good && k < BIG_WORDS; k++)
		good = a->words[k] == word(a->id, k);
	if (good)
		ran[a->id]++;
	else
		atomic_xadd64(&nbad, 1);
	gosched();
	if (good && a->words[BIG_WORDS - 1] != word(a->id, BIG_WORDS - 1))
		atomic_xadd64(&nbad, 1);
	atomic_xadd64(&ndone, 1);
	waitgroup_done(&copy_wg);
}

/*
 * Each G gets the value its spawner's local had at the call, though the
 * local is overwritten right after (and, every 16th G, the spawner yields
 * first, so some copies are read late, after many overwrites). Even Gs
 * get a copy in the record, odd ones a kmalloc'd copy. With go(fn,
 * &local) instead the Gs read whatever the local holds when they run.
 */
TEST(sched_go_copy_gives_each_g_the_value_at_the_call)
{
	memset(ran, 0, sizeof ran);
	atomic_store64(&nbad, 0);
	atomic_store64(&ndone, 0);
	waitgroup_add(&copy_wg, COPY_GS);
	for (uint32_t i = 0; i < COPY_GS; i++) {
		if (i % 2 == 0) {
			struct small_arg a = { .id = i };
			for (int k = 0; k < 5; k++)
				a.words[k] = (uint32_t)word(i, k);
			go_copy(check_small, &a, sizeof a);
			memset(&a, 0xa5, sizeof a);
			__asm__ volatile("" : : "r"(&a) : "memory");	/* kept */
		} else {
			struct big_arg a = { .id = i };
			for (int k = 0; k < BIG_WORDS; k++)
				a.words[k] = word(i, k);
			go_copy(check_big, &a, sizeof a);
			memset(&a, 0xa5, sizeof a);
			__asm__ volatile("" : : "r"(&a) : "memory");
		}
		if (i % 16 == 15)
			gosched();
	}
	waitgroup_wait(&copy_wg);
	struct runs_tally t = tally_runs(ran, COPY_GS);
	EXPECT_EQ(atomic_load64(&nbad), 0);
	EXPECT_EQ(t.missing, 0);
	EXPECT_EQ(t.twice, 0);
	EXPECT_EQ(atomic_load64(&ndone), COPY_GS);
}

struct pair { chan_t c; int v; };

static void send_v(void *p)
{
	struct pair *a = p;
	chan_send(a->c, &a->v);
}

/* go_value: the struct literal form. */
TEST(sched_go_value_copies_a_struct_literal)
{
	chan_t c = chan_make(sizeof(int), 0);
	int sum = 0, v;
	for (int i = 1; i <= 10; i++)
		go_value(send_v, struct pair, .c = c, .v = i * i);
	for (int i = 0; i < 10; i++) {
		chan_recv(c, &v);
		sum += v;
	}
	EXPECT_EQ(sum, 385);
	chan_free(c);
}

static volatile uintptr_t null_arg_seen;

static void record_arg(void *p)
{
	atomic_storeuintptr(&null_arg_seen, p == NULL ? 1 : 2);
}

TEST(sched_go_copy_of_zero_bytes_passes_null)
{
	atomic_storeuintptr(&null_arg_seen, 0);
	go_copy(record_arg, NULL, 0);
	while (atomic_loaduintptr(&null_arg_seen) == 0)
		gosched();
	EXPECT_EQ(atomic_loaduintptr(&null_arg_seen), 1);
}

static struct waitgroup leak_wg;

static void leak_small(void *p)
{
	const struct small_arg *a = p;
	if (a->words[0] != (uint32_t)word(a->id, 0))
		atomic_xadd64(&nbad, 1);
	waitgroup_done(&leak_wg);
}

static void leak_big(void *p)
{
	const struct big_arg *a = p;
	if (a->words[BIG_WORDS - 1] != word(a->id, BIG_WORDS - 1))
		atomic_xadd64(&nbad, 1);
	waitgroup_done(&leak_wg);
	if (a->id % 4 == 1)
		goexit();		/* the copy goes this way too */
}

/*
 * 100,000 spawns, half with a copy in the record and half with a
 * kmalloc'd one (208 bytes, with the function before it and kmalloc's
 * header a 256-byte slot), some of those ending in goexit rather than a
 * return: when all have exited, kmalloc holds what it held before and
 * the page allocator, G records and cached stacks aside, too. A copy
 * leaked in one spawn of 1,000 would hold 25 KiB of kmalloc and fail;
 * the margin is for the channels and timers other cores' idle work may
 * hold at the two instants (none in this test, today).
 */
TEST(sched_go_copy_100000_spawns_leave_no_copy_behind)
{
	atomic_store64(&nbad, 0);
	/* A first batch makes the records and caches that stay. */
	for (uint32_t round = 0; round < 2; round++) {
		uint32_t n = round == 0 ? LEAK_BATCH : LEAK_SPAWNS;
		gfree_release_stacks();
		uint64_t km0 = kmalloc_bytes_in_use();
		uint64_t pg0 = page_bytes_in_use() - g_record_pages_bytes();
		for (uint32_t done = 0; done < n; done += LEAK_BATCH) {
			waitgroup_add(&leak_wg, LEAK_BATCH);
			for (uint32_t i = 0; i < LEAK_BATCH; i++) {
				uint32_t id = done + i;
				if (i % 2 == 0) {
					struct small_arg a = { .id = id };
					a.words[0] = (uint32_t)word(id, 0);
					go_copy(leak_small, &a, sizeof a);
				} else {
					struct big_arg a = { .id = id };
					a.words[BIG_WORDS - 1] = word(id, BIG_WORDS - 1);
					go_copy(leak_big, &a, sizeof a);
				}
			}
			waitgroup_wait(&leak_wg);
		}
		/* Exited too: a G on its way out still holds its copy. */
		ASSERT(wait_quiescent(QUIESCENT_TIMEOUT_NS));
		gfree_release_stacks();
		uint64_t km1 = kmalloc_bytes_in_use();
		uint64_t pg1 = page_bytes_in_use() - g_record_pages_bytes();
		if (round == 0)
			continue;
		printf("# %u spawns: kmalloc %llu -> %llu bytes, pages %llu -> %llu bytes\n", n,
		       (unsigned long long)km0, (unsigned long long)km1,
		       (unsigned long long)pg0, (unsigned long long)pg1);
		EXPECT_LE(km1, km0 + 4096);
		/* Other Ps' stack caches (at most STACKCACHE_MAX stacks of
		 * 20 KiB each, kept by their owners) may have grown. */
		EXPECT_LE(pg1, pg0 + (uint64_t)sched_nprocs() * 64 * 20 * 1024);
	}
	EXPECT_EQ(atomic_load64(&nbad), 0);
}
