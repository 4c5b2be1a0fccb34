/*
 * Running out of memory is a fatal error that names the allocation.
 * Each test runs alone in its own boot (make test
 * does), on QEMU's 1 GiB (tools/run-qemu --mem).
 */
#include <stdio.h>

#include "kernel/kmalloc.h"
#include "kernel/page.h"
#include "kernel/test.h"
#include "tests/kernel_api.h"
#include "sched/sched.h"

/* 1 MiB requests: each takes a 2 MiB buddy block (a page more than 1 MiB
 * with its header), so 1 GiB runs out after about 500 of them. */
TEST_FATAL(oom_kmalloc_names_the_request, "kmalloc(1048576): out of memory")
{
	unsigned n = 0;

	printf("# %llu of %llu bytes in use before\n",
	       (unsigned long long)page_bytes_in_use(),
	       (unsigned long long)page_bytes_total());
	for (;;) {
		volatile char *p = kmalloc(1 << 20);
		p[0] = 1;
		n++;
	}
}

static void park_forever(void *c)
{
	chan_recv(c, NULL);
}

/*
 * 256 KiB stacks, so that memory runs out quickly: each is a 128-page
 * buddy block (65 pages with the guard, rounded up), so 1 GiB runs out
 * after about 2,000 Gs, all parked on one channel (with the default
 * 16 KiB it takes 32,000 Gs and ten times as long). The next goid is the one the message must name: the G record
 * comes first (kmalloc) and the stack second, and either may be the one
 * that fails; both name the G.
 */
TEST_FATAL(oom_spawning_names_the_goroutine,
	   "out of memory allocating a goroutine stack (256 KiB) for goroutine")
{
	chan_t c = chan_make(0, 0);
	uint64_t last = goid();

	for (;;) {
		test_expect_fatal("out of memory allocating a goroutine * for goroutine %llu",
				  (unsigned long long)last + 1);
		last = go_stack(park_forever, c, 256 * 1024);
	}
}
